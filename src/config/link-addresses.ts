// A link's addresses (issue 32): an interface or VLAN holds `addresses`, IPv4 and IPv6, several
// of each, and `ip`, the seed's field, which is always the first IPv4 address of the list (else
// the first address, else ""). The document stores `addresses` only when a link has more than
// one (a link with one address or none is exactly what the seed stored, and answers exactly
// as the seed answered); linkAddresses() gives the list either way.
import { FwError } from '../errors';
import { cidrContainsIp, parseCidr, parseIfaceAddress, parseIp, type Cidr } from './net';
import { checkIfaceAddress, checkUnique } from './validate';

export interface Addressed {
  ip: string;
  addresses?: string[];
}

/** Every address of the link, "address/prefix" with host bits, the primary (`ip`) first among its family. */
export function linkAddresses(l: Addressed): string[] {
  return l.addresses ?? (l.ip ? [l.ip] : []);
}

/** The link's addresses parsed: `addr` keeps the host bits, `subnet` is the connected network. */
export function linkCidrs(l: Addressed): Array<{ text: string; addr: Cidr; subnet: Cidr }> {
  return linkAddresses(l).flatMap((text) => {
    const addr = parseIfaceAddress(text);
    const subnet = parseCidr(text);
    return addr && subnet ? [{ text, addr, subnet }] : [];
  });
}

/** The seed's `ip` of a list: the first IPv4 address, else the first, else "". */
export function primaryAddress(list: string[]): string {
  return list.find((a) => !a.includes(':')) ?? list[0] ?? '';
}

/** `ip` and the stored `addresses` of a list (none stored for one address or none). */
export function addressFields(list: string[]): Addressed {
  return list.length > 1 ? { ip: primaryAddress(list), addresses: list } : { ip: list[0] ?? '' };
}

/**
 * The addresses a create or update body gives a link whose addresses were `old`:
 * - `addresses` replaces the list (each an address with a prefix, none twice); an `ip` beside
 *   it must be the list's first IPv4 address (or its first address);
 * - `ip` alone replaces the link's primary address where it stood ("" removes every address,
 *   as in the seed: the link has none); the result must still have it first (an IPv6 `ip` on a
 *   link with IPv4 addresses is refused: write `addresses`).
 */
export function addressesFromBody(b: { ip?: string; addresses?: string[] }, old: Addressed): Addressed {
  if (b.addresses !== undefined) {
    const list = checkUnique('addresses', b.addresses.map((a, i) => nonEmpty(`addresses[${i}]`, a)), 'ERR_NET_1005');
    const primary = primaryAddress(list);
    if (b.ip !== undefined && checkIfaceAddress('ip', b.ip) !== primary) {
      throw new FwError('ERR_NET_1005', `field "ip": "${b.ip}" is not the first IPv4 address (or the first address) of "addresses", ${primary === '' ? 'which is empty' : `"${primary}"`}`);
    }
    return addressFields(list);
  }
  if (b.ip === undefined) return old.addresses ? { ip: old.ip, addresses: old.addresses } : { ip: old.ip };
  const ip = checkIfaceAddress('ip', b.ip);
  if (ip === '') return { ip: '' };
  const list = linkAddresses(old);
  const at = list.indexOf(old.ip);
  const next = at < 0 ? [ip, ...list] : list.map((a, i) => (i === at ? ip : a));
  checkUnique('addresses', next, 'ERR_NET_1005');
  if (primaryAddress(next) !== ip) {
    throw new FwError('ERR_NET_1005', `field "ip": "${ip}" would not be the first IPv4 address of the link (it has ${next.filter((a) => a !== ip).join(', ')}); set "addresses" instead`);
  }
  return addressFields(next);
}

function nonEmpty(field: string, value: string): string {
  if (value === '') throw new FwError('ERR_NET_1001', `field "${field}": "" is not an address with a prefix such as 192.168.1.1/24`);
  return checkIfaceAddress(field, value);
}

/**
 * The IPv4 subnet a DHCP pool on `link` serves: that of the link's IPv4 address whose subnet
 * holds the pool's start, else of its first IPv4 address; null when it has none.
 */
export function poolSubnet(link: Addressed | undefined, startIp: string): Cidr | null {
  const v4 = link ? linkCidrs(link).filter((c) => c.addr.family === 4) : [];
  const start = parseIp(startIp);
  const holder = start ? v4.find((c) => cidrContainsIp(c.subnet, start)) : undefined;
  return (holder ?? v4[0])?.addr ?? null;
}
