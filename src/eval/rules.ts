// An ordered rule table (policies or NAT rules) as numbers, for one address family: zones
// as small ints, and each field as a run of entries in a shared pool. This is the input of
// the decision-tree builder (tree.ts) and of the linear baseline (linear.ts); the pools
// (addrWords, addrMask, svcLo, svcHi) are also what the compiled leaves check against.
import type { Family } from '../config/net';
import { GrowI32 } from './grow';
import { eachPrefix32, FIELD_BITS, intervalPrefixes, SVC_BITS, type AddrSet, type Interval, type SportPiece } from './sets';

/** Zone field of a rule: a zone index 1..Z, ANY_ZONE, or NEVER (a zone that does not exist). */
export const ANY_ZONE = -1;
export const NEVER = -2;
/** Zone field of a rule over several zones (issue 41): the zones are its szs / dzs. */
export const SOME_ZONES = -3;

export interface RuleSpec {
  sz: number;
  dz: number;
  /** with sz SOME_ZONES, the zones (2+ indices 1..Z, ascending); else absent or null */
  szs?: readonly number[] | null;
  dzs?: readonly number[] | null;
  src: AddrSet;
  dst: AddrSet;
  svc: Array<[number, number]>; // service key intervals (sets.ts), merged
  /** source-port pieces (sets.ts): absent or null, every source port; else `svc` is their union */
  sport?: SportPiece[] | null;
  /** pool sharing: equal keys mean equal sets */
  srcKey: string;
  dstKey: string;
  svcKey: string;
  families: number; // bit 1: IPv4, bit 2: IPv6
}

export const familyBit = (f: Family) => (f === 4 ? 1 : 2);

/** a column or pool of a table: it starts small (a NAT table has a few rows) */
const grow = () => new GrowI32(64);

export interface FamilyTable {
  family: Family;
  nw: number; // 32-bit words per address: 1 or 4
  count: number;
  rule: Int32Array; // index in the ordered table, ascending
  sz: Int32Array;
  dz: Int32Array;
  srcOff: Int32Array; srcCnt: Int32Array;
  dstOff: Int32Array; dstCnt: Int32Array;
  svcOff: Int32Array; svcCnt: Int32Array; // into svcLo/svcHi
  pfxOff: Int32Array; pfxCnt: Int32Array; // into the service prefix pool
  // address entries: disjoint prefixes in address order; a set's prefixes are one run
  addrLen: Int32Array;
  addrWords: Int32Array; // nw words each, big-endian
  addrMask: Int32Array;
  // service intervals (what a leaf checks) and their prefixes (what the builder cuts):
  // a prefix is a 32-bit value whose top 8 bits are zero, so lengths run 8..32
  svcLo: Int32Array;
  svcHi: Int32Array;
  pfxLen: Int32Array;
  pfxWord: Int32Array;
  pfxIv: Int32Array; // the interval a prefix belongs to
  // source ports: per row 0 (every source port) or 1 + the offset of its pieces in spData,
  // [pieces, (svcCount, (lo, hi) * svcCount, spCount, (lo, hi) * spCount) * pieces]
  spAt: Int32Array;
  spData: Int32Array;
  /** the pools' runs by key, for an update of the table (updateFamilyTable) */
  pools?: TablePools;
}

/** Writes a rule's pieces into `out` (the spData layout above); returns 1 + their offset. */
function pushPieces(out: GrowI32, pieces: readonly SportPiece[]): number {
  const at = out.length;
  out.push(pieces.length);
  for (const p of pieces) {
    for (const l of [p.svc, p.sp]) {
      out.push(l.length);
      for (const [lo, hi] of l) {
        out.push(lo);
        out.push(hi);
      }
    }
  }
  return at + 1;
}

export function wordsOf(value: bigint, nw: number): number[] {
  const out: number[] = [];
  for (let i = nw - 1; i >= 0; i--) out.push(Number((value >> BigInt(32 * i)) & 0xffffffffn) | 0);
  return out;
}

export function maskWord(len: number, wordIndex: number): number {
  const bits = Math.max(0, Math.min(32, len - 32 * wordIndex));
  return bits === 0 ? 0 : (-1 << (32 - bits)) | 0;
}

/**
 * Service sets split into prefixes, by svcKey (equal keys, equal sets): per prefix its length
 * (8..32), value and interval (index within the set). A compile splits each set once for
 * its four tables (policies and NAT, both families) by passing one to every buildFamilyTable.
 */
export type ServiceSplits = Map<string, Int32Array>;

function splitOf(splits: ServiceSplits, key: string, set: Array<[number, number]>, out: GrowI32): Int32Array {
  let split = splits.get(key);
  if (!split) {
    out.length = 0; // scratch: the split is copied out of it
    set.forEach(([lo, hi], iv) => eachPrefix32(lo, hi, SVC_BITS, (value, len) => {
      out.push(len + (32 - SVC_BITS));
      out.push(value);
      out.push(iv);
    }));
    splits.set(key, (split = out.done()));
  }
  return split;
}

/**
 * A table's pools (address prefixes, service intervals and their prefixes, source-port
 * pieces) and which run holds which set: by srcKey / dstKey / svcKey (one family per table:
 * the key alone names the set within a document) and the set it was made of. An update
 * (updateFamilyTable) starts from the previous table's pools and appends what is new: a key
 * whose set is another object gets a new run, its old one is garbage.
 */
export class TablePools {
  addrLen = grow(); addrWords = grow(); addrMask = grow();
  svcLo = grow(); svcHi = grow(); pfxLen = grow(); pfxWord = grow(); pfxIv = grow();
  spData = grow();
  readonly addrRuns = new Map<string, { set: Interval[]; run: [number, number] }>();
  readonly svcRuns = new Map<string, { set: Array<[number, number]>; run: [number, number, number, number] }>();
  readonly spRuns = new Map<SportPiece[], number>();
  /** words of runs that no key names any more */
  garbage = 0;
  private readonly scratch = grow();

  constructor(private readonly nw: number, private readonly bits: number, private readonly splits: ServiceSplits, private readonly checkSets: boolean) {
    this.spData.push(0); // offset 0 is never a rule's: spAt 0 means none
  }

  /** The pools of table t (its own, copied, and its maps), to append to; checkSets: a key
   * whose set is not the object it was made of gets a new run. */
  static from(t: FamilyTable, splits: ServiceSplits): TablePools | null {
    const was = t.pools;
    if (!was) return null;
    const p = new TablePools(t.nw, FIELD_BITS[t.family], splits, true);
    const fill = (g: GrowI32, a: Int32Array) => {
      g.length = 0;
      const at = g.reserve(a.length); // may replace g.buf
      g.buf.set(a, at);
    };
    fill(p.addrLen, t.addrLen); fill(p.addrWords, t.addrWords); fill(p.addrMask, t.addrMask);
    fill(p.svcLo, t.svcLo); fill(p.svcHi, t.svcHi); fill(p.pfxLen, t.pfxLen); fill(p.pfxWord, t.pfxWord); fill(p.pfxIv, t.pfxIv);
    fill(p.spData, t.spData);
    for (const [k, v] of was.addrRuns) p.addrRuns.set(k, v);
    for (const [k, v] of was.svcRuns) p.svcRuns.set(k, v);
    for (const [k, v] of was.spRuns) p.spRuns.set(k, v);
    p.garbage = was.garbage;
    return p;
  }

  addrRun(key: string, set: Interval[]): [number, number] {
    const known = this.addrRuns.get(key);
    if (known && (!this.checkSets || known.set === set)) return known.run;
    if (known) this.garbage += known.run[1] * (this.nw + 1);
    const { addrLen, addrWords, addrMask, nw, bits } = this;
    const start = addrLen.length;
    for (const [lo, hi] of set) {
      if (nw === 1) {
        eachPrefix32(Number(lo), Number(hi), bits, (value, len) => {
          addrLen.push(len);
          addrWords.push(value);
          addrMask.push(maskWord(len, 0));
        });
        continue;
      }
      for (const p of intervalPrefixes(lo, hi, bits)) {
        addrLen.push(p.len);
        const w = wordsOf(p.value, nw);
        for (let i = 0; i < nw; i++) {
          addrWords.push(w[i]);
          addrMask.push(maskWord(p.len, i));
        }
      }
    }
    const run: [number, number] = [start, addrLen.length - start];
    this.addrRuns.set(key, { set, run });
    return run;
  }

  svcRun(key: string, set: Array<[number, number]>): [number, number, number, number] {
    const known = this.svcRuns.get(key);
    if (known && (!this.checkSets || known.set === set)) return known.run;
    if (known) this.garbage += 2 * known.run[1] + 3 * known.run[3];
    const ivStart = this.svcLo.length;
    const pStart = this.pfxLen.length;
    for (const [lo, hi] of set) {
      this.svcLo.push(lo);
      this.svcHi.push(hi);
    }
    const split = splitOf(this.splits, key, set, this.scratch);
    for (let k = 0; k < split.length; k += 3) {
      this.pfxLen.push(split[k]);
      this.pfxWord.push(split[k + 1]);
      this.pfxIv.push(ivStart + split[k + 2]);
    }
    const run: [number, number, number, number] = [ivStart, this.svcLo.length - ivStart, pStart, this.pfxLen.length - pStart];
    this.svcRuns.set(key, { set, run });
    return run;
  }

  sport(pieces: SportPiece[]): number {
    let sp = this.spRuns.get(pieces);
    if (sp === undefined) this.spRuns.set(pieces, (sp = pushPieces(this.spData, pieces)));
    return sp;
  }

  /** words in the pools */
  size(): number {
    return this.addrWords.length + this.addrLen.length + 2 * this.svcLo.length + 3 * this.pfxLen.length;
  }
}

/** The columns of a table under construction, one slot per spec at most. */
const COLUMNS = ['spAt', 'rule', 'sz', 'dz', 'srcOff', 'srcCnt', 'dstOff', 'dstCnt', 'svcOff', 'svcCnt', 'pfxOff', 'pfxCnt'] as const;
type Columns = Record<(typeof COLUMNS)[number], Int32Array>;

/** Does spec r go into the table of family bit fbit (`fam` its field name)? */
function inTable(r: RuleSpec, fbit: number, fam: 'v4' | 'v6'): boolean {
  return (r.families & fbit) !== 0 && r.sz !== NEVER && r.dz !== NEVER && r.src[fam].length > 0 && r.dst[fam].length > 0 && r.svc.length > 0;
}

/** Rows of spec r: one per pair of its zones (issue 41); 1 for a rule of one zone or any. */
const rowsOf = (r: RuleSpec) => (r.szs ? r.szs.length : 1) * (r.dzs ? r.dzs.length : 1);

/** Rows a table of `specs` can need (one a spec but for rules over several zones). */
function rowBound(specs: readonly RuleSpec[]): number {
  let n = 0;
  for (const r of specs) n += rowsOf(r);
  return n;
}

/**
 * The rows of spec `r` (index `index`) from row `row` on, their runs from the pools; returns
 * the next free row. A rule over several zones is a row per zone pair, all of one rule index
 * and one set of runs: each row is in one zone group of the classifier, as any rule is, and a
 * zone pair holds at most one row of a rule, so first-match order and the trees are as for
 * separate rules of the same position.
 */
function putRows(c: Columns, row: number, r: RuleSpec, index: number, pools: TablePools, fam: 'v4' | 'v6'): number {
  const s = pools.addrRun(r.srcKey, r.src[fam]);
  const d = pools.addrRun(r.dstKey, r.dst[fam]);
  const v = pools.svcRun(r.svcKey, r.svc);
  const sp = r.sport ? pools.sport(r.sport) : 0;
  const put = (sz: number, dz: number) => {
    c.rule[row] = index;
    c.spAt[row] = sp;
    c.sz[row] = sz;
    c.dz[row] = dz;
    c.srcOff[row] = s[0]; c.srcCnt[row] = s[1];
    c.dstOff[row] = d[0]; c.dstCnt[row] = d[1];
    c.svcOff[row] = v[0]; c.svcCnt[row] = v[1];
    c.pfxOff[row] = v[2]; c.pfxCnt[row] = v[3];
    row++;
  };
  if (!r.szs && !r.dzs) put(r.sz, r.dz);
  else for (const sz of r.szs ?? [r.sz]) for (const dz of r.dzs ?? [r.dz]) put(sz, dz);
  return row;
}

function tableOf(family: Family, c: Columns, count: number, pools: TablePools): FamilyTable {
  const col = (a: Int32Array) => a.slice(0, count);
  return {
    family,
    nw: family === 4 ? 1 : 4,
    count,
    rule: col(c.rule), sz: col(c.sz), dz: col(c.dz),
    srcOff: col(c.srcOff), srcCnt: col(c.srcCnt),
    dstOff: col(c.dstOff), dstCnt: col(c.dstCnt),
    svcOff: col(c.svcOff), svcCnt: col(c.svcCnt),
    pfxOff: col(c.pfxOff), pfxCnt: col(c.pfxCnt),
    addrLen: pools.addrLen.done(), addrWords: pools.addrWords.done(), addrMask: pools.addrMask.done(),
    svcLo: pools.svcLo.done(), svcHi: pools.svcHi.done(),
    pfxLen: pools.pfxLen.done(), pfxWord: pools.pfxWord.done(), pfxIv: pools.pfxIv.done(),
    spAt: col(c.spAt), spData: pools.spData.done(),
    pools,
  };
}

const columns = (n: number): Columns => Object.fromEntries(COLUMNS.map((k) => [k, new Int32Array(n)])) as Columns;

/** Converts the rules that can match packets of `family` into a FamilyTable. */
export function buildFamilyTable(specs: readonly RuleSpec[], family: Family, splits: ServiceSplits = new Map()): FamilyTable {
  const pools = new TablePools(family === 4 ? 1 : 4, FIELD_BITS[family], splits, false);
  const c = columns(rowBound(specs));
  const fbit = familyBit(family);
  const fam = family === 4 ? 'v4' : 'v6';
  let count = 0;
  specs.forEach((r, index) => {
    if (inTable(r, fbit, fam)) count = putRows(c, count, r, index, pools, fam);
  });
  return tableOf(family, c, count, pools);
}

/** Row o of table `from` as row `row` of the columns, for the rule at `index` (column by
 * column by name: a loop over the names was a keyed access each, 10x slower). */
function copyRow(c: Columns, row: number, from: FamilyTable, o: number, index: number): void {
  c.rule[row] = index;
  c.spAt[row] = from.spAt[o];
  c.sz[row] = from.sz[o];
  c.dz[row] = from.dz[o];
  c.srcOff[row] = from.srcOff[o]; c.srcCnt[row] = from.srcCnt[o];
  c.dstOff[row] = from.dstOff[o]; c.dstCnt[row] = from.dstCnt[o];
  c.svcOff[row] = from.svcOff[o]; c.svcCnt[row] = from.svcCnt[o];
  c.pfxOff[row] = from.pfxOff[o]; c.pfxCnt[row] = from.pfxCnt[o];
}

/**
 * The table of `specs` from the previous one (`prev`, made from `prevSpecs`): a spec that is
 * the same object as one of prevSpecs keeps its row's runs (copied; its position may differ),
 * and only the others go through the pools, which are the previous pools plus what is new.
 * A full build (buildFamilyTable) when the previous table has no pools to append to or its
 * pools are half garbage (sets replaced over many updates). Equal to the full build as a
 * table of rules (the same sets per row); the pools' order differs.
 */
export function updateFamilyTable(specs: readonly RuleSpec[], family: Family, splits: ServiceSplits, prev: FamilyTable, prevSpecs: readonly RuleSpec[]): FamilyTable {
  const pools = prev.family === family ? TablePools.from(prev, splits) : null;
  if (!pools || 2 * pools.garbage > pools.size()) return buildFamilyTable(specs, family, splits);
  // each previous rule's first row (a rule over several zones has consecutive rows)
  const rowOf = new Int32Array(prevSpecs.length).fill(-1);
  for (let r = prev.count - 1; r >= 0; r--) rowOf[prev.rule[r]] = r;
  const c = columns(rowBound(specs));
  const fbit = familyBit(family);
  const fam = family === 4 ? 'v4' : 'v6';
  let count = 0;
  // specs are found in the previous list by position, past an insertion, deletion or move by
  // a map of it made then (policySpecs does the same)
  let byObj: Map<RuleSpec, number> | null = null;
  let j = 0;
  specs.forEach((r, index) => {
    if (prevSpecs[j] !== r) {
      if (!byObj && prevSpecs[j + 1] === specs[index + 1] && index + 1 < specs.length) j++;
      else j = (byObj ??= new Map(prevSpecs.map((x, k) => [x, k]))).get(r) ?? -1;
      if (j < 0 || prevSpecs[j] !== r) {
        j = Math.max(j, 0);
        if (inTable(r, fbit, fam)) count = putRows(c, count, r, index, pools, fam);
        return;
      }
    }
    let o = rowOf[j++];
    if (o < 0) return; // the same spec, and it was not in the table
    const was = prev.rule[o];
    do copyRow(c, count++, prev, o++, index);
    while (o < prev.count && prev.rule[o] === was);
  });
  return tableOf(family, c, count, pools);
}
