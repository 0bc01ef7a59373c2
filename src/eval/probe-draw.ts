// The values of a probe packet (probe.ts): a corner of a field or a random value in it, drawn
// from the probe's PRNG. randomIn is the definition, in BigInt; randomIn32 (IPv4 addresses,
// service keys) and draw6 (IPv6 addresses, as the four packet words) give the same values
// from the same draws in numbers: the probes draw a packet or more for nearly every one of
// 20,000 policies, 24 of them for each policy no probe reaches, and BigInt was most of it.
import type { Interval } from './sets';

/** A random value of `list` (corner 0: the first value, 1: the last), BigInt: the definition. */
export function randomIn(list: Interval[], r: () => number, corner: number): bigint {
  if (corner === 0) return list[0][0];
  if (corner === 1) return list[list.length - 1][1];
  const [lo, hi] = list[Math.floor(r() * list.length)];
  const span = hi - lo + 1n;
  if (span <= 0x10000000000000n) return lo + BigInt(Math.floor(r() * Number(span)));
  let x = 0n;
  for (let i = 0; i < 5; i++) x = (x << 32n) | BigInt(Math.floor(r() * 4294967296));
  return lo + (x % span);
}

/** randomIn for a field below 2^32, in numbers. */
export function randomIn32(list: Interval[], r: () => number, corner: number): number {
  if (corner === 0) return Number(list[0][0]);
  if (corner === 1) return Number(list[list.length - 1][1]);
  const [lo, hi] = list[Math.floor(r() * list.length)];
  const span = Number(hi - lo) + 1;
  return Number(lo) + Math.floor(r() * span);
}

const SMALL = 0; // span up to 2^52: the first value plus one draw
const ALIGNED = 1; // a power of two the first value is a multiple of: the draws' low bits
const OTHER = 2; // anything else (no address object makes one): BigInt

/** An IPv6 field's intervals as randomIn sees them: per interval its first and last value
 * as 4 words (most significant first) and how a draw lands in it. */
interface Prepared {
  lo: Uint32Array;
  hi: Uint32Array;
  kind: Uint8Array;
  /** SMALL: the span; ALIGNED: log2 of the span */
  size: Float64Array;
}

/** per field (regions share them: an address object's), made on first use */
const prepared = new WeakMap<Interval[], Prepared>();

const wordOf = (x: bigint, w: number) => Number((x >> BigInt(32 * (3 - w))) & 0xffffffffn);

function prepare(list: Interval[]): Prepared {
  let p = prepared.get(list);
  if (p) return p;
  const n = list.length;
  p = { lo: new Uint32Array(4 * n), hi: new Uint32Array(4 * n), kind: new Uint8Array(n), size: new Float64Array(n) };
  for (let k = 0; k < n; k++) {
    const [lo, hi] = list[k];
    for (let w = 0; w < 4; w++) {
      p.lo[4 * k + w] = wordOf(lo, w);
      p.hi[4 * k + w] = wordOf(hi, w);
    }
    const span = hi - lo + 1n;
    const bits = span.toString(2).length - 1;
    if (span <= 0x10000000000000n) {
      p.kind[k] = SMALL;
      p.size[k] = Number(span);
    } else if (span === 1n << BigInt(bits) && lo % span === 0n) {
      p.kind[k] = ALIGNED;
      p.size[k] = bits;
    } else p.kind[k] = OTHER;
  }
  prepared.set(list, p);
  return p;
}

/** The low `bits` bits of the 32-bit word w (0 most significant) of a 128-bit value. */
function lowMask(bits: number, w: number): number {
  const below = bits - 32 * (3 - w); // bits of the value that fall in word w and below it
  return below >= 32 ? 0xffffffff : below <= 0 ? 0 : 2 ** below - 1;
}

/** randomIn for an IPv6 field, written as its four words (int32, most significant first) to
 * q[at..at + 3]. */
export function draw6(list: Interval[], r: () => number, corner: number, q: Int32Array, at: number): void {
  const p = prepare(list);
  if (corner === 0 || corner === 1) {
    const words = corner === 0 ? p.lo : p.hi;
    const k = corner === 0 ? 0 : list.length - 1;
    for (let w = 0; w < 4; w++) q[at + w] = words[4 * k + w] | 0;
    return;
  }
  const k = Math.floor(r() * list.length);
  const kind = p.kind[k];
  if (kind === SMALL) {
    // lo + m, m < 2^52: added a word at a time from the least significant, with the carry
    let add = Math.floor(r() * p.size[k]);
    for (let w = 3; w >= 0; w--) {
      const sum = p.lo[4 * k + w] + (add % 4294967296);
      q[at + w] = sum % 4294967296 | 0;
      add = Math.floor(add / 4294967296) + (sum >= 4294967296 ? 1 : 0);
    }
    return;
  }
  const draws = [0, 0, 0, 0, 0];
  for (let i = 0; i < 5; i++) draws[i] = Math.floor(r() * 4294967296);
  if (kind === ALIGNED) {
    // x % span: the low bits of x (words 1..4 of the draws: the first is past 128 bits); lo
    // has none of them set, so lo + that is lo | that
    for (let w = 0; w < 4; w++) q[at + w] = (p.lo[4 * k + w] | (draws[w + 1] & lowMask(p.size[k], w))) | 0;
    return;
  }
  let x = 0n;
  for (const d of draws) x = (x << 32n) | BigInt(d);
  const [lo, hi] = list[k];
  const v = lo + (x % (hi - lo + 1n));
  for (let w = 0; w < 4; w++) q[at + w] = wordOf(v, w) | 0;
}
