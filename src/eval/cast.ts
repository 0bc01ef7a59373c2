// Destinations the kernel never forwards (issue 41): a connected subnet's broadcast address,
// the limited broadcast 255.255.255.255, and multicast (IPv4 224.0.0.0/4, IPv6 ff00::/8). A
// router delivers such a packet to itself (or drops it) and no forward rule ever sees it, so
// eval answers deny with the reason `broadcast` or `multicast` (docs/eval.md). A /31 and a /32
// have no broadcast address (RFC 3021), and IPv6 has no broadcast at all.
import type { Cidr } from '../config/net';
import { DENY_BROADCAST, DENY_MULTICAST } from './batch';

/** The broadcast addresses (as IPv4 words) of the given connected subnets, distinct, sorted. */
export function broadcastWords(subnets: Iterable<Cidr>): Int32Array {
  const out = new Set<number>();
  for (const s of subnets) {
    if (s.family !== 4 || s.prefix > 30) continue;
    const net = (s.bytes[0] << 24) | (s.bytes[1] << 16) | (s.bytes[2] << 8) | s.bytes[3];
    const host = s.prefix === 0 ? -1 : (1 << (32 - s.prefix)) - 1;
    out.add(net | host);
  }
  return Int32Array.from([...out].sort((a, b) => a - b));
}

/** DENY_BROADCAST, DENY_MULTICAST, or 0 for an IPv4 destination word (a short list: a linear scan). */
export function castCode4(d0: number, broadcasts: Int32Array): number {
  if (d0 >>> 28 === 0xe) return DENY_MULTICAST;
  if (d0 === -1) return DENY_BROADCAST;
  for (let i = 0; i < broadcasts.length; i++) if (broadcasts[i] === d0) return DENY_BROADCAST;
  return 0;
}

/** DENY_MULTICAST or 0 for an IPv6 destination's first word. */
export function castCode6(d0: number): number {
  return d0 >>> 24 === 0xff ? DENY_MULTICAST : 0;
}
