// One field of a painted box (paint.ts) cut into elementary intervals at the boundaries of
// the candidates inside it, so that every candidate holds an elementary interval whole or not
// at all.
//
// Two ways to the same answer: in BigInt (any field, IPv6 addresses) and in numbers, for a
// field whose values are below 2^53 (IPv4 addresses, service keys: most boxes). Sorting the
// boundaries with a BigInt comparator was the largest part of the painting; in numbers they
// sort natively in a Float64Array.
import { intersect } from './coverage';
import { sameIntervals, type Interval } from './sets';
import type { Work } from './work';

export interface Axis {
  /** first value of each elementary interval inside the box; in numbers from axisNum (made
   * BigInt only for the rare example packet: a BigInt each was most of an axis's garbage) */
  lo: readonly bigint[] | Float64Array;
  runs: Int32Array[]; // per candidate: [first, last] elementary intervals of each of its intervals
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** c clipped to r: r itself (no copy) when one interval of c holds all of r, the usual case
 * of `any` fields and wide rules, or when c is r. "Is r" means by value, not only the same
 * object: the work spent must not depend on whether two regions were made from one field
 * object or from equal ones. The incremental analysis makes a changed policy's region again
 * while the whole analysis makes every region from the same specs, and a copied decision's
 * work must be what the whole analysis spends (issue 30). */
function clip(c: Interval[], r: Interval[]): Interval[] {
  if (sameIntervals(c, r)) return r;
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

/** A field's intervals as numbers, [lo, hi] pairs, made once per field (the regions of a
 * table share their fields: an address object's, a service set's). A value of 2^53 or more
 * is rounded, which keeps its order against the exact values below 2^53 of a box it is
 * clipped to, and no such value is ever an output. */
const numbers = new WeakMap<Interval[], Float64Array>();

function numbersOf(iv: Interval[]): Float64Array {
  let a = numbers.get(iv);
  if (!a) {
    a = new Float64Array(iv.length * 2);
    for (let k = 0; k < iv.length; k++) {
      a[2 * k] = Number(iv[k][0]);
      a[2 * k + 1] = Number(iv[k][1]);
    }
    numbers.set(iv, a);
  }
  return a;
}

/** axisNum's scratch, of this thread, grown as needed: the candidates' clipped intervals and
 * where each one's are (-1: the box's own field), the boundaries, per distinct boundary its
 * elementary interval, and the elementary intervals' first values (typed arrays made per
 * axis were most of the painting's garbage). */
let scratch = { clipped: new Float64Array(1024), at: new Int32Array(64), len: new Int32Array(64), pts: new Float64Array(256), u: new Float64Array(256), elem: new Int32Array(256), starts: new Float64Array(256) };

function roomFor(clipped: number, cands: number, pts: number): typeof scratch {
  const s = scratch;
  const grow = (have: number, need: number) => (have >= need ? have : Math.max(need, 2 * have));
  if (s.clipped.length < clipped || s.at.length < cands || s.pts.length < pts) {
    const c = grow(s.clipped.length, clipped), a = grow(s.at.length, cands), p = grow(s.pts.length, pts);
    scratch = { clipped: new Float64Array(c), at: new Int32Array(a), len: new Int32Array(a), pts: new Float64Array(p), u: new Float64Array(p), elem: new Int32Array(p), starts: new Float64Array(p) };
  }
  return scratch;
}

/**
 * axisBig in numbers, for a field whose values are all below 2^53 (r's are): the candidates
 * clipped to r as clip() does (r itself when one interval of a candidate holds r's hull, else
 * the intersection), the same work spent.
 */
export function axisNum(r: Interval[], cs: readonly Interval[][], work: Work): Axis {
  const R = numbersOf(r);
  const rlo = R[0], rhi = R[R.length - 1];
  let room = 0;
  for (const c of cs) if (c !== r) room += c.length + r.length; // an intersection has fewer intervals
  const sc = roomFor(2 * room, cs.length, 2 * r.length + 2 * room);
  let k = 0, count = 2 * r.length;
  for (let ci = 0; ci < cs.length; ci++) {
    const c = cs[ci];
    sc.at[ci] = -1;
    if (sameIntervals(c, r)) continue; // by value, as clip()
    const C = numbersOf(c);
    let holds = false;
    for (let a = 0; a < C.length && !holds; a += 2) holds = C[a] <= rlo && rhi <= C[a + 1];
    if (holds) continue;
    sc.at[ci] = k;
    // intersect(c, r)
    let i = 0, j = 0;
    while (i < C.length && j < R.length) {
      const lo = C[i] > R[j] ? C[i] : R[j];
      const hi = C[i + 1] < R[j + 1] ? C[i + 1] : R[j + 1];
      if (lo <= hi) {
        sc.clipped[k++] = lo;
        sc.clipped[k++] = hi;
      }
      if (C[i + 1] < R[j + 1]) i += 2;
      else j += 2;
    }
    sc.len[ci] = k - sc.at[ci];
    count += sc.len[ci];
  }
  // the boundaries: each interval's first value and the one after its last
  const pts = sc.pts.subarray(0, count);
  for (let i = 0; i < R.length; i += 2) {
    pts[i] = R[i];
    pts[i + 1] = R[i + 1] + 1;
  }
  for (let i = 0; i < k; i += 2) {
    pts[R.length + i] = sc.clipped[i];
    pts[R.length + i + 1] = sc.clipped[i + 1] + 1;
  }
  work.spend(count * 4);
  pts.sort();
  const { u, elem, starts } = sc;
  let nu = 0, nlo = 0;
  for (let i = 0, j = 0; i < count; i++) {
    const p = pts[i];
    if (nu > 0 && u[nu - 1] === p) continue;
    while (j < R.length && R[j + 1] < p) j += 2;
    u[nu] = p;
    elem[nu++] = nlo;
    if (j < R.length && R[j] <= p) starts[nlo++] = p;
  }
  const lo = starts.slice(0, nlo);
  const us = u.subarray(0, nu);
  const whole = Int32Array.of(0, nlo - 1);
  const runsOf = (iv: Float64Array, from: number, to: number) => {
    const out = new Int32Array(to - from);
    for (let i = from; i < to; i += 2) {
      out[i - from] = elem[indexOf(us, iv[i])];
      out[i - from + 1] = elem[indexOf(us, iv[i + 1] + 1)] - 1;
    }
    return out;
  };
  const runs = cs.map((_, ci) => {
    if (sc.at[ci] >= 0) return runsOf(sc.clipped, sc.at[ci], sc.at[ci] + sc.len[ci]);
    return r.length === 1 ? whole : runsOf(R, 0, R.length);
  });
  return { lo, runs };
}
