// The earlier rules whose hull meets a rule's hull, per address family, found without walking
// every earlier rule: the analysis asks this for every policy no probe packet reaches (about
// 2,400 of the 20,000 generated policies), and a walk over all earlier rules through a
// generator was ~50 ms of a commit. Rules are bucketed by family and zone group once; a
// zone-specific rule reads only the four groups it can meet, and the hulls of one family
// are one typed array, so a query is a tight loop of number comparisons.
import type { Family } from '../config/net';
import { ANY_ZONE } from './rules';

/** What the index is built from, per rule: zone fields (RuleSpec's), and per family whether
 * the rule has a space there and its hull, 6 numbers a rule (source lo, hi, destination lo,
 * hi, service lo, hi). */
export interface HullTable {
  sz: ArrayLike<number>;
  dz: ArrayLike<number>;
  present: Record<Family, Uint8Array>;
  hulls: Record<Family, Float64Array>;
}

/** A zone group's key: zone fields are ANY_ZONE, NEVER or 1..Z (Z far below 2^15). */
const groupKey = (sz: number, dz: number) => (sz + 2) * 0x10000 + (dz + 2);

/** Does the hull of rule j meet the hull of rule i (in all three fields)? */
export function hullsMeet(h: Float64Array, i: number, j: number): boolean {
  return h[i * 6] <= h[j * 6 + 1] && h[j * 6] <= h[i * 6 + 1] &&
    h[i * 6 + 2] <= h[j * 6 + 3] && h[j * 6 + 2] <= h[i * 6 + 3] &&
    h[i * 6 + 4] <= h[j * 6 + 5] && h[j * 6 + 4] <= h[i * 6 + 5];
}

/** Does the hull of rule i meet the hull `x` (6 numbers, as in the table)? */
export function hullMeetsBox(h: Float64Array, i: number, x: Float64Array): boolean {
  return h[i * 6] <= x[1] && x[0] <= h[i * 6 + 1] &&
    h[i * 6 + 2] <= x[3] && x[2] <= h[i * 6 + 3] &&
    h[i * 6 + 4] <= x[5] && x[4] <= h[i * 6 + 5];
}

interface FamilyBuckets {
  /** every rule with a space of the family, ascending */
  all: number[];
  /** the same rules by zone group, each list ascending */
  groups: Map<number, number[]>;
}

const EMPTY: readonly number[] = [];

/** A rule as it was before a change: its zone fields and the families it had a space in. */
export interface RuleWas {
  j: number;
  sz: number;
  dz: number;
  present: Record<Family, boolean>;
}

export class EarlierIndex {
  private readonly buckets: Record<Family, FamilyBuckets>;

  constructor(private readonly t: HullTable, buckets?: Record<Family, FamilyBuckets>) {
    if (buckets) {
      this.buckets = buckets;
      return;
    }
    const make = (f: Family): FamilyBuckets => {
      const b: FamilyBuckets = { all: [], groups: new Map() };
      const present = t.present[f];
      for (let j = 0; j < present.length; j++) {
        if (!present[j]) continue;
        b.all.push(j);
        const key = groupKey(t.sz[j], t.dz[j]);
        let g = b.groups.get(key);
        if (!g) b.groups.set(key, (g = []));
        g.push(j);
      }
      return b;
    };
    this.buckets = { 4: make(4), 6: make(6) };
  }

  /**
   * The index of table `t`, which is this index's table with the rows of `was` changed (same
   * length, same order: an edit of some rules). Only a row that joins or leaves a list (another
   * zone group, a family gained or lost) changes it, and only the lists it touches are copied:
   * this index stays as it was, for an older memo that may still be used (issue 30: building
   * the index whole was a large part of a one-change analysis at 100,000 policies).
   */
  changed(t: HullTable, was: readonly RuleWas[]): EarlierIndex {
    const copied = new Set<number[]>();
    const own = (list: number[] | undefined): number[] => {
      if (list && copied.has(list)) return list;
      const c = list ? list.slice() : [];
      copied.add(c);
      return c;
    };
    const next = {} as Record<Family, FamilyBuckets>;
    for (const f of [4, 6] as const) {
      const b = this.buckets[f];
      let all = b.all;
      let groups = b.groups;
      for (const w of was) {
        const before = w.present[f], after = t.present[f][w.j] === 1;
        const k0 = groupKey(w.sz, w.dz), k1 = groupKey(t.sz[w.j], t.dz[w.j]);
        if (before === after && (!before || k0 === k1)) continue;
        if (groups === b.groups) groups = new Map(b.groups);
        if (before) {
          const g = own(groups.get(k0));
          remove(g, w.j);
          if (g.length) groups.set(k0, g);
          else groups.delete(k0);
        }
        if (after) {
          const g = own(groups.get(k1));
          insert(g, w.j);
          groups.set(k1, g);
        }
        if (before !== after) {
          all = own(all);
          if (after) insert(all, w.j);
          else remove(all, w.j);
        }
      }
      next[f] = { all, groups };
    }
    return new EarlierIndex(t, next);
  }

  /**
   * Marks (mark[j] = 1) the rules j > at with a space of family f whose zone fields can share
   * a zone with (sz, dz) and whose hull meets `x`: the later rules a changed rule can reach.
   * A specific zone pair reads the four zone groups that can meet it, as `scan` does.
   */
  markLater(at: number, sz: number, dz: number, f: Family, x: Float64Array, mark: Uint8Array): void {
    const b = this.buckets[f];
    const h = this.t.hulls[f];
    if (sz <= 0 || dz <= 0) {
      // a field of any zone: every rule, those of the other field's zone (or any)
      const meets = (a: number, b: number) => a === ANY_ZONE || b === ANY_ZONE || a === b;
      for (let k = lowerBound(b.all, at + 1); k < b.all.length; k++) {
        const j = b.all[k];
        if (meets(sz, this.t.sz[j]) && meets(dz, this.t.dz[j]) && hullMeetsBox(h, j, x)) mark[j] = 1;
      }
      return;
    }
    for (const [s, d] of [[sz, dz], [sz, ANY_ZONE], [ANY_ZONE, dz], [ANY_ZONE, ANY_ZONE]]) markAfter(b.groups.get(groupKey(s, d)) ?? EMPTY, at, h, x, mark);
  }

  /**
   * Visits the rules j < i with a space of family f whose hull meets rule i's, ascending,
   * until `visit` answers false. For a rule of one source and one destination zone, only the
   * rules of the four zone groups that can share a zone with it ((s, d), (s, any), (any, d),
   * (any, any)); for the others, all rules.
   */
  scan(i: number, f: Family, visit: (j: number) => boolean): void {
    const b = this.buckets[f];
    const h = this.t.hulls[f];
    const sz = this.t.sz[i], dz = this.t.dz[i];
    if (sz <= 0 || dz <= 0) {
      scanLists([b.all], i, h, visit);
      return;
    }
    const g = (s: number, d: number) => b.groups.get(groupKey(s, d)) ?? EMPTY;
    scanLists([g(sz, dz), g(sz, ANY_ZONE), g(ANY_ZONE, dz), g(ANY_ZONE, ANY_ZONE)].filter((l) => l.length > 0), i, h, visit);
  }
}

/**
 * Visits the rules j < i of the ascending lists whose hull meets i's, in ascending order over
 * all the lists (a merge), until `visit` answers false. The painting needs the candidates
 * only up to the first that holds the whole space (RuleSpace.candidates), which for a covered
 * policy is often among the first few: collecting every earlier rule of its zone groups first
 * made each such question O(earlier rules), and a rule base with thousands of covered policies
 * (objects `any` on a side, or wide objects reused across zones) quadratic (issue 44).
 */
function scanLists(lists: ReadonlyArray<readonly number[]>, i: number, h: Float64Array, visit: (j: number) => boolean): void {
  const at = lists.map(() => 0);
  for (;;) {
    let best = -1, j = i;
    for (let k = 0; k < lists.length; k++) {
      const l = lists[k];
      if (at[k] < l.length && l[at[k]] < j) {
        j = l[at[k]];
        best = k;
      }
    }
    if (best < 0) return;
    at[best]++;
    if (hullsMeet(h, i, j) && !visit(j)) return;
  }
}

/** Sets mark[j] for the rules j > at of the ascending list whose hull meets `x`. */
function markAfter(list: readonly number[], at: number, h: Float64Array, x: Float64Array, mark: Uint8Array): void {
  for (let k = lowerBound(list, at + 1); k < list.length; k++) {
    const j = list[k];
    if (hullMeetsBox(h, j, x)) mark[j] = 1;
  }
}

/** The position of the first element of ascending `list` not below x. */
function lowerBound(list: readonly number[], x: number): number {
  let lo = 0, hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insert(list: number[], x: number): void {
  const at = lowerBound(list, x);
  if (list[at] !== x) list.splice(at, 0, x);
}

function remove(list: number[], x: number): void {
  const at = lowerBound(list, x);
  if (list[at] === x) list.splice(at, 1);
}
