// DHCP leases as dnsmasq keeps them in its lease file (one line a lease: expiry in unix
// seconds, 0 for never; MAC; address; host name or "*"; client id or "*"; DHCPv6 lines follow a
// "duid" line and are not ours: the pools are IPv4), grouped by the pool whose range holds the
// address, for GET /api/dhcp/leases.
import fs from 'node:fs';
import { compareIp, parseIp } from '../config/net';
import type { ConfigDoc } from '../config/types';

export interface DhcpLease {
  address: string;
  mac: string;
  hostname: string | null; // null: the client sent none
  expires_at: string | null; // ISO time; null: never
}

export interface PoolLeases {
  interface: string;
  leases: DhcpLease[];
}

/** The IPv4 leases of a dnsmasq lease file's text. */
export function parseLeases(text: string): DhcpLease[] {
  const out: DhcpLease[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('duid ')) break; // DHCPv6 leases from here on
    const [expiry, mac, address, hostname] = line.trim().split(/\s+/);
    if (!hostname || parseIp(address)?.family !== 4 || !/^\d+$/.test(expiry)) continue;
    const secs = Number(expiry);
    out.push({ address, mac, hostname: hostname === '*' ? null : hostname, expires_at: secs === 0 ? null : new Date(secs * 1000).toISOString() });
  }
  return out;
}

/** The lease file's leases, none when it does not exist (no pool has served yet). */
export function readLeaseFile(file: string): DhcpLease[] {
  try {
    return parseLeases(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** Every pool of the document (by link name) with the leases in its range, by address. */
export function leasesByPool(doc: ConfigDoc, leases: DhcpLease[]): PoolLeases[] {
  const inRange = (a: string, start: string, end: string) => {
    const [x, lo, hi] = [parseIp(a), parseIp(start), parseIp(end)];
    return x !== null && lo !== null && hi !== null && compareIp(lo.bytes, x.bytes) <= 0 && compareIp(x.bytes, hi.bytes) <= 0;
  };
  const byAddress = (a: DhcpLease, b: DhcpLease) => compareIp(parseIp(a.address)!.bytes, parseIp(b.address)!.bytes);
  return [...doc.dhcp.values()]
    .sort((a, b) => (a.interface < b.interface ? -1 : 1))
    .map((p) => ({ interface: p.interface, leases: leases.filter((l) => inRange(l.address, p.startIp, p.endIp)).sort(byAddress) }));
}
