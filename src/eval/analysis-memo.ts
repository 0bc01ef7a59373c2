// The incremental analysis (issue 30): what one analysis keeps of each policy's decision, so
// that the next analysis (of the next version, in the same worker thread) decides again only
// the policies a change can reach and copies the rest, with the answer a whole analysis gives.
//
// A policy's decision depends on its own space and action, on its position (the probe's
// seed), on the earlier policies that can meet its space (their spaces, actions, which of them
// are covered, the verdict of an earlier covered policy of the same space) and on the work
// budget left. So a policy is decided again when it is "dirty" (its id at its position, its
// action or its space differ from the previous version's, or it is at or past the first
// position whose id differs) or when an earlier "source" meets its hull: a dirty policy (its
// old and its new space) or a policy decided again that is or was covered. Every other
// policy's inputs are those of the previous analysis, so its decision is too. The budget is
// replayed in policy order: a copied decision whose recorded work would not fit in what a
// whole analysis would have left makes the analysis start again whole (Restart).
import type { Family } from '../config/net';
import type { Coverage, PartialShadow } from './analysis-types';
import { ANY_ZONE, type RuleSpec } from './rules';
import { hullOf, regionOf, type RuleRegions, type RuleSpace } from './rule-space';
import type { Interval } from './sets';
import { hullMeetsBox } from './earlier-index';

/** What the painting found for one policy (analysis.ts). */
export interface Verdict {
  covered: boolean;
  /** covered: earlier policies (indices) whose union covers it, none of them superfluous */
  cover: number[];
  /** covered: some packet's first match is a policy of the other action */
  otherTakes: boolean;
  /** not covered (deep pass): an earlier policy of the other action takes this packet */
  partial: PartialShadow | null;
}

/** State bits of one policy's decision. */
export const REACHED = 1; // a probe packet reached it
export const PAINTED = 2; // counted in stats.painted
export const COVERED = 4;
export const JUDGED = 8; // painted with work (not copied from an earlier policy of its space)

/** The options an analysis's decisions depend on (a memo serves only the same ones). */
export interface MemoOptions {
  deep: boolean;
  samples: number;
  budget: number;
  totalBudget: number;
}

export interface AnalysisMemo {
  opts: MemoOptions;
  zones: string[];
  ids: Int32Array;
  /** per policy SIG numbers: action, zone fields, families, interned field contents */
  sig: Int32Array;
  regions: readonly RuleRegions[];
  state: Uint8Array;
  used: Float64Array; // work units a judged policy spent
  verdicts: Array<Verdict | undefined>; // covered policies
  keys: Array<string | undefined>; // covered policies: spaceKey
  entries: Array<Coverage | undefined>; // covered policies: the reported entry
  partials: Array<PartialShadow | undefined>;
  /** field contents (address sets, service sets) to their numbers */
  intern: Map<string, number>;
  nextId: number;
}

const SIG = 7;
const MAX_SOURCES = 2048;

/** Thrown inside an incremental analysis that must be made whole after all. */
export class Restart extends Error {}

const ivText = (iv: Interval[]) => iv.map(([a, b]) => `${a}-${b}`).join(',');

/** Numbers for the policies' signatures, sharing the previous memo's numbering. */
function signatures(specs: readonly RuleSpec[], allows: readonly boolean[], prev: AnalysisMemo | null): { sig: Int32Array; intern: Map<string, number>; nextId: number } {
  const old = prev?.intern;
  let nextId = prev?.nextId ?? 1;
  const intern = new Map<string, number>();
  const byObject = new Map<unknown, number>(); // a doc's specs share their sets: text made once per set
  const num = (obj: unknown, text: () => string) => {
    let id = byObject.get(obj);
    if (id === undefined) {
      const t = text();
      id = intern.get(t) ?? old?.get(t) ?? nextId++;
      intern.set(t, id);
      byObject.set(obj, id);
    }
    return id;
  };
  const sig = new Int32Array(specs.length * SIG);
  specs.forEach((s, i) => {
    const o = i * SIG;
    sig[o] = allows[i] ? 1 : 0;
    sig[o + 1] = s.sz;
    sig[o + 2] = s.dz;
    sig[o + 3] = s.families;
    sig[o + 4] = num(s.src, () => `a${ivText(s.src.v4)}/${ivText(s.src.v6)}`);
    sig[o + 5] = num(s.dst, () => `a${ivText(s.dst.v4)}/${ivText(s.dst.v6)}`);
    sig[o + 6] = num(s.svc, () => `s${s.svc.map(([a, b]) => `${a}-${b}`).join(',')}`);
  });
  return { sig, intern, nextId };
}

interface Source {
  at: number;
  sz: number;
  dz: number;
  hull: Record<Family, Float64Array | null>;
}

const zoneMeets = (a: number, b: number) => a === ANY_ZONE || b === ANY_ZONE || a === b;

/** Which policies an analysis decides again, and the memo it records for the next one. */
export class IncrementalPlan {
  /** null: no usable previous memo, every policy is decided */
  readonly old: AnalysisMemo | null;
  readonly dirty: Uint8Array;
  private readonly sources: Source[] = [];
  readonly next: AnalysisMemo;

  /** the first position whose policy id differs from the previous version's: every policy from
   * there on is dirty, so none of them needs to be a source */
  private readonly firstDiff: number;

  /** `record`: make the memo for the next analysis (its signatures cost a pass over the policies) */
  constructor(prev: AnalysisMemo | null, opts: MemoOptions, zones: string[], ids: readonly number[], specs: readonly RuleSpec[], allows: readonly boolean[], private readonly space: RuleSpace, record = true) {
    const n = ids.length;
    const usable = prev !== null && sameOpts(prev.opts, opts) && prev.zones.length === zones.length && prev.zones.every((z, k) => z === zones[k]);
    const { sig, intern, nextId } = record ? signatures(specs, allows, usable ? prev : null) : { sig: new Int32Array(0), intern: new Map<string, number>(), nextId: 1 };
    this.old = usable ? prev : null;
    this.dirty = new Uint8Array(n);
    let first = 0;
    if (this.old) {
      const o = this.old;
      first = Math.min(n, o.ids.length);
      for (let i = 0; i < first; i++) if (o.ids[i] !== ids[i]) first = i;
      for (let i = 0; i < n; i++) {
        if (i >= first) this.dirty[i] = 1;
        else for (let k = i * SIG; k < i * SIG + SIG; k++) if (sig[k] !== o.sig[k]) { this.dirty[i] = 1; break; }
      }
    }
    this.firstDiff = first;
    this.next = {
      opts, zones, ids: Int32Array.from(ids), sig, regions: space.rules, state: new Uint8Array(n), used: new Float64Array(n),
      verdicts: new Array(n), keys: new Array(n), entries: new Array(n), partials: new Array(n), intern, nextId,
    };
  }

  /** A policy whose change can reach later ones: its old (same position) and new spaces. */
  addSource(i: number, withOld: boolean): void {
    if (i >= this.firstDiff) return;
    // past this many the pass over sources per policy costs more than deciding every policy
    if (this.sources.length >= MAX_SOURCES) throw new Restart();
    this.push(i, this.space.rules[i]);
    if (withOld && this.old && i < this.old.regions.length) this.push(i, this.old.regions[i]);
  }

  private push(at: number, r: RuleRegions): void {
    const hull = { 4: r.r4 ? hullOf(4, r.r4) : null, 6: r.r6 ? hullOf(6, r.r6) : null };
    if (hull[4] || hull[6]) this.sources.push({ at, sz: r.sz, dz: r.dz, hull });
  }

  /** Must policy i (not dirty) be decided again: does an earlier source meet its hull? */
  reached(i: number): boolean {
    const me = this.space.rules[i];
    for (const s of this.sources) {
      if (s.at >= i || !zoneMeets(s.sz, me.sz) || !zoneMeets(s.dz, me.dz)) continue;
      for (const f of [4, 6] as const) {
        const h = s.hull[f];
        if (h && regionOf(me, f) && hullMeetsBox(this.space.hullTable(f), i, h)) return true;
      }
    }
    return false;
  }
}

function sameOpts(a: MemoOptions, b: MemoOptions): boolean {
  return a.deep === b.deep && a.samples === b.samples && a.budget === b.budget && a.totalBudget === b.totalBudget;
}
