// One field of a painted box (paint.ts) cut into elementary intervals at the boundaries of
// the candidates inside it, so that every candidate holds an elementary interval whole or not
// at all.
//
// Two ways to the same answer: in BigInt (any field, IPv6 addresses) and in numbers, for a
// field whose values are below 2^53 (IPv4 addresses, service keys: most boxes). Sorting the
// boundaries with a BigInt comparator was the largest part of the painting; in numbers they
// sort natively in a Float64Array.
import { intersect } from './coverage';
import type { Interval } from './sets';
import type { Work } from './work';

export interface Axis {
  lo: bigint[]; // first value of each elementary interval inside the box
  runs: Int32Array[]; // per candidate: [first, last] elementary intervals of each of its intervals
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** c clipped to r: r itself (no copy) when one interval of c holds all of r, the usual case
 * of `any` fields and wide rules. */
function clip(c: Interval[], r: Interval[]): Interval[] {
  if (c === r) return r;
  const lo = r[0][0], hi = r[r.length - 1][1];
  for (const [a, b] of c) if (a <= lo && hi <= b) return r;
  return intersect(c, r);
}

/** The index of x in the sorted array u (x is in it). */
function indexOf<T extends bigint | number>(u: ArrayLike<T>, x: T): number {
  let a = 0, b = u.length - 1;
  while (a < b) {
    const m = (a + b) >> 1;
    if (u[m] < x) a = m + 1;
    else b = m;
  }
  return a;
}

/** Every value of a field holding r (and so of every candidate clipped to r) is exact as a double. */
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The axis of field r for the candidates' fields cs (in rule order). */
export function axis(r: Interval[], cs: readonly Interval[][], work: Work): Axis {
  return r[r.length - 1][1] < SAFE ? axisNum(r, cs, work) : axisBig(r, cs, work);
}

export function axisBig(r: Interval[], cs: readonly Interval[][], work: Work): Axis {
  const clipped = cs.map((c) => clip(c, r));
  const pts: bigint[] = [];
  for (const [lo, hi] of r) pts.push(lo, hi + 1n);
  for (const cl of clipped) if (cl !== r) for (const [lo, hi] of cl) pts.push(lo, hi + 1n);
  work.spend(pts.length * 4);
  pts.sort(cmp);
  // the distinct boundaries, and for each the elementary interval (inside the box) it starts
  const u: bigint[] = [];
  const elem: number[] = [];
  const lo: bigint[] = [];
  let j = 0;
  for (const p of pts) {
    if (u.length > 0 && u[u.length - 1] === p) continue;
    while (j < r.length && r[j][1] < p) j++;
    u.push(p);
    elem.push(lo.length);
    if (j < r.length && r[j][0] <= p) lo.push(p);
  }
  const whole = Int32Array.of(0, lo.length - 1);
  const runs = clipped.map((cl) => {
    if (cl === r && r.length === 1) return whole;
    const out = new Int32Array(cl.length * 2);
    cl.forEach(([a, b], i) => {
      out[2 * i] = elem[indexOf(u, a)];
      out[2 * i + 1] = elem[indexOf(u, b + 1n)] - 1;
    });
    return out;
  });
  return { lo, runs };
}

/** axisNum's boundaries and distinct boundaries, and the elementary interval of each: scratch
 * of this thread, grown as needed (three typed arrays per axis were most of the painting's
 * garbage). */
let scratch = { pts: new Float64Array(256), u: new Float64Array(256), elem: new Int32Array(256) };

/** axisBig in numbers, for a field whose values are all below 2^53 (r's are). */
export function axisNum(r: Interval[], cs: readonly Interval[][], work: Work): Axis {
  const clipped = cs.map((c) => clip(c, r));
  let count = 2 * r.length;
  for (const cl of clipped) if (cl !== r) count += 2 * cl.length;
  if (scratch.pts.length < count) {
    const n = Math.max(count, 2 * scratch.pts.length);
    scratch = { pts: new Float64Array(n), u: new Float64Array(n), elem: new Int32Array(n) };
  }
  const pts = scratch.pts.subarray(0, count);
  let k = 0;
  const add = (iv: Interval[]) => {
    for (const [lo, hi] of iv) {
      pts[k++] = Number(lo);
      pts[k++] = Number(hi) + 1;
    }
  };
  add(r);
  for (const cl of clipped) if (cl !== r) add(cl);
  work.spend(count * 4);
  pts.sort();
  const rv = r.map(([a, b]) => [Number(a), Number(b)]);
  const { u, elem } = scratch;
  const lo: bigint[] = [];
  let nu = 0, j = 0;
  for (let i = 0; i < count; i++) {
    const p = pts[i];
    if (nu > 0 && u[nu - 1] === p) continue;
    while (j < rv.length && rv[j][1] < p) j++;
    u[nu] = p;
    elem[nu++] = lo.length;
    if (j < rv.length && rv[j][0] <= p) lo.push(BigInt(p));
  }
  const us = u.subarray(0, nu);
  const whole = Int32Array.of(0, lo.length - 1);
  const runs = clipped.map((cl) => {
    if (cl === r && r.length === 1) return whole;
    const out = new Int32Array(cl.length * 2);
    for (let i = 0; i < cl.length; i++) {
      out[2 * i] = elem[indexOf(us, Number(cl[i][0]))];
      out[2 * i + 1] = elem[indexOf(us, Number(cl[i][1]) + 1)] - 1;
    }
    return out;
  });
  return { lo, runs };
}
