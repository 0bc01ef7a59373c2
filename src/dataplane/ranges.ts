// Address ranges: nftables interval sets refuse overlapping elements, and the firewall's
// decisions (zone of an address, egress of a route) are "most specific prefix wins" functions
// of one address. Both are flattened here into disjoint, sorted ranges, the shape an nft
// interval set or map holds. Addresses are bigints so IPv4 and IPv6 share the code.
import { formatIp, type Cidr, type Family } from '../config/net';

export interface Seg<V> {
  lo: bigint;
  hi: bigint; // inclusive
  value: V;
}

export interface PrefixEntry<V> {
  net: Cidr;
  /** lower wins, compared element by element; the prefix length is not implied: put -prefix first */
  rank: number[];
  value: V;
}

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

export function bytesToBig(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

export function bigToBytes(family: Family, v: bigint): Uint8Array {
  const out = new Uint8Array(family === 4 ? 4 : 16);
  for (let i = out.length - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export function cidrRange(c: Cidr): [bigint, bigint] {
  const lo = bytesToBig(c.bytes);
  const size = 1n << BigInt(BITS[c.family] - c.prefix);
  const base = lo - (lo % size);
  return [base, base + size - 1n];
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Disjoint segments where some entry holds the address, each with the best entry's value. */
export function flatten<V>(family: Family, entries: PrefixEntry<V>[]): Seg<V>[] {
  const own = entries.filter((e) => e.net.family === family).map((e) => ({ e, r: cidrRange(e.net) }));
  const points = [...new Set(own.flatMap(({ r }) => [r[0], r[1] + 1n]))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Seg<V>[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const p = points[i];
    let best: PrefixEntry<V> | null = null;
    for (const { e, r } of own) {
      if (r[0] <= p && p <= r[1] && (best === null || compareRank(e.rank, best.rank) < 0)) best = e;
    }
    if (best !== null) push(out, { lo: p, hi: points[i + 1] - 1n, value: best.value });
  }
  return out;
}

/** Appends a segment, merging it with the last one when they touch and hold the same value. */
function push<V>(out: Seg<V>[], s: Seg<V>): void {
  const last = out[out.length - 1];
  if (last && last.hi + 1n === s.lo && last.value === s.value) last.hi = s.hi;
  else out.push({ ...s });
}

/** `primary` where it is defined, `fallback` in its gaps. Both sorted and disjoint. */
export function overlay<V>(primary: Seg<V>[], fallback: Seg<V>[]): Seg<V>[] {
  const cuts: Seg<V>[] = [];
  for (const f of fallback) {
    let lo = f.lo;
    for (const p of primary) {
      if (p.hi < lo || p.lo > f.hi) continue;
      if (p.lo > lo) cuts.push({ lo, hi: p.lo - 1n, value: f.value });
      lo = p.hi + 1n;
      if (lo > f.hi) break;
    }
    if (lo <= f.hi) cuts.push({ lo, hi: f.hi, value: f.value });
  }
  const all = [...primary, ...cuts].sort((a, b) => (a.lo < b.lo ? -1 : 1));
  const out: Seg<V>[] = [];
  for (const s of all) push(out, s);
  return out;
}

/** The ranges whose value passes `keep`, adjacent ones merged. */
export function select<V>(segs: Seg<V>[], keep: (v: V) => boolean): Array<[bigint, bigint]> {
  const out: Seg<true>[] = [];
  for (const s of segs) if (keep(s.value)) push(out, { lo: s.lo, hi: s.hi, value: true });
  return out.map((s) => [s.lo, s.hi]);
}

/** The union of networks as disjoint ranges. */
export function union(family: Family, nets: Cidr[]): Array<[bigint, bigint]> {
  return select(flatten(family, nets.map((net) => ({ net, rank: [], value: true }))), () => true);
}

/** One nft set element: a prefix when the range is exactly one, else "lo-hi". */
export function formatRange(family: Family, lo: bigint, hi: bigint): string {
  const size = hi - lo + 1n;
  const bits = BITS[family];
  if ((size & (size - 1n)) === 0n && lo % size === 0n) {
    const prefix = bits - (size.toString(2).length - 1);
    const ip = formatIp(family, bigToBytes(family, lo));
    return prefix === bits ? ip : `${ip}/${prefix}`;
  }
  return `${formatIp(family, bigToBytes(family, lo))}-${formatIp(family, bigToBytes(family, hi))}`;
}
