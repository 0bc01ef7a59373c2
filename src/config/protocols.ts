// IP protocols of services and packets: the names a service's `protocol` accepts, their
// numbers, and which of them carry ports or an ICMP type and code.
//
// Decisions: a protocol is stored by its name when it has one here, else as its decimal
// number ("253"); a number with a name is stored as the name (6 is "tcp", and then needs
// ports like "tcp"). "ipip" is IP-in-IP, protocol 4 (as `ip tunnel` and the firewalls
// operators come from name it). The data plane matches numbers, never names, so nothing
// depends on the host's /etc/protocols.

export const PROTO = { icmp: 1, tcp: 6, udp: 17, icmpv6: 58, sctp: 132 } as const;

/** Named protocols, by name. */
export const PROTOCOL_NUMBERS: ReadonlyMap<string, number> = new Map([
  ['icmp', 1], ['igmp', 2], ['ipip', 4], ['tcp', 6], ['egp', 8], ['udp', 17], ['ipv6', 41], ['rsvp', 46],
  ['gre', 47], ['esp', 50], ['ah', 51], ['icmpv6', 58], ['eigrp', 88], ['ospf', 89], ['pim', 103],
  ['vrrp', 112], ['l2tp', 115], ['sctp', 132], ['udplite', 136],
]);

const NAMES = new Map([...PROTOCOL_NUMBERS].map(([name, n]) => [n, name]));

/** The number of a stored protocol ("tcp", "gre", "253"). */
export function protocolNumber(stored: string): number {
  return PROTOCOL_NUMBERS.get(stored) ?? Number(stored);
}

/** How a protocol number is stored: its name, or its decimal number. */
export function protocolName(n: number): string {
  return NAMES.get(n) ?? String(n);
}

/** Protocols whose services name destination (and source) ports. */
export function hasPorts(n: number): boolean {
  return n === PROTO.tcp || n === PROTO.udp || n === PROTO.sctp;
}

/** ICMP for IPv4 or IPv6: services may name a type and a code. */
export function isIcmp(n: number): boolean {
  return n === PROTO.icmp || n === PROTO.icmpv6;
}

/** A protocol as a payload gives it (issue 41: services and eval alike): a name of
 * PROTOCOL_NUMBERS, a number 0-255 as a JSON integer or as a decimal string ("47"); -1 for
 * anything else. */
export function protocolOf(value: unknown): number {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 255 ? value : -1;
  if (typeof value !== 'string') return -1;
  const named = PROTOCOL_NUMBERS.get(value);
  if (named !== undefined) return named;
  if (!/^\d{1,3}$/.test(value)) return -1;
  const n = Number(value);
  return n <= 255 ? n : -1;
}
