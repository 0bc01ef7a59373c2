// A search across every object type (GET /api/search): by name (a case-insensitive part of
// an object's name or rule id), by address (which objects hold 10.1.2.3: addresses and zone
// networks containing it, interfaces and VLANs whose subnet does, policies and NAT rules using
// such an address, NAT rules translating to it) and by port (services whose ports or ranges
// hold it, NAT rules translating to it) and by tag (the policies and NAT rules carrying it, in
// any case: the only objects with tags).
import { cidrContainsIp, parseCidrKeepHost, type IpAddr } from './net';
import { parsePool } from './nat-pool';
import type { ConfigDoc, GroupObj, PortEntry } from './types';

export interface SearchHit {
  kind: string;
  key: string;
  /** a policy's or NAT rule's name, when it has one: an id alone says little (issue 43) */
  name?: string;
  /** why it matched: the field and the value that did */
  match: string;
}

/** A policy or NAT rule hit, named beside its id when it has a name. */
function ruleHit(kind: 'policy' | 'nat', r: { id: number; name?: string }, match: string): SearchHit {
  return r.name ? { kind, key: String(r.id), name: r.name, match } : { kind, key: String(r.id), match };
}

function holds(cidrs: string[], ip: IpAddr): string | undefined {
  return cidrs.find((c) => {
    const n = c ? parseCidrKeepHost(c) : null;
    return n !== null && cidrContainsIp(n, ip);
  });
}

/** A NAT rule's translated address or pool (snat) holds the address. */
function poolHolds(text: string, ip: IpAddr): boolean {
  const p = text === '' ? null : parsePool(text);
  if (!p || p.family !== ip.family) return false;
  const le = (a: Uint8Array, b: Uint8Array) => { for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i]; return true; };
  return le(p.first, ip.bytes) && le(ip.bytes, p.last);
}

function portHolds(ports: PortEntry[], port: number): PortEntry | undefined {
  return ports.find((p) => {
    if (typeof p === 'number') return p === port;
    const [lo, hi] = p.split('-').map(Number);
    return port >= lo && port <= hi;
  });
}

/**
 * The groups holding any of `names` at any depth, sorted, nearest first: a group holding a
 * named member directly, then the groups holding those, and so on (each once).
 */
function groupsHoldingAny(groups: ReadonlyMap<string, GroupObj>, names: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  const out: string[] = [];
  for (let frontier = new Set(names); frontier.size;) {
    const next = new Set<string>();
    for (const g of groups.values()) if (!found.has(g.name) && g.members.some((m) => frontier.has(m))) next.add(g.name);
    for (const g of [...next].sort()) { found.add(g); out.push(g); }
    frontier = next;
  }
  return out;
}

export function searchByName(doc: ConfigDoc, text: string): SearchHit[] {
  const q = text.toLowerCase();
  const out: SearchHit[] = [];
  const named: Array<[string, Map<string, unknown>]> = [['address', doc.addresses], ['service', doc.services], ['address-group', doc.addressGroups], ['service-group', doc.serviceGroups], ['zone', doc.zones], ['interface', doc.interfaces], ['vlan', doc.vlans], ['dhcp', doc.dhcp]];
  for (const [kind, table] of named) for (const key of table.keys()) if (key.toLowerCase().includes(q)) out.push({ kind, key, match: `name ${key}` });
  for (const r of doc.routes) if (String(r.id) === text || r.description.toLowerCase().includes(q)) out.push({ kind: 'route', key: String(r.id), match: `route ${r.id}` });
  for (const p of doc.policies) {
    if (String(p.id) === text) out.push(ruleHit('policy', p, `id ${p.id}`));
    else if (p.name?.toLowerCase().includes(q)) out.push(ruleHit('policy', p, `name ${p.name}`));
  }
  for (const n of doc.nat) if (String(n.id) === text || n.description.toLowerCase().includes(q)) out.push(ruleHit('nat', n, `nat ${n.id}`));
  return out;
}

export function searchByAddress(doc: ConfigDoc, ip: IpAddr): SearchHit[] {
  const out: SearchHit[] = [];
  const addresses = new Set<string>();
  for (const a of doc.addresses.values()) {
    const c = holds(a.ips, ip);
    if (c) { addresses.add(a.name); out.push({ kind: 'address', key: a.name, match: `ips ${c}` }); }
  }
  // groups holding such an address at any depth: a policy naming one holds the address too
  for (const name of groupsHoldingAny(doc.addressGroups, addresses)) {
    out.push({ kind: 'address-group', key: name, match: `members ${doc.addressGroups.get(name)!.members.find((m) => addresses.has(m))}` });
    addresses.add(name);
  }
  for (const z of doc.zones.values()) { const c = holds(z.networks, ip); if (c) out.push({ kind: 'zone', key: z.name, match: `networks ${c}` }); }
  for (const i of doc.interfaces.values()) { const c = holds([i.ip], ip); if (c) out.push({ kind: 'interface', key: i.name, match: `ip ${c}` }); }
  for (const v of doc.vlans.values()) { const c = holds([v.ip], ip); if (c) out.push({ kind: 'vlan', key: v.name, match: `ip ${c}` }); }
  for (const r of doc.routes) { const c = holds([r.destination], ip); if (c) out.push({ kind: 'route', key: String(r.id), match: `destination ${c}` }); }
  for (const p of doc.policies) {
    const f = addresses.has(p.srcAddr) ? `src-addr ${p.srcAddr}` : addresses.has(p.dstAddr) ? `dst-addr ${p.dstAddr}` : null;
    if (f) out.push(ruleHit('policy', p, f));
  }
  for (const n of doc.nat) {
    const f = addresses.has(n.srcAddr) ? `src-addr ${n.srcAddr}` : addresses.has(n.dstAddr) ? `dst-addr ${n.dstAddr}`
      : poolHolds(n.translatedIp, ip) ? `translated-ip ${n.translatedIp}` : null;
    if (f) out.push(ruleHit('nat', n, f));
  }
  return out;
}

export function searchByPort(doc: ConfigDoc, port: number): SearchHit[] {
  const out: SearchHit[] = [];
  const services = new Set<string>();
  for (const s of doc.services.values()) {
    const p = portHolds(s.ports, port);
    if (p !== undefined) { services.add(s.name); out.push({ kind: 'service', key: s.name, match: `ports ${p}` }); }
  }
  for (const name of groupsHoldingAny(doc.serviceGroups, services)) {
    out.push({ kind: 'service-group', key: name, match: `members ${doc.serviceGroups.get(name)!.members.find((m) => services.has(m))}` });
    services.add(name);
  }
  for (const n of doc.nat) if (n.translatedPort === String(port)) out.push(ruleHit('nat', n, `translated-port ${port}`));
  return out;
}

export function searchByTag(doc: ConfigDoc, tag: string): SearchHit[] {
  const q = tag.toLowerCase();
  const out: SearchHit[] = [];
  for (const [kind, rules] of [['policy', doc.policies], ['nat', doc.nat]] as const) {
    for (const r of rules) {
      const t = r.tags?.find((x) => x.toLowerCase() === q);
      if (t !== undefined) out.push(ruleHit(kind, r, `tags ${t}`));
    }
  }
  return out;
}
