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
import type { Coverage, PartialShadow } from './analysis-types';
import type { PolicyUsage } from './object-usage';
import type { RuleSpec } from './rules';
import { sameIntervals, type SportPiece } from './sets';
import { hullOf, type RuleRegions, type RuleSpace } from './rule-space';

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
export const UNDECIDED = 16; // left undecided by the work budget (used: what it spent)

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
  /** the policies' specs and actions the decisions were made on (compared with the next's) */
  specs: readonly RuleSpec[];
  allows: readonly boolean[];
  /** the policies' regions, hulls and earlier-index: the next analysis's space is made from it */
  space: RuleSpace;
  state: Uint8Array;
  used: Float64Array; // work units a judged policy spent
  verdicts: Array<Verdict | undefined>; // covered policies
  keys: Array<string | undefined>; // covered policies: spaceKey
  entries: Array<Coverage | undefined>; // covered policies: the reported entry
  partials: Array<PartialShadow | undefined>;
  /** the policies' references to objects (the unused objects follow from it) */
  usage: PolicyUsage;
}

const MAX_SOURCES = 2048;

/** Thrown inside an incremental analysis that must be made whole after all. */
export class Restart extends Error {}

/** What differs between a memo's policies and the next analysis's. */
export interface SpecChanges {
  /** the first position whose policy id differs (the policies' count when none does) */
  firstDiff: number;
  /** per position: decided again whatever the sources (changed, or at or past firstDiff) */
  dirty: Uint8Array;
  /** the positions below firstDiff whose spec or action changed, ascending */
  changed: number[];
  /**
   * The positions whose region a space made from the memo's must make again: `changed`, and
   * from firstDiff on every position whose spec is not the memo's at that position (a policy
   * added, deleted or moved near the end shifts only the few after it). Null: too many (the
   * space is made whole).
   */
  remade: number[] | null;
}

/** Past this many rows to make again, a space is made whole (each costs list splices). */
const MAX_REMADE = 256;

/**
 * Compares the policies with a memo's, position by position: a spec that is the memo's object
 * (a compile that reuses specs) or has the same zones, families, address and service sets and
 * source-port pieces (compared by content once per pair of set objects: a document's specs
 * share their sets) is unchanged. This replaced a signature of every policy (the text of every
 * set, interned), which was a third of a one-change analysis at 100,000 policies. Null: the
 * memo cannot serve (other options or zones).
 */
export function specChanges(prev: AnalysisMemo, opts: MemoOptions, zones: readonly string[], ids: readonly number[], specs: readonly RuleSpec[], allows: readonly boolean[]): SpecChanges | null {
  if (!sameOpts(prev.opts, opts) || prev.zones.length !== zones.length || !prev.zones.every((z, k) => z === zones[k])) return null;
  const n = ids.length;
  let first = Math.min(n, prev.ids.length);
  for (let i = 0; i < first; i++) if (prev.ids[i] !== ids[i]) first = i;
  const same = new Map<object, object>(); // a new set object to the old one it equals
  const sameSet = <T extends object>(a: T, b: T, eq: (a: T, b: T) => boolean) => {
    if (a === b || same.get(a) === b) return true;
    if (!eq(a, b)) return false;
    same.set(a, b);
    return true;
  };
  const addrEq = (a: RuleSpec['src'], b: RuleSpec['src']) => sameIntervals(a.v4, b.v4) && sameIntervals(a.v6, b.v6);
  const sportEq = (a: SportPiece[], b: SportPiece[]) => a.length === b.length && a.every((p, k) => sameIntervals(p.svc, b[k].svc) && sameIntervals(p.sp, b[k].sp));
  const sameSport = (a: SportPiece[] | null, b: SportPiece[] | null) => a === b || (a !== null && b !== null && sameSet(a, b, sportEq));
  const sameZones = (a: readonly number[] | null | undefined, b: readonly number[] | null | undefined) => a === b || (!!a && !!b && a.length === b.length && a.every((z, k) => z === b[k])) || (!a && !b);
  const sameSpec = (a: RuleSpec, b: RuleSpec) => a === b || (a.sz === b.sz && a.dz === b.dz && sameZones(a.szs, b.szs) && sameZones(a.dzs, b.dzs) && a.families === b.families &&
    sameSet(a.src, b.src, addrEq) && sameSet(a.dst, b.dst, addrEq) && sameSet(a.svc, b.svc, sameIntervals) && sameSport(a.sport ?? null, b.sport ?? null));
  const dirty = new Uint8Array(n);
  const changed: number[] = [];
  for (let i = 0; i < first; i++) {
    if (allows[i] !== prev.allows[i] || !sameSpec(specs[i], prev.specs[i])) {
      dirty[i] = 1;
      changed.push(i);
    }
  }
  dirty.fill(1, first);
  let remade: number[] | null = null;
  if (changed.length + n - first <= MAX_REMADE) {
    remade = changed.slice();
    for (let i = first; i < n; i++) if (i >= prev.specs.length || !sameSpec(specs[i], prev.specs[i])) remade.push(i);
  }
  return { firstDiff: first, dirty, changed, remade };
}

/** Which policies an analysis decides again, and the memo it records for the next one. */
export class IncrementalPlan {
  /** null: no usable previous memo, every policy is decided */
  readonly old: AnalysisMemo | null;
  readonly dirty: Uint8Array;
  /** the policies an earlier source's hull meets (marked when the source is added) */
  private readonly meets: Uint8Array;
  private sources = 0;
  readonly next: AnalysisMemo;

  /** the first position whose policy id differs from the previous version's: every policy from
   * there on is dirty, so none of them needs to be a source */
  private readonly firstDiff: number;

  /** `changes`: what differs from `prev` (null: no usable memo, every policy is decided) */
  constructor(prev: AnalysisMemo | null, changes: SpecChanges | null, opts: MemoOptions, zones: string[], ids: readonly number[], specs: readonly RuleSpec[], allows: readonly boolean[], private readonly space: RuleSpace, usage: PolicyUsage) {
    const n = ids.length;
    this.old = prev && changes ? prev : null;
    this.dirty = this.old ? changes!.dirty : new Uint8Array(n);
    this.firstDiff = this.old ? changes!.firstDiff : 0;
    this.meets = new Uint8Array(this.old ? n : 0);
    this.next = {
      opts, zones, ids: Int32Array.from(ids), specs, allows, space, state: new Uint8Array(n), used: new Float64Array(n),
      verdicts: new Array(n), keys: new Array(n), entries: new Array(n), partials: new Array(n), usage,
    };
  }

  /** A policy whose change can reach later ones: its old (same position) and new spaces. */
  addSource(i: number, withOld: boolean): void {
    if (i >= this.firstDiff) return;
    // past this many the marking costs more than deciding every policy
    if (++this.sources > MAX_SOURCES) throw new Restart();
    this.mark(i, this.space.rules[i]);
    if (withOld && this.old && i < this.old.space.rules.length) this.mark(i, this.old.space.rules[i]);
  }

  /** Marks the later policies whose hull the space `r` (at position `at`) meets: the earlier
   * index's zone groups, so a change's cost follows the rules of its zones, not every rule
   * times every source. */
  private mark(at: number, r: RuleRegions): void {
    for (const f of [4, 6] as const) {
      const R = f === 4 ? r.r4 : r.r6;
      if (R) this.space.markLater(at, r.sz, r.dz, f, hullOf(f, R), this.meets);
    }
  }

  /** Must policy i (not dirty) be decided again: does an earlier source meet its hull? */
  reached(i: number): boolean {
    return this.sources > 0 && this.meets[i] === 1;
  }
}

function sameOpts(a: MemoOptions, b: MemoOptions): boolean {
  return a.deep === b.deep && a.samples === b.samples && a.budget === b.budget && a.totalBudget === b.totalBudget;
}
