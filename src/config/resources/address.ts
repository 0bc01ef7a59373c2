// Address objects: named lists of networks.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { removeUnused } from '../refs';
import { checkCidrList, checked, checkName, checkSameKey, existing, shapeChecker } from '../validate';
import { DEFAULT_REFRESH, MAX_REFRESH, MIN_REFRESH, listValue } from './list-url';

const Ips = Type.Array(Type.String());
const Fqdn = Type.String({
  description: 'a DNS name resolved at run time (A and AAAA); exactly one of ips, fqdn and url',
  ...checked({ maxLength: 254, pattern: '^((?!-)[A-Za-z0-9_-]{1,63}(?<!-)\\.)+(?!-)[A-Za-z0-9_-]{1,63}(?<!-)\\.?$' }),
});
const Url = Type.String({ description: 'an external list (issue 40): an http or https URL fetched by the daemon every `refresh` seconds (plain text, one prefix a line, or a JSON array); exactly one of ips, fqdn and url' });
const Refresh = Type.Integer({
  description: `external list: seconds between fetches, ${MIN_REFRESH}-${MAX_REFRESH}; default ${DEFAULT_REFRESH}`,
  ...checked({ minimum: MIN_REFRESH, maximum: MAX_REFRESH }),
});
export const bodies = {
  create: Type.Object({ name: Type.String(), ips: Type.Optional(Ips), fqdn: Type.Optional(Fqdn), url: Type.Optional(Url), refresh: Type.Optional(Refresh) }, { additionalProperties: false }),
  update: Type.Object({ name: Type.Optional(Type.String()), ips: Type.Optional(Ips), fqdn: Type.Optional(Fqdn), url: Type.Optional(Url), refresh: Type.Optional(Refresh) }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

function checkIps(ips: string[]): string[] {
  if (ips.length === 0) throw new FwError('ERR_NET_1004', 'field "ips": at least one network is required');
  return checkCidrList('ips', ips);
}

/** A DNS name: labels of letters, digits and hyphens (underscores too: service names), 253 characters at most, one trailing dot dropped, lower case. */
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
export function checkFqdn(raw: string): string {
  const name = raw.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  if (name.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l))) {
    throw new FwError('ERR_NET_1004', `field "fqdn": "${raw.slice(0, 80)}" is not a DNS name (labels of letters, digits and hyphens, at least two, 253 characters at most)`);
  }
  return name;
}

type Value = { ips: string[]; fqdn?: string; url?: string; refresh?: number };

/** An address holds networks, a name or a list's URL (issue 40): exactly one of the three. */
function networksOrName(b: { ips?: string[]; fqdn?: string; url?: string; refresh?: number }): Value {
  if (b.url !== undefined || b.refresh !== undefined) return listValue(b);
  if (b.ips !== undefined && b.fqdn !== undefined) throw new FwError('ERR_NET_1004', 'fields "ips" and "fqdn": an address has either ips or fqdn, not both');
  if (b.fqdn !== undefined) return { ips: [], fqdn: checkFqdn(b.fqdn) };
  if (b.ips === undefined) throw new FwError('ERR_NET_1004', 'field "ips": required (or "fqdn" for an address resolved by name)');
  return { ips: checkIps(b.ips) };
}

/** FQDN addresses are not group members nor named by NAT (the kernel and the analysis see groups flattened; not done yet, docs/dynamic-objects.md). */
function refuseInGroup(doc: ConfigDoc, name: string, field = 'fqdn', kind = 'an FQDN address', kinds = 'FQDN addresses'): void {
  for (const g of doc.addressGroups.values()) {
    if (g.members.includes(name)) throw new FwError('ERR_NET_1004', `field "${field}": address "${name}" is a member of address group "${g.name}", and ${kind} cannot be a group member`);
  }
  for (const r of doc.nat) {
    if (r.srcAddr === name || r.dstAddr === name) throw new FwError('ERR_NET_1004', `field "${field}": address "${name}" is named by NAT rule ${r.id}, and NAT rules do not name ${kinds}`);
  }
}

export const addressOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const name = checkName('name', b.name);
    const value = networksOrName(b);
    if (doc.addresses.has(name)) throw new FwError('ERR_NET_2006', `address "${name}" already exists`);
    if (doc.addressGroups.has(name)) throw new FwError('ERR_NET_2006', `address group "${name}" already exists (a name is either an address or an address group)`);
    if (doc.dynamicSets.has(name)) throw new FwError('ERR_NET_2006', `dynamic set "${name}" already exists (a name is either an address or a dynamic set)`);
    doc.addresses.set(name, { name, ...value });
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.addresses, 'address', key);
    // a PUT with ips or fqdn makes the address that kind; with neither it stays as it is
    const value = b.ips === undefined && b.fqdn === undefined && b.url === undefined && b.refresh === undefined ? { ...old } : networksOrName(b.refresh !== undefined && b.url === undefined && old.url ? { ...b, url: old.url } : b);
    if (value.fqdn) refuseInGroup(doc, key);
    if (value.url) refuseInGroup(doc, key, 'url', 'an external list', 'external lists');
    doc.addresses.set(key, { name: key, ...value });
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    removeUnused(doc, doc.addresses, 'address', 'address', key);
    return {};
  },
};
