// First-match classification of an ordered rule table (policies or NAT rules).
//
// Zone pair first: a rule's zone fields put it in exactly one group, (src, dst), (src, any),
// (any, dst) or (any, any). A packet with zones (s, d) can only match rules of the four groups
// (s, d), (s, any), (any, d), (any, any) (the ones that exist; a zone "none" only meets `any`),
// and since every rule is in one group, the first match of the whole table is the lowest rule
// index among the four groups' first matches: exact first-match order without copying any-zone
// rules into every pair. Each group is a small forest of cutting trees (tree.ts), split by
// which address field is specific (as CutSplit does), so that wildcards in one field are not
// copied by cuts of that field. Trees are searched in order of their first rule, and a search
// stops as soon as the best match so far precedes everything left: no allocation per lookup.
// Rules with many prefixes on a side (address groups) are not in the trees but in the set
// stage (wide.ts), searched after the forests up to their best match: every rule is in one of
// the two, so the lower of both answers is the table's first match.
import type { Family } from '../config/net';
import { ANY_ZONE, type FamilyTable } from './rules';
import { DEFAULT_TREE_PARAMS, TreeBuilder, type TreeParams } from './tree';
import { Layout, hashSlot } from './tree-layout';
import { lpm4, lpm6, type LpmData } from './lpm';
import { TreeSource, type TableReuse } from './table-reuse';
import { buildWide, isWide, NO_RULE, WIDE_ENTRY, WIDE_KEYS, type WideData } from './wide';

/** A family's compiled table; all Int32Array, so it packs into one transferable buffer. */
export interface ClassifierData extends WideData {
  hdr: Int32Array; // [zones Z, dense pair table 1/0, forest of (any, any) or -1, rules]
  pairKeys: Int32Array; // sparse: sorted s * (Z + 1) + d
  pairForest: Int32Array; // dense: (Z + 1)^2 forest ids; sparse: forest of pairKeys[i]
  srcForest: Int32Array; // Z + 1
  dstForest: Int32Array;
  // one array for every forest, node and leaf (tree.ts): a lookup reads one typed array
  // besides the query. A forest at offset f is [trees, (root, first rule of the tree) * trees];
  // the forest ids above are such offsets
  mem: Int32Array;
  addrWords: Int32Array;
  addrMask: Int32Array;
  svcLo: Int32Array;
  svcHi: Int32Array;
  // source ports: per rule index (the ordered table's) 0, 1 + the offset of its pieces in
  // spData (rules.ts), or, for a rule of one piece, ~ the offset of that piece's source-port
  // run (its service keys are the rule's, which the entry has checked). The trees cut the three
  // other fields and take the pieces' union as the service; a leaf entry that matches there is
  // checked against its pieces.
  spHead: Int32Array;
  spData: Int32Array;
}

export const CLASSIFIER_KEYS = ['hdr', 'pairKeys', 'pairForest', 'srcForest', 'dstForest', 'mem', 'addrWords', 'addrMask', 'svcLo', 'svcHi', 'spHead', 'spData', ...WIDE_KEYS] as const;

export interface BuildParams extends TreeParams {
  /** an address field is "specific" when all its prefixes are at least this long */
  smallV4: number;
  smallV6: number;
  /** a rule with more prefixes than this on a side goes to the set stage (wide.ts), not the trees */
  wide: number;
}

// smallV4 12 rather than 16: ipc1_10k's /12-/15 sources go to the source tree, out of the tree of
// rules specific in neither address, which 54% of lookups of its benchmark packets had to scan
// (1.2x lookups there, 1.05-1.1x on ipc1_1k, the other sets within the noise)
// smallV6 57 rather than 48: a /56 (a site's assignment, RFC 6177) is not specific. Address
// groups of the generated configuration made 5,700 IPv6 rules of one /56 a side; in the trees
// of /64 and /128 sources their IPv6 table took 2.2 s to build (11.8 MB), out of them 0.8 s
// (8.2 MB); zones_20k's lookups within the noise (2.42-2.69 / 2.42-2.80 million/s, three runs
// each), 126 bytes/rule, not 157.
// wide 8: the generated configurations' addresses hold 1-6 prefixes and stay in the trees (the
// ClassBench sets have one); address groups of 10 addresses hold 20-200 (docs/performance.md)
export const DEFAULT_BUILD_PARAMS: BuildParams = { ...DEFAULT_TREE_PARAMS, smallV4: 12, smallV6: 57, wide: 8 };

const DENSE_LIMIT = 1 << 18;

/** `firstOnly`: see TreeBuilder; false for a table searched past its first match (NAT).
 * `reuse`: trees of the previous build whose rules did not change are copied (table-reuse.ts). */
export function buildClassifier(t: FamilyTable, zones: number, params: BuildParams = DEFAULT_BUILD_PARAMS, firstOnly = true, reuse?: TableReuse): ClassifierData {
  const Z1 = zones + 1;
  const groups = new Map<number, number[]>();
  const wideRows: number[] = [];
  for (let r = 0; r < t.count; r++) {
    if (isWide(t, r, params.wide)) {
      wideRows.push(r);
      continue;
    }
    const a = t.sz[r] === ANY_ZONE ? 0 : t.sz[r];
    const b = t.dz[r] === ANY_ZONE ? 0 : t.dz[r];
    const key = a * Z1 + b;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(r);
  }
  const small = t.family === 4 ? params.smallV4 : params.smallV6;
  const isSmall = (off: number, cnt: number) => {
    for (let j = off; j < off + cnt; j++) if (t.addrLen[j] < small) return false;
    return true;
  };
  // the memory valve scales with the table: at most 64 leaf entries per rule (the ClassBench
  // and generated sets need 1.6-3.3); past it, nodes become (longer) leaves
  const maxEntries = Math.min(params.maxEntries, Math.max(1 << 16, 64 * t.count));
  const tb = new TreeBuilder(t, { ...params, maxEntries }, firstOnly);
  const source = new TreeSource(t, tb, maxEntries, JSON.stringify([params, firstOnly]), reuse);
  const forests: number[][] = []; // per forest, (root, first rule) of each tree
  const keys = [...groups.keys()].sort((x, y) => x - y);
  const forestOf = new Map<number, number>();
  for (const key of keys) {
    const rows = groups.get(key)!;
    const subsets: number[][] = [[], [], []];
    for (const r of rows) {
      if (isSmall(t.srcOff[r], t.srcCnt[r])) subsets[0].push(r);
      else if (isSmall(t.dstOff[r], t.dstCnt[r])) subsets[1].push(r);
      else subsets[2].push(r);
    }
    const a = Math.floor(key / Z1), b = key % Z1;
    // (root, first rule) of each tree, in order of their first rule
    const trees = [0, 1, 2].filter((part) => subsets[part].length > 0).flatMap((part) => source.trees(a, b, part, subsets[part]));
    trees.sort((x, y) => x[1] - y[1]);
    forestOf.set(key, forests.length);
    forests.push(trees.flat());
  }
  // the forests after the trees, their ids become offsets
  const fOff = forests.map((f) => {
    const at = tb.mem.reserve(1 + f.length);
    tb.mem.buf[at] = f.length / 2;
    tb.mem.buf.set(f, at + 1);
    return at;
  });
  const srcForest = new Int32Array(Z1).fill(-1);
  const dstForest = new Int32Array(Z1).fill(-1);
  const dense = Z1 * Z1 <= DENSE_LIMIT;
  const pairKeys: number[] = [];
  const pairList: number[] = [];
  const pairForest = dense ? new Int32Array(Z1 * Z1).fill(-1) : null;
  let all = -1;
  for (const [key, id] of forestOf) {
    const f = fOff[id];
    const a = Math.floor(key / Z1);
    const b = key % Z1;
    if (a > 0 && b > 0) {
      if (pairForest) pairForest[key] = f;
      else {
        pairKeys.push(key);
        pairList.push(f);
      }
    } else if (a > 0) srcForest[a] = f;
    else if (b > 0) dstForest[b] = f;
    else all = f;
  }
  let rules = 0;
  for (let r = 0; r < t.count; r++) if (t.spAt[r] !== 0) rules = t.rule[r] + 1;
  const spHead = new Int32Array(rules);
  for (let r = 0; r < t.count; r++) {
    const at = t.spAt[r]; // 1 + offset of [pieces, svcCount, svc..., spCount, sp...]
    spHead[t.rule[r]] = at !== 0 && t.spData[at - 1] === 1 ? ~(at + 1 + 2 * t.spData[at]) : at;
  }
  const mem = tb.mem.done();
  source.finish(mem);
  return {
    hdr: Int32Array.of(zones, dense ? 1 : 0, all, t.count),
    pairKeys: Int32Array.from(pairKeys),
    pairForest: pairForest ?? Int32Array.from(pairList),
    srcForest,
    dstForest,
    mem,
    addrWords: t.addrWords,
    addrMask: t.addrMask,
    svcLo: t.svcLo,
    svcHi: t.svcHi,
    spHead,
    spData: t.spData,
    ...buildWide(t, wideRows),
  };
}

export function classifierBytes(d: ClassifierData): number {
  let n = 0;
  for (const k of CLASSIFIER_KEYS) n += d[k].byteLength;
  return n;
}

const NONE = 0x7fffffff;

/** Does (service key v, source port sp) lie in one of the pieces at `at` of spData? */
export function inPieces(data: Int32Array, at: number, v: number, sp: number): boolean {
  let o = at + 1;
  for (let k = data[at]; k > 0; k--) {
    let svcIn = false;
    for (let e = o + 1 + 2 * data[o], a = o + 1; a < e; a += 2) if (v >= data[a] && v <= data[a + 1]) svcIn = true;
    o += 1 + 2 * data[o];
    let spIn = false;
    for (let e = o + 1 + 2 * data[o], a = o + 1; a < e; a += 2) if (sp >= data[a] && sp <= data[a + 1]) spIn = true;
    o += 1 + 2 * data[o];
    if (svcIn && spIn) return true;
  }
  return false;
}

/**
 * The lookup side of one family. Fill `q` (src words q[0..3], dst words q[4..7], service key
 * q[8], source port q[9]; IPv4 uses q[0] and q[4]) and call first(). Not re-entrant: one per
 * thread.
 */
export class FamilyClassifier {
  readonly q = new Int32Array(10);
  /** no rules: first() is always -1 (the pipeline skips filling q) */
  readonly empty: boolean;
  private readonly Z1: number;
  private readonly dense: boolean;
  private readonly all: number;
  private readonly pairKeys: Int32Array;
  private readonly pairForest: Int32Array;
  private readonly srcForest: Int32Array;
  private readonly dstForest: Int32Array;
  private readonly mem: Int32Array;
  private readonly aw: Int32Array;
  private readonly am: Int32Array;
  private readonly lo: Int32Array;
  private readonly hi: Int32Array;
  private readonly v6: boolean;
  private readonly spHead: Int32Array;
  private readonly spData: Int32Array;
  // the set stage (wide.ts)
  private readonly wSetCount: number;
  private readonly wFirst: number; // its lowest rule, NO_RULE when it has none
  private readonly wLpm: LpmData;
  private readonly wSets: Int32Array;
  private readonly wHead: Int32Array;
  private readonly wRules: Int32Array;
  /** per set id, the lookup (stamp) whose source / destination it holds */
  private readonly srcMark: Int32Array;
  private readonly dstMark: Int32Array;
  private stamp = 0;

  constructor(d: ClassifierData, family: Family) {
    this.spHead = d.spHead;
    this.spData = d.spData;
    this.Z1 = d.hdr[0] + 1;
    this.dense = d.hdr[1] === 1;
    this.all = d.hdr[2];
    this.pairKeys = d.pairKeys;
    this.pairForest = d.pairForest;
    this.srcForest = d.srcForest;
    this.dstForest = d.dstForest;
    this.mem = d.mem;
    this.aw = d.addrWords;
    this.am = d.addrMask;
    this.lo = d.svcLo;
    this.hi = d.svcHi;
    this.v6 = family === 6;
    this.empty = d.hdr[3] === 0;
    this.wSetCount = d.wHdr[0];
    this.wFirst = d.wHdr[1] > 0 ? d.wHdr[2] : NO_RULE;
    this.wLpm = { starts: d.wStarts, answers: d.wClass };
    this.wSets = d.wSets;
    this.wHead = d.wHead;
    this.wRules = d.wRules;
    this.srcMark = new Int32Array(this.wSetCount);
    this.dstMark = new Int32Array(this.wSetCount);
  }

  /** The lowest rule index >= min that matches q with zones sz, dz (0: none), or -1.
   * min > 0 needs a table built with firstOnly false. */
  first(sz: number, dz: number, min: number): number {
    let best = NONE;
    if (sz > 0) {
      if (dz > 0) {
        const f = this.pair(sz, dz);
        if (f >= 0) best = this.forest(f, min, best);
      }
      const f = this.srcForest[sz];
      if (f >= 0) best = this.forest(f, min, best);
    }
    if (dz > 0) {
      const f = this.dstForest[dz];
      if (f >= 0) best = this.forest(f, min, best);
    }
    if (this.all >= 0) best = this.forest(this.all, min, best);
    if (this.wFirst < best) best = this.wide(sz, dz, min, best);
    return best === NONE ? -1 : best;
  }

  /** The set stage's first match below best (wide.ts): the sets holding the packet's source
   * and destination are marked, then the rules listed under them read in order. */
  private wide(sz: number, dz: number, min: number, best: number): number {
    const q = this.q;
    const cs = this.v6 ? lpm6(this.wLpm, q, 0) : lpm4(this.wLpm, q[0]);
    if (cs < 0) return best;
    const cd = this.v6 ? lpm6(this.wLpm, q, 4) : lpm4(this.wLpm, q[4]);
    if (cd < 0) return best;
    if (this.stamp === 0x7fffffff) {
      this.srcMark.fill(0);
      this.dstMark.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    const S = this.wSets;
    for (let a = cs + 1, e = a + S[cs]; a < e; a++) this.srcMark[S[a]] = stamp;
    for (let a = cd + 1, e = a + S[cd]; a < e; a++) this.dstMark[S[a]] = stamp;
    best = this.wideLists(cs, 0, this.dstMark, sz, dz, min, best);
    return this.wideLists(cd, this.wSetCount, this.srcMark, sz, dz, min, best);
  }

  /** The rules listed under the sets of list `c` (by their source side, base 0, or their
   * destination side, base NS) whose other side's set is marked in `other`: the first below best. */
  private wideLists(c: number, base: number, other: Int32Array, sz: number, dz: number, min: number, best: number): number {
    const S = this.wSets, H = this.wHead, R = this.wRules, v = this.q[8], stamp = this.stamp;
    for (let a = c + 1, e = a + S[c]; a < e; a++) {
      const s = S[a] + base;
      for (let x = H[s] * WIDE_ENTRY, xe = H[s + 1] * WIDE_ENTRY; x < xe; x += WIDE_ENTRY) {
        const rule = R[x];
        if (rule >= best) break;
        if (rule < min || other[R[x + 1]] !== stamp) continue;
        // a rule's zone 0 is any; a packet's zone 0 (none) meets only any
        const rs = R[x + 2], rd = R[x + 3];
        if ((rs !== 0 && rs !== sz) || (rd !== 0 && rd !== dz)) continue;
        if (!this.inSvc(v, R[x + 4], R[x + 5]) || !this.sportHolds(rule)) continue;
        best = rule;
        break;
      }
    }
    return best;
  }

  private pair(sz: number, dz: number): number {
    const key = sz * this.Z1 + dz;
    if (this.dense) return this.pairForest[key];
    const keys = this.pairKeys;
    let lo = 0, hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const k = keys[mid];
      if (k === key) return this.pairForest[mid];
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Forest f's first match below best: its trees in order of their first rule, each walked
   * to a leaf and scanned (IPv4 here in one loop with no call on the common path). */
  private forest(f: number, min: number, best: number): number {
    const m = this.mem;
    if (this.v6) {
      for (let t = f + 1, end = f + 1 + 2 * m[f]; t < end && m[t + 1] < best; t += 2) best = this.tree6(m[t], min, best);
      return best;
    }
    const q = this.q;
    const s = q[0], d = q[4], v = q[8];
    trees: for (let t = f + 1, end = f + 1 + 2 * m[f]; t < end && m[t + 1] < best; t += 2) {
      let ref = m[t];
      while (ref >= 0) {
        const h = m[ref];
        // an IPv4 node reads word 0, 4 or 8: chosen among registers, not loaded from q
        const x = ((h & 8) !== 0 ? v : (h & 4) !== 0 ? d : s) >>> ((h >>> 4) & 31);
        if (h >= 0) ref = m[ref + 1 + (x & (h >>> 9))];
        else {
          // hashSlot (tree.ts) written out: V8 inlines a call within its own budgets, and
          // where it did not (after other tables' lookups), acl1_1k ran at 0.8x
          const k = x & m[ref + 1], hs = m[ref + 2], def = m[ref + 3];
          let sl = (Math.imul(k, Layout.HashMul) >>> hs) | 0;
          while (m[ref + 4 + 2 * sl] !== k && m[ref + 5 + 2 * sl] !== def) sl = (sl + 1) & ((-1 >>> hs) | 0);
          ref = m[ref + 5 + 2 * sl];
        }
      }
      const o = ~ref;
      for (let o1 = o + 1, e = o1 + m[o] * Layout.LeafStride4; o1 < e; o1 += Layout.LeafStride4) {
        const w = m[o1];
        if (w >= 0) {
          // the values inline (tree.ts): one test of the leaf's own words; a prefix holds when
          // the words share at least its length of leading bits (both differences >= 0)
          const rule = w >>> Layout.RuleShift;
          if (rule >= best) continue trees;
          if (((Math.clz32(s ^ m[o1 + 1]) - ((w >>> 6) & 63)) | (Math.clz32(d ^ m[o1 + 2]) - (w & 63))) >= 0 && v >= m[o1 + 3] && v <= m[o1 + 4] && rule >= min && this.sportHolds(rule)) {
            best = rule;
            continue trees;
          }
        } else {
          if (~w >= best) continue trees;
          if (~w >= min && this.runs4(m[o1 + 1], s, d, v) && this.sportHolds(~w)) {
            best = ~w;
            continue trees;
          }
        }
      }
    }
    return best;
  }

  /** Does rule `rule`, matched in the three other fields, take the query's source port (a
   * rule without pieces takes every one)? Asked only of an entry that matched: most rules
   * have no pieces, and spHead ends at the last rule that has some. */
  private sportHolds(rule: number): boolean {
    const h = rule < this.spHead.length ? this.spHead[rule] : 0;
    if (h === 0) return true;
    const d = this.spData;
    if (h > 0) return inPieces(d, h - 1, this.q[8], this.q[9]);
    // one piece (every ClassBench rule that has one): its source-port run alone
    const sp = this.q[9];
    for (let a = ~h + 1, e = a + 2 * d[~h]; a < e; a += 2) if (sp >= d[a] && sp <= d[a + 1]) return true;
    return false;
  }

  /** The runs into the pools at `rec` (an entry of the slow form): do they match? */
  private runs4(rec: number, s: number, d: number, v: number): boolean {
    const L = this.mem;
    return (L[rec + 1] === 0 || this.in4(s, L[rec], L[rec + 1])) && (L[rec + 3] === 0 || this.in4(d, L[rec + 2], L[rec + 3])) && (L[rec + 5] === 0 || this.inSvc(v, L[rec + 4], L[rec + 5]));
  }

  private in4(x: number, off: number, cnt: number): boolean {
    const aw = this.aw, am = this.am;
    for (let a = off, e = off + cnt; a < e; a++) if (((x ^ aw[a]) & am[a]) === 0) return true;
    return false;
  }

  private inSvc(v: number, off: number, cnt: number): boolean {
    const lo = this.lo, hi = this.hi;
    for (let a = off, e = off + cnt; a < e; a++) if (v >= lo[a] && v <= hi[a]) return true;
    return false;
  }

  // forest()'s IPv4 walk and tree6 are the same walk specialized by family on purpose: the
  // IPv4 one picks the node's word among locals and tests inline entries, and keeping both
  // loops monomorphic is worth the repeated lines.
  private tree6(ref: number, min: number, best: number): number {
    const q = this.q, m = this.mem;
    while (ref >= 0) {
      const h = m[ref];
      const x = q[h & 15] >>> ((h >>> 4) & 31);
      ref = h >= 0 ? m[ref + 1 + (x & (h >>> 9))] : m[ref + 5 + 2 * hashSlot(m, ref, x & m[ref + 1])];
    }
    const v = q[8];
    let o = ~ref;
    const end = o + 1 + m[o] * Layout.LeafStride6;
    for (o++; o < end; o += Layout.LeafStride6) {
      const rule = m[o];
      if (rule >= best) return best;
      if (rule < min) continue;
      if (m[o + 2] !== 0 && !this.in6(m[o + 1], m[o + 2], 0)) continue;
      if (m[o + 4] !== 0 && !this.in6(m[o + 3], m[o + 4], 4)) continue;
      if (m[o + 6] !== 0 && !this.inSvc(v, m[o + 5], m[o + 6])) continue;
      if (!this.sportHolds(rule)) continue;
      return rule;
    }
    return best;
  }

  private in6(off: number, cnt: number, qw: number): boolean {
    const q = this.q, aw = this.aw, am = this.am;
    const w0 = q[qw], w1 = q[qw + 1], w2 = q[qw + 2], w3 = q[qw + 3];
    for (let a = off * 4, e = (off + cnt) * 4; a < e; a += 4) {
      if (
        ((w0 ^ aw[a]) & am[a]) === 0 &&
        ((w1 ^ aw[a + 1]) & am[a + 1]) === 0 &&
        ((w2 ^ aw[a + 2]) & am[a + 2]) === 0 &&
        ((w3 ^ aw[a + 3]) & am[a + 3]) === 0
      ) return true;
    }
    return false;
  }
}
