// The set stage of a rule table: rules whose source or destination set holds many prefixes
// (address groups: 20-200 networks a side) are kept out of the cutting trees (tree.ts), which
// copy a rule into every leaf its sets cross: their product, per rule. 14,000 such rules of
// 20,000 made a 464 MB image and 10 s of compile (docs/performance.md, "Groups at scale").
//
// Here each distinct address set of these rules gets an id, and a lookup first asks which sets
// hold the packet's source and which hold its destination: the sets' prefixes, all of them
// at once, are a longest-prefix table (lpm.ts) whose answer, per elementary interval, is the
// list of sets holding it (the prefixes of a family nest or are disjoint, so the sets holding
// an address are those of its longest prefix and of that prefix's ancestors: one list per
// prefix, computed at build time). Each rule is then listed once, under the set of one side
// (the one covering fewer addresses, so that the lists a packet reads hold rules it probably
// matches), and the other side is a test of that set's mark. A lookup reads the lists of the
// packet's sets in rule order up to the best match so far; the tree forests and this stage
// together keep first-match order because every rule is in exactly one of them
// (classifier.ts takes the lowest of their answers).
//
// Output (all Int32Array, in the classifier's data):
//   wHdr:   [sets NS, rules listed, first (lowest) rule listed or 0x7fffffff]
//   wStarts, wClass: the longest-prefix table (lpm.ts starts / answers) of the sets' prefixes;
//           an answer is an offset in wSets, -1 where no set holds the address
//   wSets:  lists of set ids [count, id * count], one per distinct list
//   wHead:  2 NS + 1 entry numbers: the rules listed under set s by its source side are the
//           entries [wHead[s], wHead[s + 1]), by its destination side [wHead[NS + s], wHead[NS + s + 1])
//   wRules: entries of WideEntry words, ascending rule order within a list:
//           (rule, set id of the other side, source zone, destination zone (0: any), svcOff, svcCnt)
import { buildLpm, type LpmEntry } from './lpm';
import { ANY_ZONE, type FamilyTable } from './rules';
import { FIELD_BITS } from './sets';

export interface WideData {
  wHdr: Int32Array;
  wStarts: Int32Array;
  wClass: Int32Array;
  wSets: Int32Array;
  wHead: Int32Array;
  wRules: Int32Array;
}

export const WIDE_KEYS = ['wHdr', 'wStarts', 'wClass', 'wSets', 'wHead', 'wRules'] as const;

/** words of a wRules entry */
export const WIDE_ENTRY = 6;

export const NO_RULE = 0x7fffffff;

/** Does row r of the table go to the set stage: more than `wide` prefixes on a side? */
export function isWide(t: FamilyTable, r: number, wide: number): boolean {
  return t.srcCnt[r] > wide || t.dstCnt[r] > wide;
}

/** A prefix of the pool as a bigint (the network number, host bits zero). */
function prefixValue(t: FamilyTable, j: number): bigint {
  if (t.nw === 1) return BigInt(t.addrWords[j] >>> 0);
  let v = 0n;
  for (let i = 0; i < 4; i++) v = (v << 32n) | BigInt(t.addrWords[j * 4 + i] >>> 0);
  return v;
}

/** The set stage of rows `rows` (ascending) of table t. */
export function buildWide(t: FamilyTable, rows: readonly number[]): WideData {
  const bits = FIELD_BITS[t.family];
  // set ids: a pool run is one set (rules.ts shares a run among the rules naming one set)
  const idOf = new Map<number, number>();
  const runs: Array<[number, number]> = [];
  const setId = (off: number, cnt: number) => {
    let id = idOf.get(off);
    if (id === undefined) {
      idOf.set(off, (id = runs.length));
      runs.push([off, cnt]);
    }
    return id;
  };
  const src = rows.map((r) => setId(t.srcOff[r], t.srcCnt[r]));
  const dst = rows.map((r) => setId(t.dstOff[r], t.dstCnt[r]));
  const NS = runs.length;
  // addresses a set covers (a float: 2^128 fits, the order is what counts)
  const size = runs.map(([off, cnt]) => {
    let s = 0;
    for (let j = off; j < off + cnt; j++) s += 2 ** (bits - t.addrLen[j]);
    return s;
  });
  // each rule under its narrower side: key = set id, or NS + set id for the destination side
  const key = rows.map((_, i) => (size[src[i]] <= size[dst[i]] ? src[i] : NS + dst[i]));
  const wHead = new Int32Array(2 * NS + 1);
  for (const k of key) wHead[k + 1]++;
  for (let k = 0; k < 2 * NS; k++) wHead[k + 1] += wHead[k];
  const fill = wHead.slice(0, 2 * NS);
  const wRules = new Int32Array(rows.length * WIDE_ENTRY);
  rows.forEach((r, i) => {
    const o = fill[key[i]]++ * WIDE_ENTRY;
    wRules[o] = t.rule[r];
    wRules[o + 1] = key[i] < NS ? dst[i] : src[i];
    wRules[o + 2] = t.sz[r] === ANY_ZONE ? 0 : t.sz[r];
    wRules[o + 3] = t.dz[r] === ANY_ZONE ? 0 : t.dz[r];
    wRules[o + 4] = t.svcOff[r];
    wRules[o + 5] = t.svcCnt[r];
  });
  const { starts, answers, lists } = setLists(t, runs);
  const first = rows.length > 0 ? t.rule[rows[0]] : NO_RULE;
  return { wHdr: Int32Array.of(NS, rows.length, first), wStarts: starts, wClass: answers, wSets: lists, wHead, wRules };
}

/** The longest-prefix table answering, per address, the offset of the list of sets that hold it. */
function setLists(t: FamilyTable, runs: ReadonlyArray<[number, number]>): { starts: Int32Array; answers: Int32Array; lists: Int32Array } {
  const bits = BigInt(FIELD_BITS[t.family]);
  // distinct prefixes, each with the sets that name it
  const nodes = new Map<string, { lo: bigint; hi: bigint; len: number; own: number[] }>();
  runs.forEach(([off, cnt], id) => {
    for (let j = off; j < off + cnt; j++) {
      const lo = prefixValue(t, j);
      const k = `${lo}/${t.addrLen[j]}`;
      let n = nodes.get(k);
      if (!n) nodes.set(k, (n = { lo, hi: lo + (1n << (bits - BigInt(t.addrLen[j]))) - 1n, len: t.addrLen[j], own: [] }));
      n.own.push(id);
    }
  });
  const sorted = [...nodes.values()].sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : a.len - b.len));
  // a prefix's sets and its ancestors' (the enclosing prefixes: on the stack when it starts)
  const stack: Array<{ hi: bigint; all: number[] }> = [];
  const listAt = new Map<string, number>();
  const lists: number[] = [];
  const entries: LpmEntry[] = [];
  for (const n of sorted) {
    while (stack.length > 0 && stack[stack.length - 1].hi < n.lo) stack.pop();
    const all = stack.length > 0 ? [...new Set([...stack[stack.length - 1].all, ...n.own])].sort((a, b) => a - b) : n.own;
    stack.push({ hi: n.hi, all });
    const k = all.join(',');
    let at = listAt.get(k);
    if (at === undefined) {
      listAt.set(k, (at = lists.length));
      lists.push(all.length);
      for (const id of all) lists.push(id);
    }
    entries.push({ value: n.lo, len: n.len, answer: at });
  }
  const lpm = buildLpm(entries, t.family);
  return { starts: lpm.starts, answers: lpm.answers, lists: Int32Array.from(lists) };
}
