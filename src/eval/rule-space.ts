// An ordered rule table as the analysis sees it: each rule's match space per address family
// as a Region, and the earlier rules that can meet a rule's space (earlier-index.ts finds them).
import type { Family } from '../config/net';
import { covers, meets, type Region } from './coverage';
import { EarlierIndex, type HullTable, type RuleWas } from './earlier-index';
import { ANY_ZONE, familyBit, NEVER, SOME_ZONES, type RuleSpec } from './rules';
import { mergeIntervals, sportKeyOf, type Interval } from './sets';

/** A source-port piece of a rule (sets.ts SportPiece): its service keys as the region's v. */
export interface RegionPiece {
  v: Interval[];
  sp: Array<[number, number]>;
}

export interface RuleRegions {
  r4: Region | null; // null: matches no packet of the family
  r6: Region | null;
  sz: number; // zone fields as in RuleSpec
  dz: number;
  /** source-port pieces; null: every source port (then r4/r6 are the whole space) */
  pieces: RegionPiece[] | null;
  sportKey: string; // '' without pieces
}

/**
 * One piece of a cover question: a rule's space within a class of source ports no rule of the
 * question tells apart (or, when no rule of it names source ports, the whole space), the
 * earlier rules there, and any rule's region there (null: none).
 */
export interface SportPart {
  R: Region;
  C: Region[];
  ids: number[];
  of: (j: number) => Region | null;
  /** a source port of the class (an example packet's), null: the rules name none */
  sport: number | null;
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
  const one = (z: number) => (z === ANY_ZONE ? all : z === NEVER ? 0n : zones[z] ?? 1n << BigInt(z));
  // several zones (issue 41): the union of their bits, so coverage stays exact
  const zone = (z: number, list: readonly number[] | null | undefined) => (list ? list.reduce((m, i) => m | one(i), 0n) : one(z));
  const fields = new Map<RuleSpec['svc'], Interval[]>();
  const big = (svc: RuleSpec['svc']) => {
    let v = fields.get(svc);
    if (!v) fields.set(svc, (v = svc.map(([a, b]): Interval => [BigInt(a), BigInt(b)])));
    return v;
  };
  const piecesOf = new Map<NonNullable<RuleSpec['sport']>, RegionPiece[]>();
  return (spec) => {
    const zs = zone(spec.sz, spec.szs), zd = zone(spec.dz, spec.dzs);
    const v = big(spec.svc);
    let pieces: RegionPiece[] | null = null;
    if (spec.sport) {
      pieces = piecesOf.get(spec.sport) ?? spec.sport.map((p) => ({ v: big(p.svc), sp: p.sp }));
      piecesOf.set(spec.sport, pieces);
    }
    const region = (f: Family): Region | null => {
      if ((spec.families & familyBit(f)) === 0) return null;
      const s = f === 4 ? spec.src.v4 : spec.src.v6;
      const d = f === 4 ? spec.dst.v4 : spec.dst.v6;
      return zs && zd && s.length && d.length && v.length ? { zs, zd, s, d, v } : null;
    };
    // the earlier-rule index (earlier-index.ts) files a rule of several zones as one of any
    // zone: a filter that finds more candidates, never fewer; coverage is decided on zs/zd
    const index = (z: number) => (z === SOME_ZONES ? ANY_ZONE : z);
    return { r4: region(4), r6: region(6), sz: index(spec.sz), dz: index(spec.dz), pieces, sportKey: sportKeyOf(spec.sport ?? null) };
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

/** A space to make another from: the same table but for the rules at `changed` (positions,
 * ascending, every position past the base's length among them) and its length. */
export interface SpaceBase {
  space: RuleSpace;
  changed: readonly number[];
}

export class RuleSpace {
  /** per family, 6 numbers a rule: hulls of source, destination and service (IPv6 by its top 64 bits) */
  private readonly hulls: Record<Family, Float64Array>;
  private readonly present: Record<Family, Uint8Array>;
  private readonly sz: Int32Array;
  private readonly dz: Int32Array;
  private readonly index: EarlierIndex;

  /**
   * The space of `rules`. With `base` (a space of a table whose rules are these but at
   * `changed`, and past the shorter one's length), its arrays are copied and only those rows
   * written again, and its
   * index changed where they move (EarlierIndex.changed): an edit of one rule at 100,000 costs
   * copies of a few typed arrays, not the regions, hulls and index of every rule. The base
   * stays as it was.
   */
  constructor(readonly rules: readonly RuleRegions[], base?: SpaceBase) {
    const n = rules.length;
    if (base) {
      // rows below both lengths are copied; rows past the base's are new (in no list), rows
      // past this table's are gone (taken out of their lists)
      const b = base.space;
      const nb = b.rules.length, m = Math.min(n, nb);
      const copy = <T extends Float64Array | Uint8Array | Int32Array>(a: T, make: (k: number) => T, per: number): T => {
        const out = make(n * per);
        out.set(a.subarray(0, m * per));
        return out;
      };
      this.hulls = { 4: copy(b.hulls[4], (k) => new Float64Array(k), 6), 6: copy(b.hulls[6], (k) => new Float64Array(k), 6) };
      this.present = { 4: copy(b.present[4], (k) => new Uint8Array(k), 1), 6: copy(b.present[6], (k) => new Uint8Array(k), 1) };
      this.sz = copy(b.sz, (k) => new Int32Array(k), 1);
      this.dz = copy(b.dz, (k) => new Int32Array(k), 1);
      const was: RuleWas[] = [];
      const old = (j: number): RuleWas => (j < nb ? { j, sz: b.sz[j], dz: b.dz[j], present: { 4: b.present[4][j] === 1, 6: b.present[6][j] === 1 } } : { j, sz: 0, dz: 0, present: { 4: false, 6: false } });
      for (const j of base.changed) {
        was.push(old(j));
        this.write(j);
      }
      for (let j = n; j < nb; j++) was.push(old(j));
      this.index = b.index.changed(this.table(), was);
      return;
    }
    this.hulls = { 4: new Float64Array(n * 6), 6: new Float64Array(n * 6) };
    this.present = { 4: new Uint8Array(n), 6: new Uint8Array(n) };
    this.sz = new Int32Array(n);
    this.dz = new Int32Array(n);
    for (let i = 0; i < n; i++) this.write(i);
    this.index = new EarlierIndex(this.table());
  }

  private table(): HullTable {
    return { sz: this.sz, dz: this.dz, present: this.present, hulls: this.hulls };
  }

  /** Rule i's row: zone fields, families and hulls. */
  private write(i: number): void {
    const r = this.rules[i];
    this.sz[i] = r.sz;
    this.dz[i] = r.dz;
    for (const f of [4, 6] as const) {
      const R = regionOf(r, f);
      this.present[f][i] = R ? 1 : 0;
      if (R) writeHull(f, R, this.hulls[f], i * 6);
      else this.hulls[f].fill(0, i * 6, i * 6 + 6);
    }
  }

  /** The hulls of family f, 6 numbers a rule (rules without a space of f: zeros). */
  hullTable(f: Family): Float64Array {
    return this.hulls[f];
  }

  /** Marks the rules after `at` of family f whose zones can meet (sz, dz) and hull meets `x`
   * (EarlierIndex.markLater). */
  markLater(at: number, sz: number, dz: number, f: Family, x: Float64Array, mark: Uint8Array): void {
    this.index.markLater(at, sz, dz, f, x, mark);
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
    // in order, up to the first that holds R (the rules after it are not looked at: issue 44)
    this.index.scan(i, f, (j) => {
      const o = regionOf(this.rules[j], f)!;
      if (!(o.zs & R.zs) || !(o.zd & R.zd) || !use(j)) return true;
      C.push(o);
      ids.push(j);
      // a rule that names source ports holds all of R only for some of them
      return !(!this.rules[j].pieces && this.hullHolds(f, j, i) && covers(o, R));
    });
    return { C, ids };
  }

  /** The pieces active at source port x of rule j, as a bit mask (a rule without pieces: -1). */
  private activeAt(j: number, x: number): number {
    const pieces = this.rules[j].pieces;
    if (!pieces) return -1;
    let mask = 0;
    pieces.forEach((p, k) => {
      if (p.sp.some(([lo, hi]) => lo <= x && x <= hi)) mask |= 1 << (k & 31);
    });
    return mask;
  }

  /** Rule j's region of family f at source port x: its space there (null: none). */
  private restrict(j: number, f: Family, x: number): Region | null {
    const r = this.rules[j];
    const base = regionOf(r, f);
    if (!base || !r.pieces) return base;
    const keys = r.pieces.filter((p) => p.sp.some(([lo, hi]) => lo <= x && x <= hi)).map((p) => p.v);
    if (keys.length === 0) return null;
    if (keys.length === 1) return { ...base, v: keys[0], logs: undefined };
    return { ...base, v: mergeIntervals(keys.flat()), logs: undefined };
  }

  /**
   * Rule i's cover question of family f (candidates as `candidates` finds them) cut by source
   * ports: the source ports the rules of the question name are cut into classes no rule tells
   * apart, and in each class every rule is a product again (its pieces that hold the class).
   * Classes where every rule has the same pieces ask the same question: one part for all.
   * Without source ports anywhere in the question, one part: the question as it was.
   */
  parts(i: number, f: Family, use: (j: number) => boolean = () => true): SportPart[] {
    const R = regionOf(this.rules[i], f)!;
    const { C, ids } = this.candidates(i, f, use);
    const named = [i, ...ids].filter((j) => this.rules[j].pieces);
    if (named.length === 0) return [{ R, C, ids, of: (j) => regionOf(this.rules[j], f), sport: null }];
    const cuts = new Set<number>([0]);
    for (const j of named) {
      for (const p of this.rules[j].pieces!) {
        for (const [lo, hi] of p.sp) {
          cuts.add(lo);
          if (hi < 65535) cuts.add(hi + 1);
        }
      }
    }
    const starts = [...cuts].sort((a, b) => a - b);
    const seen = new Set<string>();
    const out: SportPart[] = [];
    starts.forEach((x, k) => {
      const sig = named.map((j) => this.activeAt(j, x)).join(',');
      if (seen.has(sig)) return;
      seen.add(sig);
      const Rx = this.restrict(i, f, x);
      if (!Rx) return;
      const Cx: Region[] = [];
      const idsx: number[] = [];
      ids.forEach((j) => {
        const o = this.restrict(j, f, x);
        if (o && meets(o.v, Rx.v)) {
          Cx.push(o);
          idsx.push(j);
        }
      });
      // a class starting at 0 offers 1 when it can (no service names source port 0)
      const end = k + 1 < starts.length ? starts[k + 1] - 1 : 65535;
      const of = (j: number) => this.restrict(j, f, x);
      out.push({ R: Rx, C: Cx, ids: idsx, of, sport: x === 0 && end > 0 ? 1 : x });
    });
    return out;
  }
}
