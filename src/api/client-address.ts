// Who the client is: the peer address of the connection, or, when that peer is a proxy the
// operator trusts (FW_TRUSTED_PROXIES), the client that proxy names in X-Forwarded-For. The
// login limit, the audit trail ("from ...") and the FW_METRICS allow-list use it.
import { cidrContainsIp, clientIp, parseCidr, type Cidr, type IpAddr } from '../config/net';

/** A comma list of addresses or networks (FW_METRICS, FW_TRUSTED_PROXIES); an address is a /32 or /128. */
export function parseAddressList(text: string, setting: string): Cidr[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    const c = parseCidr(entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`);
    if (!c) throw new Error(`${setting}: "${entry}" is not an address or a network`);
    return c;
  });
}

function trusted(ip: IpAddr | null, proxies: readonly Cidr[]): boolean {
  return ip !== null && proxies.some((c) => cidrContainsIp(c, ip));
}

/**
 * The client's address: `peer` (the connection's) unless it is a trusted proxy and
 * `forwardedFor` (X-Forwarded-For) names one. Then the entries are read from the right (each
 * proxy appends the address it received from), trusted proxies skipped; the first other entry
 * is the client. Entries left of it are the client's own words and never believed. A proxy
 * that wrote something that is not an address leaves the peer as the client.
 */
export function clientAddress(peer: string, forwardedFor: string, proxies: readonly Cidr[]): string {
  if (proxies.length === 0 || forwardedFor === '' || !trusted(clientIp(peer), proxies)) return peer;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i].trim();
    const ip = clientIp(hop);
    if (!ip) return peer;
    if (i === 0 || !trusted(ip, proxies)) return hop;
  }
  return peer;
}
