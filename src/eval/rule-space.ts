// An ordered rule table as the analysis sees it: each rule's match space per address family
// as a Region, and the earlier rules that can meet a rule's space (earlier-index.ts finds them).
import type { Family } from '../config/net';
import { covers, type Region } from './coverage';
import { EarlierIndex } from './earlier-index';
import { ANY_ZONE, familyBit, NEVER, type RuleSpec } from './rules';
import type { Interval } from './sets';

export interface RuleRegions {
  r4: Region | null; // null: matches no packet of the family
  r6: Region | null;
  sz: number; // zone fields as in RuleSpec
  dz: number;
}

/**
 * Makes the regions of the rules of one table (zoneCount zones). The zone masks, and the
 * service field of each service set (policySpecs shares one array among the policies of a
 * list), are made once and shared by the regions (which are never written to). Converting every policy's service keys to
 * BigInt intervals was a large part of the analysis's garbage.
 */
export function regionMaker(zoneCount: number): (spec: RuleSpec) => RuleRegions {
  const all = (1n << BigInt(zoneCount + 1)) - 1n;
  const zones = Array.from({ length: zoneCount + 1 }, (_, z) => 1n << BigInt(z));
  const zone = (z: number) => (z === ANY_ZONE ? all : z === NEVER ? 0n : zones[z] ?? 1n << BigInt(z));
  const fields = new Map<RuleSpec['svc'], Interval[]>();
  return (spec) => {
    const zs = zone(spec.sz), zd = zone(spec.dz);
    let v = fields.get(spec.svc);
    if (!v) fields.set(spec.svc, (v = spec.svc.map(([a, b]): Interval => [BigInt(a), BigInt(b)])));
    const region = (f: Family): Region | null => {
      if ((spec.families & familyBit(f)) === 0) return null;
      const s = f === 4 ? spec.src.v4 : spec.src.v6;
      const d = f === 4 ? spec.dst.v4 : spec.dst.v6;
      return zs && zd && s.length && d.length && v.length ? { zs, zd, s, d, v } : null;
    };
    return { r4: region(4), r6: region(6), sz: spec.sz, dz: spec.dz };
  };
}

export const regionOf = (r: RuleRegions, f: Family) => (f === 4 ? r.r4 : r.r6);

/** Writes R's hull (source lo, hi, destination lo, hi, service lo, hi) at h[at]; rounding the
 * IPv6 top bits keeps the order, so an overlap is never missed. */
function writeHull(f: Family, R: Region, h: Float64Array, at: number): void {
  const top = (x: bigint) => (f === 4 ? Number(x) : Number(x >> 64n));
  h[at] = top(R.s[0][0]);
  h[at + 1] = top(R.s[R.s.length - 1][1]);
  h[at + 2] = top(R.d[0][0]);
  h[at + 3] = top(R.d[R.d.length - 1][1]);
  h[at + 4] = Number(R.v[0][0]);
  h[at + 5] = Number(R.v[R.v.length - 1][1]);
}

/** R's hull as the table holds it, on its own. */
export function hullOf(f: Family, R: Region): Float64Array {
  const h = new Float64Array(6);
  writeHull(f, R, h, 0);
  return h;
}

export class RuleSpace {
  /** per family, 6 numbers a rule: hulls of source, destination and service (IPv6 by its top 64 bits) */
  private readonly hulls: Record<Family, Float64Array>;
  private readonly index: EarlierIndex;

  constructor(readonly rules: readonly RuleRegions[]) {
    const n = rules.length;
    this.hulls = { 4: new Float64Array(n * 6), 6: new Float64Array(n * 6) };
    const present = { 4: new Uint8Array(n), 6: new Uint8Array(n) };
    rules.forEach((r, i) => {
      for (const f of [4, 6] as const) {
        const R = regionOf(r, f);
        if (!R) continue;
        present[f][i] = 1;
        writeHull(f, R, this.hulls[f], i * 6);
      }
    });
    this.index = new EarlierIndex({ sz: rules.map((r) => r.sz), dz: rules.map((r) => r.dz), present, hulls: this.hulls });
  }

  /** The hulls of family f, 6 numbers a rule (rules without a space of f: zeros). */
  hullTable(f: Family): Float64Array {
    return this.hulls[f];
  }

  /** Does rule j's hull hold rule i's (a cheap necessary condition for j holding i)? */
  private hullHolds(f: Family, j: number, i: number): boolean {
    const h = this.hulls[f];
    return h[j * 6] <= h[i * 6] && h[i * 6 + 1] <= h[j * 6 + 1] &&
      h[j * 6 + 2] <= h[i * 6 + 2] && h[i * 6 + 3] <= h[j * 6 + 3] &&
      h[j * 6 + 4] <= h[i * 6 + 4] && h[i * 6 + 5] <= h[j * 6 + 5];
  }

  /**
   * The earlier rules (in order, those `use` accepts) whose space of family f may meet rule
   * i's, up to the first that holds all of it: nothing after that one takes any of it.
   * `use` must have no side effects: it is asked only about rules whose hulls meet i's.
   */
  candidates(i: number, f: Family, use: (j: number) => boolean = () => true): { C: Region[]; ids: number[] } {
    const R = regionOf(this.rules[i], f)!;
    const C: Region[] = [];
    const ids: number[] = [];
    for (const j of this.index.meeting(i, f)) {
      const o = regionOf(this.rules[j], f)!;
      if (!(o.zs & R.zs) || !(o.zd & R.zd) || !use(j)) continue;
      C.push(o);
      ids.push(j);
      if (this.hullHolds(f, j, i) && covers(o, R)) break;
    }
    return { C, ids };
  }
}
