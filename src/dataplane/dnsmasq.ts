// DHCP pools as one dnsmasq configuration (pure). DNS is off (port=0): dnsmasq serves DHCP
// only, on the links that have a pool. Lease times are in minutes, as the contract says.
import type { ConfigDoc } from '../config/types';
import { parseIfaceAddress, maskBytes, formatIp } from '../config/net';

export function renderDnsmasq(doc: ConfigDoc, leaseFile: string): string {
  const pools = [...doc.dhcp.values()].sort((a, b) => (a.interface < b.interface ? -1 : 1));
  if (pools.length === 0) return '';
  const lines = ['# managed by fwd', 'port=0', 'bind-dynamic', 'no-resolv', 'no-hosts', `dhcp-leasefile=${leaseFile}`];
  pools.forEach((p, i) => {
    const link = doc.interfaces.get(p.interface) ?? doc.vlans.get(p.interface);
    const addr = link?.ip ? parseIfaceAddress(link.ip) : null;
    const mask = addr ? formatIp(4, maskBytes(4, addr.prefix)) : '255.255.255.0';
    const tag = `pool${i}`;
    lines.push(`interface=${p.interface}`);
    lines.push(`dhcp-range=set:${tag},${p.startIp},${p.endIp},${mask},${p.leaseTime}m`);
    // an empty option sends none (dnsmasq would announce itself as router and DNS server)
    lines.push(`dhcp-option=tag:${tag},option:router${p.gateway ? `,${p.gateway}` : ''}`);
    lines.push(`dhcp-option=tag:${tag},option:dns-server${p.dns.length ? `,${p.dns.join(',')}` : ''}`);
  });
  return `${lines.join('\n')}\n`;
}
