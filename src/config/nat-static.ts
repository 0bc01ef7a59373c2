// Two-way static NAT (issue 41, docs/api.md "NAT rules"): one rule {type: "static", src-addr:
// <inside>, translated-ip: <outside>} maps the inside network to the outside one host by host
// (the host bits are kept). Outbound, the inside host's connections leave with the outside
// address as their source (snat); inbound, connections to the outside address reach the inside
// host (dnat). The inside is one network (one host, or a prefix as large as the outside one);
// every consumer (eval, the analysis, nft, the traffic log) takes the pair from here.
import type { ConfigDoc, NatRule } from './types';
import { GroupFlattener } from './groups';
import { cidrContainsIp, formatIp, maskBytes, parseCidr, parseIp, type Cidr } from './net';

/**
 * The most addresses a static rule maps: the compiled evaluator holds one entry per host pair
 * (each answers its own translated address), so a /24 (IPv4) or /120 (IPv6) at most.
 */
export const STATIC_MAX_HOSTS = 256;

export interface StaticPair {
  inside: Cidr;
  outside: Cidr;
}

/** The outside network of a static rule's translated-ip (an address is a /32 or /128), or null. */
function outsideOf(translatedIp: string): Cidr | null {
  if (translatedIp === '' || translatedIp.includes('-')) return null;
  return parseCidr(translatedIp);
}

/**
 * The inside and outside networks of a static rule, or the problem in words: the src-addr must
 * come down to exactly one network, of the outside's family and size, of at most
 * STATIC_MAX_HOSTS addresses.
 */
export function staticPair(doc: ConfigDoc, r: NatRule, groups: GroupFlattener = new GroupFlattener(doc)): StaticPair | string {
  const outside = outsideOf(r.translatedIp);
  if (outside === null) return `translated-ip "${r.translatedIp}" is not an address or a prefix; a static rule maps to one address or one prefix`;
  if (r.srcAddr === '' || r.srcAddr === 'any') return 'a static rule needs src-addr: the inside host or network';
  const obj = groups.address(r.srcAddr);
  if (!obj || obj.ips.length !== 1 || doc.addresses.get(r.srcAddr)?.fqdn) {
    return `src-addr ${r.srcAddr} holds ${obj?.ips.length ?? 0} networks; a static rule maps exactly one inside host or network`;
  }
  const inside = parseCidr(obj.ips[0]);
  if (!inside) return `src-addr ${r.srcAddr} holds ${obj.ips[0]}, not a network`;
  const size = (c: Cidr) => `a /${c.prefix}`;
  if (inside.family !== outside.family) return `src-addr ${r.srcAddr} (${obj.ips[0]}) and translated-ip ${r.translatedIp} are of different families`;
  if (inside.prefix !== outside.prefix) {
    return `src-addr ${r.srcAddr} (${obj.ips[0]}) is ${size(inside)} and translated-ip ${r.translatedIp} ${size(outside)}; a static rule maps a host to an address or a prefix to a prefix of the same size`;
  }
  const hostBits = (inside.family === 4 ? 32 : 128) - inside.prefix;
  if (hostBits > Math.log2(STATIC_MAX_HOSTS)) return `a static rule maps at most ${STATIC_MAX_HOSTS} addresses (/${inside.family === 4 ? 24 : 120}); ${obj.ips[0]} holds more`;
  return { inside, outside };
}

/** `bytes` (an address of `from`) moved into `to`: the network bits of `to`, the host bits kept. */
export function mapAddress(from: Cidr, to: Cidr, bytes: Uint8Array): Uint8Array {
  const mask = maskBytes(to.family, to.prefix);
  return to.bytes.map((b, i) => (b & mask[i]) | (bytes[i] & ~mask[i] & 0xff));
}

/** The host pairs of a static rule in address order: [inside host, outside host] as text. */
export function staticHosts(p: StaticPair): Array<[string, string]> {
  const f = p.inside.family;
  const count = 2 ** ((f === 4 ? 32 : 128) - p.inside.prefix);
  const out: Array<[string, string]> = [];
  const host = new Uint8Array(p.inside.bytes);
  for (let k = 0; k < count; k++) {
    out.push([formatIp(f, host), formatIp(f, mapAddress(p.inside, p.outside, host))]);
    // the next host: add one at the last byte (count <= 256 never carries past the host bits)
    for (let i = host.length - 1; i >= 0 && ++host[i] === 256; i--) host[i] = 0;
  }
  return out;
}

/** The nft text of a network: an address alone when it is one host. */
export function nftNet(c: Cidr): string {
  const all = c.family === 4 ? 32 : 128;
  return c.prefix === all ? formatIp(c.family, c.bytes) : `${formatIp(c.family, c.bytes)}/${c.prefix}`;
}

/** The inside address an inbound connection to `outside` (text) reaches, or null when the rule does not map it. */
export function staticInside(doc: ConfigDoc, r: NatRule, outside: string): string | null {
  const pair = staticPair(doc, r);
  const ip = parseIp(outside);
  if (typeof pair === 'string' || !ip || !cidrContainsIp(pair.outside, ip)) return null;
  return formatIp(ip.family, mapAddress(pair.outside, pair.inside, ip.bytes));
}
