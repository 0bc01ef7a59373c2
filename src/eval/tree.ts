// Builds one HiCuts-style cutting decision tree over three fields: source address,
// destination address, service key. Every cut takes the next k bits of one field, so a node's
// region is a prefix in each field and a child index is a shift and a mask of one packet word;
// a rule is a product of per-field unions of prefixes, so it is kept whole (never expanded
// into boxes) and a leaf knows, per rule and field, the run of its entries that meet the
// leaf's region (or that the rule covers the region in that field, nothing to check).
//
// Output (appended to shared arrays, see classifier.ts):
//   nodes:  [word | shift << 4 | mask << 9, child_0 .. child_mask]   (one word of header: a
//           level reads two words) a child ref >= 0 is a node offset,
//           a ref < 0 is ~leafOffset
//           or a hash node (header < 0): [HASH_NODE | word | shift << 4, mask, 32 - log2 slots,
//           default child, (key, child) * slots], key = (word >>> shift) & mask, slots
//           probed linearly from Math.imul(key, Layout.HashMul) >>> (32 - log2 slots); an empty slot
//           holds (0, default). It consumes a field to its long prefixes in one probe (hashCut)
//           where cuts would take it a few bits a level; build() keeps it by counted work.
//   leaves: [count, entry * count], rules in priority order.
//           IPv4 entries of Layout.LeafStride4 words. When every field is one prefix or
//           interval within the leaf (the ClassBench case, and most rules of real tables) the
//           values inline, so a check reads only the leaf:
//             (rule << RuleShift | srcLen << 6 | dstLen, srcWord, dstWord, svcLo, svcHi)
//           a prefix holds when the packet's word shares at least its length of leading bits
//           with the entry's (Math.clz32 of the xor: no mask words, 5 words instead of 7, so
//           more of a 10k table's leaves stay in the cache); a field the rule covers in the
//           leaf: length 0, or the whole key range. Otherwise runs into the shared pools,
//             (~rule, rec, 0, 0, 0), rec: (srcOff, srcCnt, dstOff, dstCnt, svcOff, svcCnt) in
//           the same array after the leaf, cnt 0: covered
//           IPv6 entries are always runs, with the rule as is, of Layout.LeafStride6 words:
//             (rule, srcOff, srcCnt, dstOff, dstCnt, svcOff, svcCnt)
import { GrowI32 } from './grow';
import type { FamilyTable } from './rules';
import { SVC_MAX } from './sets';
import { copyRun, sameList, Stack, type ChildLists } from './tree-scratch';
import { HASH_NODE, INLINE_RULES, Layout } from './tree-layout';
import { samplePoints, treeWork } from './tree-work';

export interface TreeParams {
  binth: number; // a node of at most this many rules is a leaf
  spfac: number; // a cut may hold at most spfac * n rule copies (plus its child slots)
  maxBits: number; // bits of one cut below the root
  rootBits: number; // bits of the root cut
  maxEntries: number; // leaf entries of all trees of a table; past it, nodes become leaves
  // (buildClassifier caps it further at 64 per rule)
  hash: number; // hash cuts: 0 never, 1 when they score better (see node()), 2 whenever possible (tests)
  // a tree of at most this many rules has leaves of at most SMALL_BINTH: its memory is
  // nothing, and such trees (rules specific in neither address, a zone pair's few rules) are
  // where the traffic no specific rule takes ends, scanning a leaf of up to binth rules to a
  // catch-all (ipc1_10k: a tenth of the lookups scanned 11-13 entries in its tree of 36 rules).
  // Not always nothing: rules alike in both addresses that differ by services of many
  // prefixes (IPv6 rules of zone networks, from address groups) made 57 rules 37 MB of nodes,
  // so such a tree stops past SMALL_TREE_WORDS and is built with binth instead
  smallTree: number;
}

const SMALL_BINTH = 4;
/** Words (nodes and leaves) a tree of n rules built with SMALL_BINTH may take (see smallTree). */
const SMALL_TREE_WORDS = (n: number) => 4096 + 256 * n;

export const DEFAULT_TREE_PARAMS: TreeParams = { binth: 16, spfac: 4, maxBits: 8, rootBits: 12, maxEntries: 4_000_000, hash: 1, smallTree: 64 };

/** A hash cut must consume this many bits more than the best cut of the node. */
const HASH_GAIN = 1;
const LEN_SHARE = 8; // a hash length must be the length of at least 1/8 of the entries (fewer plans)
/** Trees of more rules keep the hash nodes each node's score chose when params.hash is 1,
 * without the comparison: it costs a second build (about 2.4x the build time of the tree), and
 * the 10k ClassBench sets have no room for it in the build budget (300 ms). There, acl1_10k
 * is 1.1x / 1.28x faster with them (our / the anchor's packets), ipc1_10k and fw1_10k equal. */
const HASH_TRY_MAX = 4096;
/** Points of a tree's rules its counted work is measured on (build()). */
const WORK_POINTS = 512;

/** What a hash cut of one field would do at a node (see hashPlan). */
interface HashPlan {
  d: number;
  bits: number; // the cut takes bits [p, p + bits) of the field
  keys: Float64Array; // the values present (unsigned), ascending
  first: Int32Array; // per rule, the values [first, end) whose children it goes to
  end: Int32Array;
  total: number; // rule copies in all children
  score: number;
}

interface Dim {
  len: Int32Array;
  words: Int32Array;
  nw: number;
  qword: number; // first packet word of the field (q[0..3] src, q[4..7] dst, q[8] service)
  width: number;
}

export class TreeBuilder {
  /** nodes and leaves, one array (classifier.ts reads one typed array a lookup) */
  readonly mem = new GrowI32();
  entries = 0;
  private readonly dims: Dim[];
  private diff = new Int32Array(1 << 16);
  private hashMode = 0; // params.hash of the tree being built (build() tries 1, then 0)
  private hashNodes = 0; // hash nodes of the tree being built
  private binth = 16; // leaf size of the tree being built (build(): smaller for small trees)
  /** past this length of mem, the tree being built is given up (overLimit): see smallTree */
  private wordLimit = Infinity;
  private overLimit = false;
  private sizes = new Int32Array(1 << 16);

  /**
   * `firstOnly`: the tree answers first-match queries only (min 0), so a leaf may drop the rules
   * after one that covers its whole region. A table searched with min > 0 (NAT: the first rule
   * whose out-interface holds, then the next) must keep them.
   */
  constructor(
    private readonly t: FamilyTable,
    private readonly params: TreeParams = DEFAULT_TREE_PARAMS,
    private readonly firstOnly = true,
  ) {
    // a node's header holds its child mask in 23 bits
    if (params.rootBits > 16 || params.maxBits > 16) throw new RangeError('a cut takes at most 16 bits');
    const width = t.family === 4 ? 32 : 128;
    this.dims = [
      { len: t.addrLen, words: t.addrWords, nw: t.nw, qword: 0, width },
      { len: t.addrLen, words: t.addrWords, nw: t.nw, qword: 4, width },
      { len: t.pfxLen, words: t.pfxWord, nw: 1, qword: 8, width: 32 },
    ];
    this.mem.push(0); // the shared empty leaf at offset 0, ref ~0 = -1
  }

  /**
   * Builds a tree over the given rules (FamilyTable row numbers, ascending); returns its root
   * ref. With params.hash 1, a tree that has hash nodes is kept only when its counted work on
   * points of its rules (tree-work.ts) is less than the one of the tree without: a hash node
   * saves levels where prefixes are long, but its default child's leaf is scanned by every
   * value it misses.
   */
  build(rows: readonly number[]): number {
    if (rows.length <= this.params.smallTree && this.params.binth > SMALL_BINTH) {
      const mark = [this.mem.length, this.entries];
      this.binth = SMALL_BINTH;
      this.wordLimit = this.mem.length + SMALL_TREE_WORDS(rows.length);
      const ref = this.buildWith(rows);
      this.wordLimit = Infinity;
      if (!this.overLimit) return ref;
      this.overLimit = false;
      [this.mem.length, this.entries] = mark;
      this.hashNodes = 0;
    }
    this.binth = this.params.binth;
    return this.buildWith(rows);
  }

  /** build() with the leaf size set (this.binth). */
  private buildWith(rows: readonly number[]): number {
    if (this.params.hash !== 1 || rows.length > HASH_TRY_MAX) {
      this.hashMode = this.params.hash;
      return this.grow(rows);
    }
    const mark = [this.mem.length, this.entries];
    const reset = () => {
      [this.mem.length, this.entries] = mark;
      this.hashNodes = 0;
    };
    reset();
    this.hashMode = 1;
    const hashed = this.grow(rows);
    if (this.hashNodes === 0 || this.overLimit) return hashed; // the same tree as without, or given up
    const points = samplePoints(this.t, rows, WORK_POINTS);
    const rowOf = new Map(rows.map((r) => [this.t.rule[r], r]));
    const work = (root: number) => treeWork(this.t, this.mem.buf, root, points, rowOf);
    const wHashed = work(hashed);
    reset();
    this.hashMode = 0;
    const plain = this.grow(rows);
    const wPlain = work(plain);
    if (wPlain <= wHashed) return plain;
    reset();
    this.hashMode = 1;
    return this.grow(rows);
  }

  private grow(rows: readonly number[]): number {
    const n = rows.length;
    const rules = Int32Array.from(rows);
    const runs = new Int32Array(n * 6);
    const t = this.t;
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      runs[i * 6] = t.srcOff[r];
      runs[i * 6 + 1] = t.srcOff[r] + t.srcCnt[r];
      runs[i * 6 + 2] = t.dstOff[r];
      runs[i * 6 + 3] = t.dstOff[r] + t.dstCnt[r];
      runs[i * 6 + 4] = t.pfxOff[r];
      runs[i * 6 + 5] = t.pfxOff[r] + t.pfxCnt[r];
    }
    return this.node(rules, runs, n, [0, 0, 8], 0);
  }

  private covered(runs: Int32Array, i: number, d: number, p: number): boolean {
    const s = runs[i * 6 + 2 * d];
    return runs[i * 6 + 2 * d + 1] - s === 1 && this.dims[d].len[s] <= p;
  }

  /** The children [f, l] that entry j meets when bits [p, p+k) of its field are cut. */
  private range(d: number, j: number, p: number, k: number, out: Int32Array): void {
    const dim = this.dims[d];
    const len = dim.len[j];
    const nc = 1 << k;
    if (len <= p) {
      out[0] = 0;
      out[1] = nc - 1;
      return;
    }
    const w = dim.words[j * dim.nw + (p >> 5)];
    const f = (w >>> (32 - (p & 31) - k)) & (nc - 1);
    out[0] = f;
    out[1] = len >= p + k ? f : f + (1 << (p + k - len)) - 1;
  }

  private readonly fl = new Int32Array(2);
  private readonly stack = new Stack();
  /** node()'s score per cut width k - 1 (k <= 16) */
  private readonly scores = new Float64Array(16);
  /** hashLengths()'s count per length (<= 128) */
  private readonly seen = new Int32Array(129);

  /** sum of squares of the child sizes of the last stats() (its return value is their total) */
  private statSq = 0;
  /** rules of the last stats() that cover the field (in every child) */
  private statAll = 0;

  /** Rule copies per child of cut (d, k), in this.sizes; returns their total, and leaves the
   * sum of their squares in this.statSq (no tuple: it runs ~50 times a node). */
  private stats(runs: Int32Array, n: number, d: number, p: number, k: number): number {
    const nc = 1 << k;
    const diff = this.diff;
    diff.fill(0, 0, nc + 1);
    let all = 0;
    const fl = this.fl;
    for (let i = 0; i < n; i++) {
      if (this.covered(runs, i, d, p)) {
        all++;
        continue;
      }
      let prev = -1;
      for (let j = runs[i * 6 + 2 * d], e = runs[i * 6 + 2 * d + 1]; j < e; j++) {
        this.range(d, j, p, k, fl);
        const f = fl[0] <= prev ? prev + 1 : fl[0];
        if (f > fl[1]) continue;
        diff[f]++;
        diff[fl[1] + 1]--;
        prev = fl[1];
      }
    }
    let acc = 0, total = 0, sq = 0;
    for (let c = 0; c < nc; c++) {
      acc += diff[c];
      const s = acc + all;
      this.sizes[c] = s;
      total += s;
      sq += s * s;
    }
    this.statSq = sq;
    this.statAll = all;
    return total;
  }

  /** `hashOk` false: the default child of a hash node, which takes no hash cut itself (its
   * region is the parent's, so chains of defaults could otherwise run as deep as the rules). */
  private node(rules: Int32Array, runs: Int32Array, nIn: number, p: number[], depth: number, hashOk = true): number {
    // rules after the first one that covers the whole region can never be the first match (a
    // rule with source-port pieces covers no region: the lookup checks its pieces at the leaf)
    let n = nIn;
    for (let i = 0; i < n && this.firstOnly; i++) {
      if (this.t.spAt[rules[i]] === 0 && this.covered(runs, i, 0, p[0]) && this.covered(runs, i, 1, p[1]) && this.covered(runs, i, 2, p[2])) {
        n = i + 1;
        break;
      }
    }
    if (n === 0) return -1;
    if (this.mem.length > this.wordLimit) {
      this.overLimit = true; // build() drops this tree: any ref does
      return -1;
    }
    const P = this.params;
    if (n <= this.binth || this.entries >= P.maxEntries) return this.leaf(rules, runs, n, p);

    // Choose the cut: per field, the cuts within the space budget, scored by the expected
    // number of rules in the child a rule-weighted packet falls in; fewest bits on near-ties.
    // A field whose (non-covering) entries all share the next m bits is scored as if those
    // bits were consumed; if it wins, this node consumes them (a cut that copies only the
    // rules covering the field), so long common prefixes (a zone's network) cost nodes, not
    // copies.
    let bestD = -1, bestK = 0, bestScore = Infinity;
    const budget = P.spfac * n + 16;
    const skip = [0, 0, 0];
    for (let d = 0; d < 3; d++) {
      const dim = this.dims[d];
      const m = this.commonBits(runs, n, d, p[d]);
      skip[d] = m;
      const pe = p[d] + m;
      const kmax = Math.min(depth === 0 && m === 0 ? P.rootBits : P.maxBits, dim.width - pe, 32 - (pe & 31));
      const scores = this.scores;
      let ks = 0, min = Infinity;
      for (let k = 1; k <= kmax; k++) {
        const total = this.stats(runs, n, d, pe, k);
        if (total + (1 << k) > budget && k > 1) break;
        const score = this.statSq / total;
        scores[ks++] = score;
        if (score < min) min = score;
      }
      if (ks === 0) continue;
      let k = 1;
      while (scores[k - 1] > min * 1.03) k++;
      if (scores[k - 1] < bestScore * 0.999) {
        bestScore = scores[k - 1];
        bestD = d;
        bestK = k;
      }
    }
    // A hash cut resolves a field down to its shortest prefix in one probe, where cuts within
    // the space budget take it 1-8 bits a level (a few dozen /32s under one prefix: acl1).
    // Taken when it splits about as well as the best cut (or better) and consumes more bits.
    const cutBits = bestD < 0 ? 0 : skip[bestD] > 0 ? skip[bestD] : bestK;
    const hp = this.hashMode > 0 && hashOk ? this.bestHash(runs, n, p, budget, (h) => this.hashMode === 2 || h.score <= bestScore * 1.03, this.hashMode === 2 ? 1 : cutBits + HASH_GAIN) : null;
    if (hp) return this.hashCut(rules, runs, n, p, depth, hp);
    if (bestD < 0 || bestScore > n * 0.95) return this.leaf(rules, runs, n, p);
    if (skip[bestD] > 0) {
      const d = bestD;
      const k = Math.min(skip[d], depth === 0 ? P.rootBits : P.maxBits, 32 - (p[d] & 31));
      const bits = Math.min(skip[d], 32 - (p[d] & 31));
      if (P.hash !== 0 && bits > k) return this.skipHash(rules, runs, n, p, depth, d, bits);
      return this.cut(rules, runs, n, p, depth, d, k);
    }
    return this.cut(rules, runs, n, p, depth, bestD, bestK);
  }

  /** How many bits after p all entries of field d that do not cover the region share. */
  private commonBits(runs: Int32Array, n: number, d: number, p: number): number {
    const dim = this.dims[d];
    let m = dim.width - p;
    let first = -1;
    for (let i = 0; i < n && m > 0; i++) {
      if (this.covered(runs, i, d, p)) continue;
      for (let j = runs[i * 6 + 2 * d], e = runs[i * 6 + 2 * d + 1]; j < e && m > 0; j++) {
        if (dim.len[j] - p < m) m = dim.len[j] - p;
        if (first < 0) {
          first = j;
          continue;
        }
        // leading equal bits of entries first and j from bit p on, at most m
        let pos = p;
        const end = p + m;
        while (pos < end) {
          const w = pos >> 5;
          const x = (dim.words[first * dim.nw + w] ^ dim.words[j * dim.nw + w]) << (pos & 31);
          const same = x === 0 ? 32 - (pos & 31) : Math.clz32(x);
          pos += same;
          if (same < 32 - ((pos - same) & 31)) break;
        }
        if (pos - p < m) m = pos - p;
      }
    }
    return first < 0 ? 0 : m;
  }

  /**
   * A skip of more bits than one cut takes: a hash node of one key, the bits all non-covering
   * entries of field d share (their rules go on with the field consumed), whose default child
   * holds the rules covering the field. Cuts took a /56 of IPv6 8 bits a level, 7 nodes of 257
   * words, in every subtree where it was left (address groups' zone networks: 4,453 such chains
   * in a tree of 159 rules, 34 MB); this is 8 words per 32 bits and one probe.
   */
  private skipHash(rules: Int32Array, runs: Int32Array, n: number, p: number[], depth: number, d: number, bits: number): number {
    const dim = this.dims[d];
    let i = 0;
    while (this.covered(runs, i, d, p[d])) i++; // a skip has a non-covering rule
    const w = dim.words[runs[i * 6 + 2 * d] * dim.nw + (p[d] >> 5)];
    const key = ((w >>> (32 - (p[d] & 31) - bits)) & (bits === 32 ? -1 : (1 << bits) - 1)) >>> 0;
    const plan: HashPlan = { d, bits, keys: Float64Array.of(key), first: new Int32Array(n), end: new Int32Array(n).fill(1), total: 0, score: 0 };
    return this.hashCut(rules, runs, n, p, depth, plan, true);
  }

  /** Of the hash cuts of at least minBits within the budget that `accept` takes, the one of
   * the lowest score, or null. A shorter length can win: acl1's /31 and /32 sources hashed
   * together at /31 (the leaf checks the last bit) instead of a /32 node whose misses go on to
   * a /31 one. */
  private bestHash(runs: Int32Array, n: number, p: number[], budget: number, accept: (hp: HashPlan) => boolean, minBits: number): HashPlan | null {
    let best: HashPlan | null = null;
    for (let d = 0; d < 3; d++) {
      const lens = this.hashLengths(runs, n, d, p[d]);
      for (let k = lens.length - 1; k >= 0 && lens[k] - p[d] >= minBits; k--) {
        const hp = this.hashPlan(runs, n, d, p[d], lens[k], budget);
        if (hp && accept(hp) && (!best || hp.score < best.score)) best = { ...hp };
      }
    }
    // plans share the scratch arrays: the winner's again
    return best ? this.hashPlan(runs, n, best.d, p[best.d], p[best.d] + best.bits, Infinity) : null;
  }

  /** The lengths a hash cut of field d at p may resolve to: the entries' lengths past p, within
   * p's word, ascending; none when a rule that does not cover the field has several entries. */
  private hashLengths(runs: Int32Array, n: number, d: number, p: number): number[] {
    const dim = this.dims[d];
    const wordEnd = Math.min(dim.width, ((p >> 5) + 1) * 32);
    const seen = this.seen.fill(0, 0, wordEnd + 1);
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (this.covered(runs, i, d, p)) continue;
      const s = runs[i * 6 + 2 * d];
      if (runs[i * 6 + 2 * d + 1] - s !== 1) return [];
      seen[Math.min(dim.len[s], wordEnd)]++;
      m++;
    }
    const out: number[] = [];
    for (let l = p + 1; l <= wordEnd; l++) if (seen[l] > 0 && seen[l] * LEN_SHARE >= m) out.push(l);
    return out;
  }

  /**
   * A hash cut of field d at bit p to length L: bits [p, L) of the rules whose prefix is at
   * least L long are the keys, one child per value present; a rule shorter than L goes to the
   * children whose value it covers and, with the rules covering the field, to the default
   * child (every other value; its region stays at p, so it checks them). Null past the budget.
   */
  private hashPlan(runs: Int32Array, n: number, d: number, p: number, L: number, budget: number): HashPlan | null {
    const dim = this.dims[d];
    const bits = L - p;
    const shift = 32 - (p & 31) - bits;
    const mask = bits === 32 ? -1 : (1 << bits) - 1;
    const sc = this.scratch(n);
    const len = sc.len; // the entry's length; p: covers the field
    const keys = sc.keys; // bits [p, min(len, L)) as an unsigned number
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (this.covered(runs, i, d, p)) {
        len[i] = p;
        keys[i] = 0; // covers all 2^bits values
        continue;
      }
      const s = runs[i * 6 + 2 * d];
      len[i] = Math.min(dim.len[s], L);
      keys[i] = ((dim.words[s * dim.nw + (p >> 5)] >>> shift) & mask) >>> 0;
      if (len[i] === L) sc.vals[m++] = keys[i];
    }
    const uniq = sc.vals.subarray(0, m).sort();
    let K = 0;
    for (let a = 0; a < uniq.length; a++) if (a === 0 || uniq[a] !== uniq[K - 1]) uniq[K++] = uniq[a];
    const keyed = uniq.subarray(0, K);
    // per rule the children [first, end) it goes to (value indices), and the default
    const first = sc.first, end = sc.end;
    const diff = sc.diff.fill(0, 0, K + 1);
    let total = 0, nDefault = 0;
    for (let i = 0; i < n; i++) {
      if (len[i] === L) {
        first[i] = lowerBound(keyed, keys[i]);
        end[i] = first[i] + 1;
      } else {
        const span = 2 ** (L - len[i]); // the values this rule's prefix covers
        const lo = keys[i] - (keys[i] % span);
        first[i] = lowerBound(keyed, lo);
        end[i] = lowerBound(keyed, lo + span);
        nDefault++;
        total++;
      }
      diff[first[i]]++;
      diff[end[i]]--;
      total += end[i] - first[i];
      if (total > budget) return null;
    }
    // the score: the expected size of the child a packet of a rule falls in, as for a cut; a
    // packet of a rule shorter than L almost always misses the values present: the default
    const exact = sc.exact.fill(0, 0, K);
    for (let i = 0; i < n; i++) if (len[i] === L) exact[first[i]]++;
    let acc = 0, weighted = nDefault * nDefault;
    for (let c = 0; c < K; c++) {
      acc += diff[c];
      weighted += exact[c] * acc;
    }
    if (K === 0 || (K === 1 && nDefault === 0)) return null; // no value, or one child of everything: a skip, not a split
    return { d, bits, keys: keyed, first, end, total, score: weighted / n };
  }

  /**
   * Emits a hash node (layout in the file's header comment): the default child, then one child
   * per value, the field consumed to p + bits.
   */
  private hashCut(rules: Int32Array, runs: Int32Array, n: number, p: number[], depth: number, hp: HashPlan, skip = false): number {
    const { d, bits, first, end } = hp;
    const keys = hp.keys.slice(); // the scratch arrays are reused by the children's plans
    const K = keys.length;
    const lists: number[][] = Array.from({ length: K + 1 }, () => []); // [K]: the default
    for (let i = 0; i < n; i++) {
      for (let c = first[i]; c < end[i]; c++) lists[c].push(i);
      if (end[i] - first[i] !== 1 || this.covered(runs, i, d, p[d]) || !this.longEnough(runs, i, d, p[d] + bits)) lists[K].push(i);
    }
    const child = (list: number[], at: number[], hashOk: boolean): number => {
      const cRules = new Int32Array(list.length), cRuns = new Int32Array(list.length * 6);
      list.forEach((i, k) => {
        cRules[k] = rules[i];
        copyRun(runs, i, cRuns, k);
      });
      return this.node(cRules, cRuns, list.length, at, depth + 1, hashOk);
    };
    let slots = 2;
    while (slots < 2 * K) slots *= 2;
    const hs = 32 - Math.log2(slots);
    const at = this.mem.reserve(4 + 2 * slots);
    // a skip's default child covers field d (no hash of d can follow at its region), and
    // build() need not compare its tree with one without: a skip saves levels and words alike
    if (!skip) this.hashNodes++;
    const def = child(lists[K], p, skip);
    let b = this.mem.buf;
    b[at] = HASH_NODE | (this.dims[d].qword + (p[d] >> 5)) | ((32 - (p[d] & 31) - bits) << 4);
    b[at + 1] = bits === 32 ? -1 : (1 << bits) - 1;
    b[at + 2] = hs;
    b[at + 3] = def;
    for (let s = 0; s < slots; s++) b[at + 5 + 2 * s] = def; // empty: key 0, the default child
    const q = p.slice();
    q[d] += bits;
    for (let c = 0; c < K; c++) {
      const ref = child(lists[c], q, true);

      if (ref === def) continue; // the default answers it anyway (and marks empty slots)
      const key = keys[c] | 0;
      b = this.mem.buf;
      let s = Math.imul(key, Layout.HashMul) >>> hs;
      while (b[at + 5 + 2 * s] !== def) s = (s + 1) & (slots - 1);
      b[at + 4 + 2 * s] = key;
      b[at + 5 + 2 * s] = ref;
    }
    return at;
  }

  private sc = { len: new Int32Array(0), keys: new Float64Array(0), vals: new Float64Array(0), first: new Int32Array(0), end: new Int32Array(0), diff: new Int32Array(0), exact: new Int32Array(0) };

  /** hashPlan's arrays for n rules, allocated once per size doubling (a plan is made for a
   * few lengths of three fields at every node: allocating them each time was most of it). */
  private scratch(n: number): typeof this.sc {
    if (this.sc.len.length < n + 1) {
      const c = Math.max(1024, 2 * n + 2);
      this.sc = { len: new Int32Array(c), keys: new Float64Array(c), vals: new Float64Array(c), first: new Int32Array(c), end: new Int32Array(c), diff: new Int32Array(c), exact: new Int32Array(c) };
    }
    return this.sc;
  }

  /** Rule i's one entry in field d is at least L long. */
  private longEnough(runs: Int32Array, i: number, d: number, L: number): boolean {
    return this.dims[d].len[runs[i * 6 + 2 * d]] >= L;
  }

  /**
   * A cut of k bits of field d. Rules covering the field go to every child as they are; the
   * others to the children their entries meet, with their run in the field cut down. Only
   * the latter are listed per child: a child is the same as the one before it exactly when
   * their lists are (then it gets the same subtree), and only a child that is built is
   * written out whole (at the root of a big table most of 4,096 children are alike, and
   * copying every covering rule into each of them was most of a cut's time).
   */
  private cut(rules: Int32Array, runs: Int32Array, n: number, p: number[], depth: number, d: number, k: number): number {
    const nc = 1 << k;
    this.stats(runs, n, d, p[d], k);
    const all = this.statAll;
    // the lists live on the builder's stack until this cut returns
    const stack = this.stack, mark = stack.top;
    const start = stack.take(nc + 1);
    start[0] = 0;
    for (let c = 0; c < nc; c++) start[c + 1] = start[c] + this.sizes[c] - all;
    const fill = stack.take(nc);
    fill.set(start.subarray(0, nc));
    // per child, from start[c]: the rule (its row here) and its run [first, end) in field d
    const m = start[nc];
    const row = stack.take(m), first = stack.take(m), end = stack.take(m);
    const cov = stack.take(all);
    let nCov = 0;
    const fl = this.fl;
    for (let i = 0; i < n; i++) {
      if (this.covered(runs, i, d, p[d])) {
        cov[nCov++] = i;
        continue;
      }
      let prev = -1;
      for (let j = runs[i * 6 + 2 * d], e0 = runs[i * 6 + 2 * d + 1]; j < e0; j++) {
        this.range(d, j, p[d], k, fl);
        for (let c = fl[0]; c <= fl[1]; c++) {
          if (c === prev) end[fill[c] - 1] = j + 1; // the run goes on in this child
          else {
            const at = fill[c]++;
            row[at] = i;
            first[at] = j;
            end[at] = j + 1;
          }
        }
        prev = fl[1];
      }
    }
    const dim = this.dims[d];
    const at = this.mem.reserve(1 + nc);
    this.mem.buf[at] = (dim.qword + (p[d] >> 5)) | ((32 - (p[d] & 31) - k) << 4) | ((nc - 1) << 9);
    const q = p.slice();
    q[d] += k;
    const lists: ChildLists = { rules, runs, d, cov, nCov, row, first, end };
    let prevRef = 0;
    for (let c = 0; c < nc; c++) {
      const s = start[c], e = start[c + 1];
      const ref = c > 0 && sameList(lists, start[c - 1], s, e - s) ? prevRef : this.child(lists, s, e, q, depth + 1);
      this.mem.buf[at + 1 + c] = ref;
      prevRef = ref;
    }
    stack.top = mark;
    return at;
  }

  /** Builds the child whose listed rules are [s, e) of `l`: those and the covering rules, in
   * rule order, written out on the stack for node(). */
  private child(l: ChildLists, s: number, e: number, p: number[], depth: number): number {
    const size = l.nCov + e - s;
    const mark = this.stack.top;
    const cRules = this.stack.take(size), cRuns = this.stack.take(size * 6);
    const { rules, runs, d, cov, nCov, row, first, end } = l;
    let a = 0, b = s;
    for (let o = 0; o < size; o++) {
      if (b >= e || (a < nCov && cov[a] < row[b])) {
        const i = cov[a++];
        cRules[o] = rules[i];
        copyRun(runs, i, cRuns, o);
      } else {
        const i = row[b];
        cRules[o] = rules[i];
        copyRun(runs, i, cRuns, o);
        cRuns[o * 6 + 2 * d] = first[b];
        cRuns[o * 6 + 2 * d + 1] = end[b];
        b++;
      }
    }
    const ref = this.node(cRules, cRuns, size, p, depth);
    this.stack.top = mark;
    return ref;
  }

  private leaf(rules: Int32Array, runs: Int32Array, n: number, p: number[]): number {
    const t = this.t;
    const v4 = t.nw === 1;
    const stride = v4 ? Layout.LeafStride4 : Layout.LeafStride6;
    const at = this.mem.reserve(1 + n * stride);
    this.mem.buf[at] = n;
    for (let i = 0; i < n; i++) {
      const o = at + 1 + i * stride;
      const rule = t.rule[rules[i]];
      if (!v4) this.runsInto(runs, i, p, this.mem.buf, o, rule, 1);
      else if (rule >= INLINE_RULES || !this.inline(runs, i, p, this.mem.buf, o, rule)) {
        const rec = this.mem.reserve(6); // may move buf
        const b = this.mem.buf;
        b.fill(0, o, o + Layout.LeafStride4);
        b[o] = ~rule;
        b[o + 1] = rec;
        this.runsInto(runs, i, p, b, rec, rule, 0);
      }
    }
    this.entries += n;
    return ~at;
  }

  /** An IPv4 entry with its values inline, when every field is one prefix or interval here. */
  private inline(runs: Int32Array, i: number, p: number[], b: Int32Array, o: number, rule: number): boolean {
    const t = this.t;
    for (let d = 0; d < 3; d++) {
      const s = runs[i * 6 + 2 * d], e = runs[i * 6 + 2 * d + 1];
      if (this.covered(runs, i, d, p[d])) continue;
      if (d < 2 ? e - s !== 1 : t.pfxIv[s] !== t.pfxIv[e - 1]) return false;
    }
    let lens = 0;
    for (let d = 0; d < 2; d++) {
      const s = runs[i * 6 + 2 * d];
      const cov = this.covered(runs, i, d, p[d]);
      b[o + 1 + d] = cov ? 0 : t.addrWords[s];
      lens = (lens << 6) | (cov ? 0 : t.addrLen[s]);
    }
    b[o] = (rule << Layout.RuleShift) | lens;
    const iv = t.pfxIv[runs[i * 6 + 4]];
    const cov = this.covered(runs, i, 2, p[2]);
    b[o + 3] = cov ? 0 : t.svcLo[iv];
    b[o + 4] = cov ? SVC_MAX : t.svcHi[iv];
    return true;
  }

  /** Rule i's runs into the pools at b[o + skip .. o + skip + 5] (cnt 0: covered), and with
   * skip 1 the rule before them (an IPv6 entry). */
  private runsInto(runs: Int32Array, i: number, p: number[], b: Int32Array, o: number, rule: number, skip: 0 | 1): void {
    const t = this.t;
    if (skip === 1) b[o] = rule;
    const w = o + skip;
    for (let d = 0; d < 3; d++) {
      const s = runs[i * 6 + 2 * d], e = runs[i * 6 + 2 * d + 1];
      if (this.covered(runs, i, d, p[d])) {
        b[w + 2 * d] = 0;
        b[w + 1 + 2 * d] = 0;
      } else if (d < 2) {
        b[w + 2 * d] = s;
        b[w + 1 + 2 * d] = e - s;
      } else {
        b[w + 4] = t.pfxIv[s];
        b[w + 5] = t.pfxIv[e - 1] - t.pfxIv[s] + 1;
      }
    }
  }
}

function lowerBound(a: Float64Array, x: number): number {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
