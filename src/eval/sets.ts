// Canonical value sets of one rule field, shared by the compiler and the analysis.
// An address set is, per family, a sorted list of disjoint, non-adjacent closed intervals
// (BigInt); it is also written as the minimal list of prefixes. A service set lives in a
// 24-bit key space, key = protocol << 16 | port, so that "tcp 80" and "udp 53" are points of
// one dimension and `any` is the whole space.
import { parseCidr, type Cidr, type Family } from '../config/net';
import type { AddressObj, PortEntry, ServiceObj } from '../config/types';
import { hasPorts, isIcmp, protocolNumber } from '../config/protocols';

export type Interval = [bigint, bigint];

export interface AddrSet {
  v4: Interval[];
  v6: Interval[];
}

export const FIELD_BITS: Record<Family, number> = { 4: 32, 6: 128 };
export const SVC_BITS = 24;
export const SVC_MAX = (1 << SVC_BITS) - 1;

export function bytesToBig(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = 0; i < bytes.length; i++) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

export function cidrInterval(c: Cidr): Interval {
  const host = BigInt(FIELD_BITS[c.family] - c.prefix);
  const lo = (bytesToBig(c.bytes) >> host) << host;
  return [lo, lo + (1n << host) - 1n];
}

/** Are two lists of intervals the same, value by value (one object, or equal ones)? */
export function sameIntervals<T>(a: ReadonlyArray<readonly [T, T]>, b: ReadonlyArray<readonly [T, T]>): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k][0] !== b[k][0] || a[k][1] !== b[k][1]) return false;
  return true;
}

/** Sorts and merges overlapping or adjacent intervals. */
export function mergeIntervals(list: Interval[]): Interval[] {
  const s = [...list].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Interval[] = [];
  for (const [lo, hi] of s) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1n) {
      if (hi > last[1]) last[1] = hi;
    } else out.push([lo, hi]);
  }
  return out;
}

export function fullSet(family: Family): Interval[] {
  return [[0n, (1n << BigInt(FIELD_BITS[family])) - 1n]];
}

export const ANY_ADDR: AddrSet = { v4: fullSet(4), v6: fullSet(6) };

export function addressSet(ips: readonly string[]): AddrSet {
  const v4: Interval[] = [];
  const v6: Interval[] = [];
  for (const t of ips) {
    const c = parseCidr(t);
    if (c) (c.family === 4 ? v4 : v6).push(cidrInterval(c));
  }
  return { v4: mergeIntervals(v4), v6: mergeIntervals(v6) };
}

/** The set of an address field: "" / "any" is everything; an unknown name is empty. */
export function addrFieldSet(name: string, addresses: ReadonlyMap<string, AddressObj>): AddrSet {
  if (name === '' || name === 'any') return ANY_ADDR;
  const a = addresses.get(name);
  return a ? addressSet(a.ips) : { v4: [], v6: [] };
}

export interface Prefix {
  value: bigint; // host bits zero
  len: number; // within a field of `bits` bits
}

/** The minimal list of prefixes whose union is [lo, hi], in address order. */
export function intervalPrefixes(lo: bigint, hi: bigint, bits: number): Prefix[] {
  const out: Prefix[] = [];
  let cur = lo;
  while (cur <= hi) {
    let size = 0; // log2 of the block
    while (size < bits && ((cur >> BigInt(size)) & 1n) === 0n && cur + (1n << BigInt(size + 1)) - 1n <= hi) size++;
    out.push({ value: cur, len: bits - size });
    cur += 1n << BigInt(size);
  }
  return out;
}

/**
 * intervalPrefixes for a field of at most 32 bits (IPv4 addresses, service keys) in plain
 * numbers: the same prefixes in the same order, each passed to `emit`. The compile of 20,000
 * policies splits some 100,000 intervals; in BigInt that was ~80 ms and much of the garbage.
 */
export function eachPrefix32(lo: number, hi: number, bits: number, emit: (value: number, len: number) => void): void {
  // every number here is below 2^34: exact in a double
  let cur = lo;
  while (cur <= hi) {
    let size = 0; // log2 of the block: cur is aligned to it, and the block ends within hi
    let block = 1; // 2 ** size
    while (size < bits && cur % (2 * block) === 0 && cur + 2 * block - 1 <= hi) {
      size++;
      block *= 2;
    }
    emit(cur, bits - size);
    cur += block;
  }
}

export function parsePortEntry(e: PortEntry): [number, number] | null {
  if (typeof e === 'number') return Number.isInteger(e) && e >= 0 && e <= 65535 ? [e, e] : null;
  const m = /^(\d+)-(\d+)$/.exec(e);
  if (!m) return null;
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  return lo <= hi && hi <= 65535 ? [lo, hi] : null;
}

/** Merged key intervals of a list of service objects. */
export function serviceKeyIntervals(services: readonly ServiceObj[]): Array<[number, number]> {
  const list: Array<[number, number]> = [];
  for (const s of services) list.push(...ownKeys(s));
  return mergeKeys(list);
}

/** The ranges of the 16 bits beside the protocol (keyLow) that a service holds. */
export function serviceLowRanges(s: ServiceObj): Array<[number, number]> {
  const n = protocolNumber(s.protocol);
  if (hasPorts(n)) return s.ports.map(parsePortEntry).filter((r): r is [number, number] => r !== null);
  if (!isIcmp(n) || s.icmpType === undefined) return [[0, 0xffff]];
  const t = s.icmpType << 8;
  return s.icmpCode === undefined ? [[t, t | 0xff]] : [[t | s.icmpCode, t | s.icmpCode]];
}

/** A service's own key intervals, unmerged, in the order of its ports. */
function ownKeys(s: ServiceObj): Array<[number, number]> {
  const proto = protocolNumber(s.protocol) << 16;
  return serviceLowRanges(s).map(([lo, hi]) => [proto | lo, proto | hi]);
}

/** mergeIntervals in numbers (keys are 24-bit): the same intervals, without BigInt. */
function mergeKeys(list: Array<[number, number]>): Array<[number, number]> {
  list.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of list) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) {
      if (hi > last[1]) last[1] = hi;
    } else out.push([lo, hi]);
  }
  return out;
}

/**
 * policyServiceSet over one document's services, each service's ports parsed once: the
 * 20,000 generated policies name 11,000 distinct lists of the same 300 services.
 */
export function serviceSetsOf(services: ReadonlyMap<string, ServiceObj>): (names: readonly string[]) => Array<[number, number]> {
  const own = new Map<string, Array<[number, number]>>();
  return (names) => {
    if (names.length === 0 || names.some((n) => n === 'any' || n === '')) return SVC_ANY;
    const list: Array<[number, number]> = [];
    for (const n of names) {
      const s = services.get(n);
      if (!s) continue;
      let keys = own.get(n);
      if (!keys) own.set(n, (keys = mergeKeys(ownKeys(s))));
      // merged copies: mergeKeys writes into the intervals it merges
      for (const [lo, hi] of keys) list.push([lo, hi]);
    }
    return mergeKeys(list);
  };
}

export const SVC_ANY: Array<[number, number]> = [[0, SVC_MAX]];

/** Every source port: what a service without `source-ports` takes. */
export const SPORT_ANY: ReadonlyArray<[number, number]> = [[0, 65535]];

/**
 * Source ports (issue 27) are a fourth field that only some services restrict, so a rule's
 * space is a union of (service keys x source ports) pieces: its services grouped by their
 * source-port set (services without one in a piece of SPORT_ANY). `svc` is the merged keys of
 * a piece's services, `sp` its merged source ports. A rule none of whose services names source
 * ports has no pieces (null): its space is a product, as before.
 */
export interface SportPiece {
  svc: Array<[number, number]>;
  sp: Array<[number, number]>;
}

/** A service's merged source-port intervals, SPORT_ANY when it names none. */
export function sourcePortSet(s: ServiceObj): Array<[number, number]> {
  if (!s.sourcePorts || s.sourcePorts.length === 0) return SPORT_ANY.map(([a, b]) => [a, b]);
  return mergeKeys(s.sourcePorts.map(parsePortEntry).filter((r): r is [number, number] => r !== null));
}

/** The pieces of a list of services (names as a policy lists them; [] or "any": null). */
export function sportPiecesOf(services: ReadonlyMap<string, ServiceObj>, names: readonly string[]): SportPiece[] | null {
  if (names.length === 0 || names.some((n) => n === 'any' || n === '')) return null;
  const objs = names.map((n) => services.get(n)).filter((s): s is ServiceObj => s !== undefined);
  if (!objs.some((s) => s.sourcePorts && s.sourcePorts.length > 0)) return null;
  const groups = new Map<string, { sp: Array<[number, number]>; keys: Array<[number, number]> }>();
  for (const s of objs) {
    const sp = sourcePortSet(s);
    const k = sp.map(([a, b]) => `${a}-${b}`).join(',');
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { sp, keys: [] }));
    g.keys.push(...ownKeys(s));
  }
  return [...groups.values()].map((g) => ({ svc: mergeKeys(g.keys), sp: g.sp }));
}

/** The identity of a rule's pieces (equal keys: equal pieces), '' for none. */
export function sportKeyOf(pieces: readonly SportPiece[] | null): string {
  if (!pieces) return '';
  const iv = (l: Array<[number, number]>) => l.map(([a, b]) => `${a}-${b}`).join(',');
  return pieces.map((p) => `${iv(p.svc)}@${iv(p.sp)}`).sort().join(';');
}

/**
 * The key intervals of a policy's services ([] or a listed "any": everything). Unknown
 * names contribute nothing (cannot happen in a referentially complete document).
 */
export function policyServiceSet(names: readonly string[], services: ReadonlyMap<string, ServiceObj>): Array<[number, number]> {
  if (names.length === 0 || names.some((n) => n === 'any' || n === '')) return SVC_ANY;
  const objs = names.map((n) => services.get(n)).filter((s): s is ServiceObj => s !== undefined);
  return serviceKeyIntervals(objs);
}

/** The key of a packet: protocol and destination port (tcp, udp, sctp), type << 8 | code
 * (icmp, icmpv6: what the packet carries as dstPort, src/eval/types.ts) or 0. */
export function packetKey(protocol: number, dstPort: number): number {
  return hasPorts(protocol) || isIcmp(protocol) ? (protocol << 16) | dstPort : protocol << 16;
}
