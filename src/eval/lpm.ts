// Longest-prefix match, for routes, zone networks and connected subnets. The prefixes of a
// family cut the address space into elementary intervals, each answered at build time by its
// most specific prefix; a lookup is a binary search over the interval starts (typed arrays,
// log2(2n) steps, no allocation). Words are stored biased (xor 0x80000000) so that signed
// int32 order is unsigned address order.
import type { Family } from '../config/net';
import { FIELD_BITS } from './sets';
import { wordsOf } from './rules';

export interface LpmEntry {
  value: bigint; // network number (host bits zero)
  len: number;
  answer: number; // >= 0
}

export interface LpmData {
  starts: Int32Array; // nw words per interval, biased
  answers: Int32Array; // -1: no prefix holds the interval
}

const BIAS = -0x80000000;

/** Builds a table; when one prefix is given twice, the first entry wins. */
export function buildLpm(entries: readonly LpmEntry[], family: Family): LpmData {
  const bits = FIELD_BITS[family];
  const nw = family === 4 ? 1 : 4;
  const max = (1n << BigInt(bits)) - 1n;
  const seen = new Set<string>();
  const pfx: Array<{ lo: bigint; hi: bigint; len: number; answer: number }> = [];
  for (const e of entries) {
    const key = `${e.value}/${e.len}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pfx.push({ lo: e.value, hi: e.value + (1n << BigInt(bits - e.len)) - 1n, len: e.len, answer: e.answer });
  }
  pfx.sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : a.len - b.len));
  const points = new Set<bigint>([0n]);
  for (const p of pfx) {
    points.add(p.lo);
    if (p.hi < max) points.add(p.hi + 1n);
  }
  const sorted = [...points].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const stack: typeof pfx = [];
  const starts: number[] = [];
  const answers: number[] = [];
  let next = 0;
  for (const b of sorted) {
    while (stack.length > 0 && stack[stack.length - 1].hi < b) stack.pop();
    while (next < pfx.length && pfx[next].lo === b) stack.push(pfx[next++]);
    const answer = stack.length > 0 ? stack[stack.length - 1].answer : -1;
    if (answers.length > 0 && answers[answers.length - 1] === answer) continue;
    for (const w of wordsOf(b, nw)) starts.push(w ^ BIAS);
    answers.push(answer);
  }
  return { starts: Int32Array.from(starts), answers: Int32Array.from(answers) };
}

/** Lookup of an IPv4 address given as an int32 word. */
export function lpm4(t: LpmData, addr: number): number {
  const s = t.starts;
  const key = addr ^ BIAS;
  let lo = 0, hi = t.answers.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (s[mid] <= key) lo = mid;
    else hi = mid - 1;
  }
  return t.answers[lo];
}

/** Lookup of an IPv6 address given as four int32 words q[at .. at+3]. */
export function lpm6(t: LpmData, q: Int32Array, at: number): number {
  const s = t.starts;
  const k0 = q[at] ^ BIAS, k1 = q[at + 1] ^ BIAS, k2 = q[at + 2] ^ BIAS, k3 = q[at + 3] ^ BIAS;
  let lo = 0, hi = t.answers.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const o = mid * 4;
    let le: boolean;
    if (s[o] !== k0) le = s[o] < k0;
    else if (s[o + 1] !== k1) le = s[o + 1] < k1;
    else if (s[o + 2] !== k2) le = s[o + 2] < k2;
    else le = s[o + 3] <= k3;
    if (le) lo = mid;
    else hi = mid - 1;
  }
  return t.answers[lo];
}

/**
 * One table answering combine(x's answer, y's answer) for every address: the union of both
 * tables' interval starts, neighbours with the same answer merged. The pipeline asks two
 * tables about the same address (zone networks and connected subnets for the source zone;
 * routes and zone networks for the destination), so one lookup of their union replaces two.
 */
export function lpmUnion(x: LpmData, y: LpmData, family: Family, combine: (ax: number, ay: number) => number): LpmData {
  const nw = family === 4 ? 1 : 4;
  const nx = x.answers.length, ny = y.answers.length;
  const starts: number[] = [];
  const answers: number[] = [];
  // i, j: the intervals of x and y holding the current point; both tables start at address 0
  let i = 0, j = 0;
  for (;;) {
    const answer = combine(x.answers[i], y.answers[j]);
    if (answers.length === 0 || answers[answers.length - 1] !== answer) {
      // the current point: the later of both intervals' starts
      const inX = compareStarts(x.starts, i, y.starts, j, nw) >= 0;
      for (let k = 0; k < nw; k++) starts.push(inX ? x.starts[i * nw + k] : y.starts[j * nw + k]);
      answers.push(answer);
    }
    // the next point: the nearer of both tables' next starts (both when equal)
    const moreX = i + 1 < nx, moreY = j + 1 < ny;
    if (!moreX && !moreY) break;
    const c = !moreY ? -1 : !moreX ? 1 : compareStarts(x.starts, i + 1, y.starts, j + 1, nw);
    if (c <= 0) i++;
    if (c >= 0) j++;
  }
  return { starts: Int32Array.from(starts), answers: Int32Array.from(answers) };
}

/** Order of interval a of table sa and interval b of table sb (biased words, nw a start). */
function compareStarts(sa: Int32Array, a: number, sb: Int32Array, b: number, nw: number): number {
  for (let k = 0; k < nw; k++) {
    const d = sa[a * nw + k] - sb[b * nw + k];
    if (d !== 0) return d;
  }
  return 0;
}
