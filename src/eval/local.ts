// Packets to the firewall itself (issue 41): which destinations are the firewall's, and the
// links' management shortcuts that judge such a packet when no local policy matches it
// (docs/local-policies.md). Shared by the compiler (compile.ts) and the compiled pipeline.
import type { Cidr, Family } from '../config/net';
import type { Management } from '../config/types';
import { PROTO } from '../config/protocols';

/** Management shortcut bits of a link (IfaceMeta.mgmt); DHCP: the link has a DHCP pool (udp/67). */
export const MGMT: Readonly<Record<Management | 'dhcp', number>> = { ping: 1, ssh: 2, https: 4, http: 8, dhcp: 16 };

export function managementBits(management: readonly Management[], dhcpPool: boolean): number {
  let bits = dhcpPool ? MGMT.dhcp : 0;
  for (const m of management) bits |= MGMT[m] ?? 0;
  return bits;
}

/** The addresses (host bits kept) as words: IPv4 one word each, IPv6 four. */
export function ownAddressWords(addrs: Iterable<Cidr>): Record<Family, Int32Array> {
  const w4: number[] = [], w6: number[] = [];
  for (const a of addrs) {
    const b = a.bytes;
    const word = (i: number) => (b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3];
    if (a.family === 4) w4.push(word(0));
    else w6.push(word(0), word(4), word(8), word(12));
  }
  return { 4: Int32Array.from(w4), 6: Int32Array.from(w6) };
}

/** Whether the destination words w[at..] (IPv4: w[at]) are one of `own`'s. */
export function isOwn(family: Family, w: Int32Array, at: number, own: Int32Array): boolean {
  if (family === 4) {
    for (let i = 0; i < own.length; i++) if (own[i] === w[at]) return true;
    return false;
  }
  for (let i = 0; i < own.length; i += 4) {
    if (own[i] === w[at] && own[i + 1] === w[at + 1] && own[i + 2] === w[at + 2] && own[i + 3] === w[at + 3]) return true;
  }
  return false;
}

/** Whether a link's shortcuts `bits` accept the packet: ping is an ICMP echo request (type 8,
 * ICMPv6 128, any code), ssh, https, http TCP 22, 443, 80; a DHCP pool UDP 67. `key` is the
 * service key, protocol << 16 | port (an ICMP packet's type << 8 | code). */
export function managementAccepts(bits: number, key: number): boolean {
  if (bits === 0) return false;
  const proto = key >>> 16, port = key & 0xffff;
  if (proto === PROTO.tcp) return (port === 22 && (bits & MGMT.ssh) !== 0) || (port === 443 && (bits & MGMT.https) !== 0) || (port === 80 && (bits & MGMT.http) !== 0);
  if (proto === PROTO.udp) return port === 67 && (bits & MGMT.dhcp) !== 0;
  if (proto === PROTO.icmp) return port >> 8 === 8 && (bits & MGMT.ping) !== 0;
  if (proto === PROTO.icmpv6) return port >> 8 === 128 && (bits & MGMT.ping) !== 0;
  return false;
}
