// Commit-time and background analysis: policies that can never match, policies another
// action partly shadows, NAT rules that can never match, and objects nothing uses.
//
// A policy's match space is (source zone, destination zone, source address, destination
// address, service key), per address family; zones range over the configuration's zones plus
// "none". A policy is covered when the earlier policies take every packet of its space; then
// `coveredBy` is a minimal cover: earlier policies whose union holds the space (over both
// families), none of them superfluous. It is redundant when every policy that takes its
// packets has its action, else shadowed.
//
// Exactness: a policy is first probed with sample packets of its space on the compiled
// classifier; if one of them reaches it, it is not covered. Otherwise its space is painted by
// the earlier rules that meet it, in order (paint.ts). An earlier policy found covered is left
// out of every later painting: it takes no packet, so it changes no first match. A policy
// whose painting runs over the work budget or past the deadline is listed `undecided`, never
// guessed.
//
// Two speeds: the commit's quick pass (budgeted, covered policies only) and the deep pass
// (deep: true; no budget unless given, a deadline, partial shadows and NAT rules too).
import { withoutDynamicClaims } from './dynamic-claims';
import type { ConfigDoc } from '../config/types';
import type { Analysis, AnalysisStats, AnalyzeOptions, Coverage, PartialShadow } from './analysis-types';
import { CompiledConfig } from './compiled';
import { policySpecs, zoneIndexOf } from './compile';
import { firstPoint, firstWatched, irredundant, irredundantAcross, unionCover, type FamilyPart } from './cover-search';
import { examplePacket } from './example';
import type { Point } from './paint';
import type { Family } from '../config/net';
import { unreachableNatRules } from './nat-analysis';
import { policyUsage, unusedObjects } from './object-usage';
import { probe } from './probe';
import { regionMaker, regionOf, RuleSpace, type RuleRegions } from './rule-space';
import type { Interval } from './sets';
import { OverBudget, Work } from './work';
import { COVERED, IncrementalPlan, JUDGED, PAINTED, REACHED, Restart, UNDECIDED, specChanges, type AnalysisMemo, type MemoOptions, type SpecChanges, type Verdict } from './analysis-memo';
import type { RuleSpec } from './rules';

export type { Analysis, AnalysisStats, AnalyzeOptions, Coverage, PartialShadow } from './analysis-types';

/** The covering policies of a line: up to GROUP_IDS named, the rest counted (a policy painted
 * by hundreds of narrow ones is covered by all of them). */
function plural(ids: number[]): string {
  if (ids.length === 1) return `policy ${ids[0]}`;
  const more = ids.length > GROUP_IDS ? ` and ${ids.length - GROUP_IDS} more (${ids.length})` : '';
  return `policies ${ids.slice(0, GROUP_IDS).join(', ')}${more}`;
}

/** Policies named in one grouped warning line; the rest are counted. */
const GROUP_IDS = 10;
/** Grouped warning lines at most; the rest are counted in a last line. */
const MAX_WARNING_LINES = 100;

/**
 * The coverages grouped by their covering policies, in policy order: one policy keeps its own
 * line ("policy 3 is shadowed by policies 1, 2"); many share one, named up to GROUP_IDS and
 * counted ("policies 1, 2, ... 10 and 1990 more (2000) are shadowed by policy 2001"), so a
 * catch-all moved to the top is one warning, not 2,000 run together.
 */
function groupedLines(coverages: Coverage[], one: string, many: string): string[] {
  const groups = new Map<string, Coverage[]>();
  for (const c of coverages) {
    const key = c.coveredBy.join(',');
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  return [...groups.values()].map((g) => {
    const by = plural(g[0].coveredBy);
    if (g.length === 1) return `policy ${g[0].id} ${one} ${by}`;
    const named = g.slice(0, GROUP_IDS).map((c) => c.id).join(', ');
    const more = g.length > GROUP_IDS ? ` and ${g.length - GROUP_IDS} more` : '';
    return `policies ${named}${more} (${g.length}) ${many} ${by}`;
  });
}

/** How many policies the first `lines` grouped lines of warningLines name or count. */
function groupedPolicies(a: Analysis, lines: number): number {
  let n = 0;
  for (const list of [a.shadowed, a.redundant]) {
    const sizes = new Map<string, number>();
    for (const c of list) {
      const key = c.coveredBy.join(',');
      sizes.set(key, (sizes.get(key) ?? 0) + 1);
    }
    for (const size of sizes.values()) {
      if (lines-- <= 0) return n;
      n += size;
    }
  }
  return n;
}

/** Human-readable warnings, grouped by covering policies: shadowed policies, redundant policies
 * (each in policy order), at most MAX_WARNING_LINES lines, then with `unused` the unused
 * objects. Commit and validate use the default. */
export function warningLines(a: Analysis, opts: { unused?: boolean } = {}): string[] {
  const grouped = [
    ...groupedLines(a.shadowed, 'is shadowed by', 'are shadowed by'),
    ...groupedLines(a.redundant, 'is redundant: covered by', 'are redundant: covered by'),
  ];
  let out = grouped;
  if (grouped.length > MAX_WARNING_LINES) {
    // the policies of the lines left out are counted, so the answer stays a few KB whatever
    // the size of the rule base (issue 30: 100,000 random policies)
    const left = a.shadowed.length + a.redundant.length - groupedPolicies(a, MAX_WARNING_LINES);
    out = [...grouped.slice(0, MAX_WARNING_LINES), `... and ${grouped.length - MAX_WARNING_LINES} more warnings about ${left} more policies (GET /api/analysis lists them all)`];
  }
  if (opts.unused) {
    for (const n of a.unusedAddresses) out.push(`address ${n} is not used by any policy or NAT rule`);
    for (const n of a.unusedServices) out.push(`service ${n} is not used by any policy or NAT rule`);
  }
  return out;
}


const families = [4, 6] as const;

/** The ids of the disabled policies (found in analyze's pass over them) and NAT rules, each
 * list only when it is not empty. */
function disabledRules(doc: ConfigDoc, disabled: number[]): Pick<Analysis, 'disabled' | 'disabledNat'> {
  const disabledNat = doc.nat.filter((r) => r.disabled).map((r) => r.id);
  return { ...(disabled.length ? { disabled } : {}), ...(disabledNat.length ? { disabledNat } : {}) };
}

/** The identity of a policy's match space (equal keys: equal spaces). */
function spaceKey(r: RuleRegions): string {
  const field = (iv: Interval[]) => iv.map(([a, b]) => `${a}-${b}`).join(',');
  return families.map((f) => {
    const R = regionOf(r, f);
    return R ? `${R.zs}:${R.zd}:${field(R.s)}:${field(R.d)}:${field(R.v)}` : '';
  }).join('/') + (r.sportKey ? `/${r.sportKey}` : '');
}

export function analyze(doc: ConfigDoc, compiled?: CompiledConfig, opts: AnalyzeOptions = {}): Analysis {
  const cfg = compiled ?? CompiledConfig.compile(doc);
  const specs = opts.specs ?? policySpecs(doc);
  const zones = [...zoneIndexOf(doc).keys()];
  const deep = opts.deep ?? false;
  const memoOpts: MemoOptions = { deep, samples: opts.samples ?? 24, budget: opts.budget ?? (deep ? Infinity : 1_000_000), totalBudget: opts.totalBudget ?? (deep ? Infinity : 20_000_000) };
  // the policies' actions, ids and the disabled ones in one pass (at 100,000 policies every
  // pass over them counts against a one-change analysis of a few tens of ms)
  const n = doc.policies.length;
  const allows = new Array<boolean>(n), ids = new Array<number>(n), disabled: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = doc.policies[i];
    allows[i] = p.action === 'allow';
    ids[i] = p.id;
    if (p.disabled) disabled.push(p.id);
  }
  const previous = opts.memo?.previous ?? null;
  const changes = previous ? specChanges(previous, memoOpts, zones, ids, specs, allows) : null;
  const space = spaceOf(specs, zones.length, previous, changes);
  const usage = policyUsage(doc.policies, previous?.usage ?? null);
  const plan = (usable: boolean) => new IncrementalPlan(usable ? previous : null, usable ? changes : null, memoOpts, zones, ids, specs, allows, space, usage);
  if (changes) {
    try {
      return withoutDynamicClaims(doc, run(doc, cfg, space, zones, allows, disabled, memoOpts, opts, plan(true)));
    } catch (e) {
      if (!(e instanceof Restart)) throw e;
    }
  }
  return withoutDynamicClaims(doc, run(doc, cfg, space, zones, allows, disabled, memoOpts, opts, plan(false)));
}

/**
 * The policies' regions, hulls and earlier-index: when few positions hold another spec than
 * the memo's at that position (edits, or a policy added, deleted or moved near the end), the
 * memo's space with those positions made again (the regions of the others are those of equal
 * specs), else made whole.
 */
function spaceOf(specs: readonly RuleSpec[], zoneCount: number, previous: AnalysisMemo | null, changes: SpecChanges | null): RuleSpace {
  const make = regionMaker(zoneCount);
  if (!previous || !changes?.remade) return new RuleSpace(specs.map(make));
  const { remade } = changes;
  if (remade.length === 0 && previous.space.rules.length === specs.length) return previous.space;
  const rules = previous.space.rules.slice(0, specs.length);
  for (const j of remade) rules[j] = make(specs[j]);
  return new RuleSpace(rules, { space: previous.space, changed: remade });
}

/** One analysis: every policy decided, or with a usable memo in `plan`, those a change reaches. */
function run(doc: ConfigDoc, cfg: CompiledConfig, space: RuleSpace, zones: string[], allows: boolean[], disabled: number[], mo: MemoOptions, opts: AnalyzeOptions, plan: IncrementalPlan): Analysis {
  const { deep, samples, budget } = mo;
  let totalLeft = mo.totalBudget;
  const deadline = opts.deadline ?? Infinity;
  const stats: AnalysisStats = Object.assign(opts.stats ?? {}, { reached: 0, painted: 0, undecided: 0, undecidedIds: [] as number[] });
  const n = doc.policies.length;
  const covered = new Uint8Array(n);
  const { old, next } = plan;
  const out: Analysis = { complete: false, shadowed: [], redundant: [], undecided: [], partiallyShadowed: [], unreachableNat: [], unusedAddresses: [], unusedServices: [], ...disabledRules(doc, disabled) };
  /** spaces of covered policies, with the action and verdict of the first of them */
  const coveredSpaces = new Map<string, { allow: boolean; verdict: Verdict }>();
  let timeUp = false;
  let gaveUp = false; // some policy was left short: the deep reports are not whole

  /** The painting of policy i (reached: a probe packet reached it, so only a partial shadow is asked). */
  const judge = (i: number, reached: boolean, work: Work): Verdict => {
    const me = space.rules[i];
    const v: Verdict = { covered: !reached, cover: [], otherTakes: false, partial: null };
    const other = (ids: number[]) => (c: number) => allows[ids[c]] !== allows[i];
    const partialOf = (f: Family, by: number, at: Point): PartialShadow => ({ id: doc.policies[i].id, by: doc.policies[by].id, example: examplePacket(at, f, zones) });
    // a family covered with a packet of the other action: a partial shadow if another family
    // turns out not covered
    let otherPacket: PartialShadow | null = null;
    // the families' parts, and the first policy named as the shadow, for the cover made
    // irredundant across the families at the end
    const parts: FamilyPart[] = [];
    let keep = -1;
    // each family, cut by source ports when the question names some (RuleSpace.parts)
    for (const f of families) {
      if (!regionOf(me, f)) continue;
      // an earlier covered policy takes no packet: leaving it out changes no first match
      for (const { R, C, ids, of, sport } of space.parts(i, f, (j) => covered[j] === 0)) {
        const at = (p: Point): Point => (sport === null ? p : { ...p, sp: sport });
        parts.push({ R, of });
        if (v.covered) {
          const u = unionCover(R, C, work);
          if (u.covered) {
            // one candidate, holding it all: it takes every packet (no painting needed)
            const first = C.length === 1 ? { watched: other(ids)(0) ? { cand: 0, at: firstPoint(C[0], R) } : null, takers: [0] } : firstWatched(R, C, other(ids), work);
            v.otherTakes ||= first.watched !== null;
            if (first.watched && deep) otherPacket ??= partialOf(f, ids[first.watched.cand], at(first.watched.at));
            // a shadowed policy is named with a policy of the other action that takes some of
            // its packets, a redundant one with policies of its own action
            const shadow = first.watched?.cand ?? -1;
            if (shadow >= 0 && keep < 0) keep = ids[shadow];
            const from = shadow >= 0 ? unionCover(R, C, work, shadow).cover : first.takers ?? u.cover;
            for (const c of irredundant(R, C, from, work, shadow)) v.cover.push(ids[c]);
            continue;
          }
          v.covered = false;
          v.cover = [];
          if (!deep) return v;
        }
        if (deep && !v.partial) {
          const first = firstWatched(R, C, other(ids), work);
          if (first.watched) v.partial = partialOf(f, ids[first.watched.cand], at(first.watched.at));
        }
      }
    }
    if (!v.covered) v.partial ??= otherPacket;
    if (v.covered) v.cover = irredundantAcross(parts, [...new Set(v.cover)].sort((a, b) => a - b), work, keep);
    return v;
  };

  const markUndecided = (i: number) => {
    stats.undecided++;
    out.undecided.push(doc.policies[i].id);
    if (stats.undecidedIds.length < 100) stats.undecidedIds.push(doc.policies[i].id);
  };

  /** The previous analysis's decision of policy i (same position, nothing reaching it changed). */
  const copy = (i: number, o: AnalysisMemo) => {
    const st = o.state[i];
    next.state[i] = st;
    if (st & REACHED) stats.reached++;
    if (st & PAINTED) stats.painted++;
    if (st & JUDGED) {
      // a whole analysis would have judged it with what is left of the budget: it must fit
      if (timeUp || totalLeft <= 0 || o.used[i] > Math.min(budget, totalLeft)) throw new Restart();
      totalLeft -= o.used[i];
      next.used[i] = o.used[i];
    }
    if (st & UNDECIDED) {
      // left undecided by the budget: a whole analysis leaves it so only with the very same
      // allowance (none left, or the same share it overran); else it is made whole
      if (timeUp || (o.used[i] === 0 ? totalLeft > 0 : o.used[i] !== Math.min(budget, totalLeft))) throw new Restart();
      totalLeft -= o.used[i];
      next.used[i] = o.used[i];
      gaveUp = true;
      if (!(st & REACHED)) markUndecided(i);
      return;
    }
    const partial = o.partials[i];
    if (partial) {
      out.partiallyShadowed.push(partial);
      next.partials[i] = partial;
    }
    if (!(st & COVERED)) return;
    covered[i] = 1;
    const key = o.keys[i]!, verdict = o.verdicts[i]!, entry = o.entries[i]!;
    if (!coveredSpaces.has(key)) coveredSpaces.set(key, { allow: allows[i], verdict });
    (verdict.otherTakes ? out.shadowed : out.redundant).push(entry);
    next.verdicts[i] = verdict;
    next.keys[i] = key;
    next.entries[i] = entry;
  };

  for (let i = 0; i < n; i++) {
    // the common copy, first and cheapest: a policy a probe packet reached, nothing else to
    // carry over (a quick pass decides no more about it), no change near it
    if (old !== null && plan.dirty[i] === 0 && old.state[i] === REACHED && !plan.reached(i)) {
      next.state[i] = REACHED;
      stats.reached++;
      continue;
    }
    const me = space.rules[i];
    const dirty = old === null || plan.dirty[i] === 1;
    if (old && dirty) plan.addSource(i, true);
    if (!me.r4 && !me.r6) continue; // matches nothing at all: not "covered by" anything
    if (old && !dirty && !plan.reached(i)) {
      copy(i, old);
      continue;
    }
    const reached = families.some((f, k) => regionOf(me, f) !== null && probe(cfg, i, f, regionOf(me, f)!, samples, i * 2 + k + 1, me.pieces));
    if (reached) stats.reached++;
    let st = reached ? REACHED : 0;
    // a policy decided again that is or was covered changes the candidates of later ones
    const settle = () => {
      next.state[i] = st;
      if (old && !dirty && ((st & COVERED) || (old.state[i] & COVERED))) plan.addSource(i, false);
    };
    if (reached && !deep) {
      settle();
      continue;
    }
    // (a reached policy is not covered, so no covered policy has its space)
    const key = reached ? '' : spaceKey(me);
    const same = reached ? undefined : coveredSpaces.get(key);
    let verdict: Verdict;
    if (same && same.allow === allows[i]) {
      // an earlier policy of this very space is covered: everything in it is taken before that
      // policy, by the same rules, so nothing in between takes any of it
      stats.painted++;
      st |= PAINTED;
      verdict = same.verdict;
    } else {
      // over the budget: undecided, recorded so that the next analysis can copy it (copy())
      const undecided = () => {
        gaveUp = true;
        if (!reached) markUndecided(i);
        st |= UNDECIDED;
        settle();
      };
      if (timeUp || totalLeft <= 0) {
        undecided();
        continue;
      }
      const work = new Work(Math.min(budget, totalLeft), deadline, opts.cancel);
      try {
        verdict = judge(i, reached, work);
      } catch (e) {
        if (!(e instanceof OverBudget)) throw e;
        timeUp ||= e.timeUp;
        undecided();
        continue;
      } finally {
        const spent = Math.min(budget, totalLeft) - Math.max(work.left, 0);
        totalLeft -= spent;
        next.used[i] = spent;
      }
      st |= JUDGED;
      if (!reached) {
        stats.painted++;
        st |= PAINTED;
      }
    }
    if (!verdict.covered) {
      if (verdict.partial) {
        out.partiallyShadowed.push(verdict.partial);
        next.partials[i] = verdict.partial;
      }
      settle();
      continue;
    }
    covered[i] = 1;
    st |= COVERED;
    if (!same) coveredSpaces.set(key, { allow: allows[i], verdict });
    const entry = { id: doc.policies[i].id, coveredBy: verdict.cover.map((j) => doc.policies[j].id) };
    (verdict.otherTakes ? out.shadowed : out.redundant).push(entry);
    next.verdicts[i] = verdict;
    next.keys[i] = key;
    next.entries[i] = entry;
    settle();
  }

  let natDone = !deep;
  if (deep && !timeUp) {
    try {
      out.unreachableNat = unreachableNatRules(doc, zones.length, new Work(Infinity, deadline, opts.cancel));
      natDone = true;
    } catch (e) {
      if (!(e instanceof OverBudget)) throw e;
    }
  }
  Object.assign(out, unusedObjects(doc, next.usage));
  out.complete = deep && !gaveUp && natDone;
  // a deadline or a cancel leaves policies undecided that another run may decide: such a memo
  // is not kept (the previous one is); one the work budget left short is (issue 44: without
  // it every commit after one that ran out of budget analyzed the whole rule base again)
  if (opts.memo) opts.memo.next = timeUp ? null : next;
  return out;
}
