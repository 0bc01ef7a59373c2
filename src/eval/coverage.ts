// Regions of the analysis and the set operations on their fields.
//
// A region is a product of five fields: source zones and destination zones (bit sets, bit 0 is
// "none"), source address, destination address and service key (sorted disjoint intervals).
// How earlier rules take a region's packets is paint.ts.
import type { Interval } from './sets';

export interface Region {
  zs: bigint;
  zd: bigint;
  s: Interval[];
  d: Interval[];
  v: Interval[];
  /** log2 of each field's size, filled in on first use (cover-search.ts) */
  logs?: Float64Array;
}

const FIELDS = ['s', 'd', 'v', 'zs', 'zd'] as const;

export function subtract(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const [lo0, hi] of a) {
    let lo = lo0;
    while (j < b.length && b[j][1] < lo) j++;
    let k = j;
    while (lo <= hi && k < b.length && b[k][0] <= hi) {
      if (b[k][0] > lo) out.push([lo, b[k][0] - 1n]);
      lo = b[k][1] + 1n;
      k++;
    }
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

export function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    const lo = a[i][0] > b[j][0] ? a[i][0] : b[j][0];
    const hi = a[i][1] < b[j][1] ? a[i][1] : b[j][1];
    if (lo <= hi) out.push([lo, hi]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

/** Is a a subset of b? */
export function within(a: Interval[], b: Interval[]): boolean {
  return subtract(a, b).length === 0;
}

/** Do a and b share a value? */
export function meets(a: Interval[], b: Interval[]): boolean {
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    if (a[i][1] < b[j][0]) i++;
    else if (b[j][1] < a[i][0]) j++;
    else return true;
  }
  return false;
}

/** Does rule o hold all of R in field number k (FIELDS order)? */
function coversField(o: Region, R: Region, k: number): boolean {
  const name = FIELDS[k];
  if (name === 'zs' || name === 'zd') return (R[name] & ~o[name]) === 0n;
  return within(R[name], o[name]);
}

/** Does rule o hold all of R? */
export function covers(o: Region, R: Region): boolean {
  for (let k = 0; k < FIELDS.length; k++) if (!coversField(o, R, k)) return false;
  return true;
}

/** The positions of the set bits of a zone mask, lowest first. */
export function bitsOf(mask: bigint): number[] {
  const out: number[] = [];
  // 32 bits a BigInt step (a probe asks this of every policy's zones)
  for (let base = 0; mask > 0n; base += 32, mask >>= 32n) {
    let w = Number(mask & 0xffffffffn);
    for (let i = 0; w !== 0; i++, w = Math.floor(w / 2)) if (w % 2 === 1) out.push(base + i);
  }
  return out;
}
