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

export class EarlierIndex {
  private readonly buckets: Record<Family, FamilyBuckets>;

  constructor(private readonly t: HullTable) {
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
   * The rules j < i with a space of family f whose hull meets rule i's, ascending. For a rule
   * of one source and one destination zone, only the rules of the four zone groups that can
   * share a zone with it ((s, d), (s, any), (any, d), (any, any)); for the others, all rules.
   */
  meeting(i: number, f: Family): number[] {
    const b = this.buckets[f];
    const h = this.t.hulls[f];
    const out: number[] = [];
    const sz = this.t.sz[i], dz = this.t.dz[i];
    if (sz <= 0 || dz <= 0) {
      collect(b.all, i, h, out);
      return out;
    }
    const g = (s: number, d: number) => b.groups.get(groupKey(s, d)) ?? EMPTY;
    collect(g(sz, dz), i, h, out);
    const one = out.length;
    collect(g(sz, ANY_ZONE), i, h, out);
    collect(g(ANY_ZONE, dz), i, h, out);
    collect(g(ANY_ZONE, ANY_ZONE), i, h, out);
    // each list is ascending; together they are sorted once (a few dozen numbers, usually)
    if (out.length > one) out.sort((x, y) => x - y);
    return out;
  }
}

/** Appends the rules of the ascending list `list` below i whose hull meets i's. */
function collect(list: readonly number[], i: number, h: Float64Array, out: number[]): void {
  for (let k = 0; k < list.length; k++) {
    const j = list[k];
    if (j >= i) return;
    if (hullsMeet(h, i, j)) out.push(j);
  }
}
