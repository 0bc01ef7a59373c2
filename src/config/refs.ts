// Who references an object: the one place that knows every reference between resources,
// used to refuse deleting an object in use (409 ERR_NET_2007 naming every referrer).
import type { ConfigDoc } from './types';
import { haNamesLink } from './ha';
import { checkUnused, existing } from './validate';
import { groupsHolding } from './groups';
import { namesZone } from './zone-list';

export type RefKind = 'address' | 'service' | 'zone' | 'link'; // link = interface or VLAN

export function referrers(doc: ConfigDoc, kind: RefKind, name: string): string[] {
  const out: string[] = [];
  // an address or address group is also named by the groups holding it (one namespace: a
  // group is referenced exactly where an address is), a service or service group likewise
  if (kind === 'address') for (const g of groupsHolding(doc.addressGroups, name)) out.push(`address-group ${g}`);
  if (kind === 'service') for (const g of groupsHolding(doc.serviceGroups, name)) out.push(`service-group ${g}`);
  for (const p of doc.policies) {
    const hit =
      (kind === 'address' && (p.srcAddr === name || p.dstAddr === name)) ||
      (kind === 'service' && p.services.includes(name)) ||
      (kind === 'zone' && (namesZone(p.srcZone, name) || namesZone(p.dstZone, name)));
    if (hit) out.push(`policy ${p.id}`);
  }
  for (const p of doc.localPolicies) {
    const hit =
      (kind === 'address' && (p.srcAddr === name || p.dstAddr === name)) ||
      (kind === 'service' && p.services.includes(name)) ||
      (kind === 'zone' && namesZone(p.srcZone, name));
    if (hit) out.push(`local-policy ${p.id}`);
  }
  for (const n of doc.nat) {
    const hit =
      (kind === 'address' && (n.srcAddr === name || n.dstAddr === name)) ||
      (kind === 'service' && n.service === name) ||
      (kind === 'zone' && (namesZone(n.srcZone, name) || namesZone(n.dstZone, name))) ||
      (kind === 'link' && n.outInterface === name);
    if (hit) out.push(`nat ${n.id}`);
  }
  if (kind === 'zone') {
    for (const i of doc.interfaces.values()) if (i.zone === name) out.push(`interface ${i.name}`);
    for (const v of doc.vlans.values()) if (v.zone === name) out.push(`vlan ${v.name}`);
  }
  if (kind === 'link') {
    for (const v of doc.vlans.values()) if (v.parent === name) out.push(`vlan ${v.name}`);
    if (doc.dhcp.has(name)) out.push(`dhcp ${name}`);
    for (const r of doc.routes) if (r.interface === name) out.push(`route ${r.id}`);
    if (doc.ha && haNamesLink(doc.ha, name)) out.push('ha');
  }
  return out;
}

/** An interface or a VLAN of that name exists. */
export function linkExists(doc: ConfigDoc, name: string): boolean {
  return doc.interfaces.has(name) || doc.vlans.has(name);
}

/**
 * Deletes the object `key` of a name-keyed table of doc: 404 ERR_NET_1003 if it is absent,
 * 409 ERR_NET_2007 naming every referrer if anything references it as `kind`.
 */
export function removeUnused(doc: ConfigDoc, table: Map<string, unknown>, what: string, kind: RefKind, key: string): void {
  existing(table, what, key);
  checkUnused(what, key, referrers(doc, kind, key));
  table.delete(key);
}
