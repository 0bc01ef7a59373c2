// DHCP pools and IPv6 router advertisements as one dnsmasq configuration (pure). DNS is off
// (port=0): dnsmasq serves DHCP only, on the links that have a pool, and router advertisements
// (SLAAC, no DHCPv6: `ra-only`) on the links with `ra`, for the /64 prefixes of their IPv6
// addresses (`constructor:`). Lease times are in minutes, as the contract says.
import type { ConfigDoc } from '../config/types';
import { maskBytes, formatIp } from '../config/net';
import { poolSubnet } from '../config/link-addresses';
import { HA_DNSMASQ_LINES } from './ha-services';

/** The links that serve router advertisements, by name. */
export function raLinks(doc: ConfigDoc): string[] {
  return [...doc.interfaces.values(), ...doc.vlans.values()].filter((l) => l.ra).map((l) => l.name).sort();
}

export function renderDnsmasq(doc: ConfigDoc, leaseFile: string): string {
  const pools = [...doc.dhcp.values()].sort((a, b) => (a.interface < b.interface ? -1 : 1));
  const ra = raLinks(doc);
  if (pools.length === 0 && ra.length === 0) return '';
  const lines = ['# managed by fwd', 'port=0', 'bind-dynamic', 'no-resolv', 'no-hosts', `dhcp-leasefile=${leaseFile}`, ...(doc.ha?.enabled ? HA_DNSMASQ_LINES : [])];
  pools.forEach((p, i) => {
    const addr = poolSubnet(doc.interfaces.get(p.interface) ?? doc.vlans.get(p.interface), p.startIp);
    const mask = addr ? formatIp(4, maskBytes(4, addr.prefix)) : '255.255.255.0';
    const tag = `pool${i}`;
    lines.push(`interface=${p.interface}`);
    lines.push(`dhcp-range=set:${tag},${p.startIp},${p.endIp},${mask},${p.leaseTime}m`);
    // an empty option sends none (dnsmasq would announce itself as router and DNS server)
    lines.push(`dhcp-option=tag:${tag},option:router${p.gateway ? `,${p.gateway}` : ''}`);
    lines.push(`dhcp-option=tag:${tag},option:dns-server${p.dns.length ? `,${p.dns.join(',')}` : ''}`);
  });
  if (ra.length) lines.push('enable-ra');
  for (const name of ra) {
    if (!pools.some((p) => p.interface === name)) lines.push(`interface=${name}`);
    lines.push(`dhcp-range=::,constructor:${name},ra-only`);
  }
  return `${lines.join('\n')}\n`;
}
