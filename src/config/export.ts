// The whole configuration as one editable document (GET /api/config/export, loaded back by
// PUT /api/config/candidate, load.ts): every object written as the body that creates it,
// in the payloads' own spellings (CIDR strings, "src-zone", "start_ip", "translated-port"),
// so a person can read and edit it and a pipeline can keep it in version control. "any" is
// written "any" (the stored "" and []), rules and routes carry their ids, policies and NAT
// rules appear in evaluation order, routes by id, named objects by name.
//
// Zone membership is written once, on its stored side: each interface's and VLAN's `zone`
// (the zones' `interfaces` lists would say the same thing a second time).
import { Type, type Static } from '@sinclair/typebox';
import { metaOf } from './rule-meta';
import type { ConfigDoc, DhcpPool, GroupObj, InterfaceObj, NatRule, PolicyObj, RouteObj, VlanObj, ZoneObj, AddressObj, ServiceObj, DynamicSetObj } from './types';
import { linkExtraFields, linkExtraModel } from './render/objects';
import { HaModel, renderHa, type HaConfig } from './ha';
import { zoneRefText } from './zone-list';

export const EXPORT_FORMAT = 'fwd-config/1';

/** The collections of a document in the order they are written (and loaded: references point backwards). */
export const COLLECTIONS = ['interfaces', 'zones', 'addresses', 'address-groups', 'dynamic-sets', 'services', 'service-groups', 'vlans', 'dhcp', 'routes', 'policies', 'nat', 'local-policies'] as const;
export type Collection = (typeof COLLECTIONS)[number];

const Str = Type.String();
const Strs = Type.Array(Type.String());
const Id = Type.Integer({ minimum: 1 });
const open = { additionalProperties: false } as const;
/** a rule's zone field: "any", a name, or several names (issue 41, zone-list.ts) */
const ZoneText = Type.Union([Str, Strs]);
/** a rule's metadata, written only when set (rule-meta.ts) */
const meta = { name: Type.Optional(Str), tags: Type.Optional(Strs), disabled: Type.Optional(Type.Boolean()) };

/** The schema of an exported document (what the OpenAPI document shows for export and load). */
export const ExportModel = Type.Object({
  format: Type.Literal(EXPORT_FORMAT),
  version: Type.Integer({ minimum: 0, description: 'the running version exported, or the one the candidate is based on' }),
  interfaces: Type.Array(Type.Object({ name: Str, ip: Str, ...linkExtraFields, management: Strs, state: Str, zone: Str }, open)),
  zones: Type.Array(Type.Object({ name: Str, type: Str, color: Str, networks: Strs }, open)),
  addresses: Type.Array(Type.Object({ name: Str, ips: Type.Optional(Strs), fqdn: Type.Optional(Str) }, open)),
  // written only when there are groups, so a configuration without any exports as it did
  'address-groups': Type.Optional(Type.Array(Type.Object({ name: Str, members: Strs, description: Str }, open))),
  // issue 40: written only when there are some
  'dynamic-sets': Type.Optional(Type.Array(Type.Object({ name: Str, family: Str, 'max-entries': Type.Integer(), 'default-ttl': Type.Integer() }, open))),
  services: Type.Array(Type.Object({
    name: Str, protocol: Str, ports: Type.Array(Type.Union([Type.Integer(), Str])), 'icmp-type': Type.Optional(Type.Integer()), 'icmp-code': Type.Optional(Type.Integer()),
    'source-ports': Type.Optional(Type.Array(Type.Union([Type.Integer(), Str]))),
  }, open)),
  'service-groups': Type.Optional(Type.Array(Type.Object({ name: Str, members: Strs, description: Str }, open))),
  vlans: Type.Array(Type.Object({ name: Str, id: Type.Integer(), parent: Str, ip: Str, ...linkExtraFields, zone: Str, state: Str, management: Strs }, open)),
  dhcp: Type.Array(Type.Object({ interface: Str, start_ip: Str, end_ip: Str, gateway: Str, dns: Strs, lease_time: Type.Integer() }, open)),
  routes: Type.Array(Type.Object({ id: Id, description: Str, destination: Str, gateway: Str, interface: Str, metric: Type.Integer() }, open)),
  policies: Type.Array(Type.Object({
    id: Id, action: Str, 'src-zone': ZoneText, 'dst-zone': ZoneText, 'src-addr': Str, 'dst-addr': Str, services: Strs, log: Type.Boolean(),
    ...meta, description: Type.Optional(Str),
  }, open)),
  nat: Type.Array(Type.Object({
    id: Id, description: Str, type: Str, 'src-zone': ZoneText, 'dst-zone': ZoneText, 'src-addr': Str, 'dst-addr': Str, service: Str,
    'translated-ip': Str, 'translated-port': Str, 'out-interface': Str, persistent: Type.Optional(Type.Boolean()), ...meta,
  }, open)),
  // the HA pair (issue 39): written only when configured, so older documents load unchanged
  ha: Type.Optional(HaModel),
  // issue 41: written only when there are local policies, so a configuration without any exports as it did
  'local-policies': Type.Optional(Type.Array(Type.Object({
    id: Id, action: Str, 'src-zone': ZoneText, 'src-addr': Str, 'dst-addr': Str, services: Strs, log: Type.Boolean(),
    ...meta, description: Type.Optional(Str),
  }, open))),
}, { additionalProperties: false, description: `a whole configuration, format "${EXPORT_FORMAT}"` });
export type ConfigExport = Static<typeof ExportModel>;

/** "" (any) as "any". */
const anyName = (name: string): string => (name === '' ? 'any' : name);

function sorted<T>(m: ReadonlyMap<string, T>): T[] {
  return [...m.keys()].sort().map((k) => m.get(k) as T);
}

const iface = (i: InterfaceObj) => ({ name: i.name, ip: i.ip, ...linkExtraModel(i), management: [...i.management], state: i.state, zone: i.zone });
const zone = (z: ZoneObj) => ({ name: z.name, type: z.type, color: z.color, networks: [...z.networks] });
const address = (a: AddressObj) => (a.fqdn ? { name: a.name, fqdn: a.fqdn } : { name: a.name, ips: [...a.ips] });
const service = (s: ServiceObj) => ({
  name: s.name, protocol: s.protocol, ports: [...s.ports],
  ...(s.icmpType !== undefined ? { 'icmp-type': s.icmpType } : {}), ...(s.icmpCode !== undefined ? { 'icmp-code': s.icmpCode } : {}),
  ...(s.sourcePorts !== undefined ? { 'source-ports': [...s.sourcePorts] } : {}),
});
const dynamicSet = (d: DynamicSetObj) => ({ name: d.name, family: d.family, 'max-entries': d.maxEntries, 'default-ttl': d.defaultTtl });
const group = (g: GroupObj) => ({ name: g.name, members: [...g.members], description: g.description });
const vlan = (v: VlanObj) => ({ name: v.name, id: v.id, parent: v.parent, ip: v.ip, ...linkExtraModel(v), zone: v.zone, state: v.state, management: [...v.management] });
const dhcp = (p: DhcpPool) => ({
  interface: p.interface, start_ip: p.startIp, end_ip: p.endIp, gateway: p.gateway, dns: [...p.dns], lease_time: p.leaseTime,
});
const route = (r: RouteObj) => ({ id: r.id, description: r.description, destination: r.destination, gateway: r.gateway, interface: r.interface, metric: r.metric });
const policy = (p: PolicyObj) => ({
  id: p.id, action: p.action, 'src-zone': zoneRefText(p.srcZone), 'dst-zone': zoneRefText(p.dstZone),
  'src-addr': anyName(p.srcAddr), 'dst-addr': anyName(p.dstAddr), services: p.services.length ? [...p.services] : ['any'], log: p.log,
  ...metaOf(p, true),
});
/** a local policy (issue 41): a policy's fields without dst-zone */
const localPolicy = (p: PolicyObj) => {
  const { 'dst-zone': _dz, ...rest } = policy(p);
  return rest;
};
const nat = (n: NatRule) => ({
  id: n.id, description: n.description, type: n.type, 'src-zone': zoneRefText(n.srcZone), 'dst-zone': zoneRefText(n.dstZone),
  'src-addr': anyName(n.srcAddr), 'dst-addr': anyName(n.dstAddr), service: anyName(n.service),
  'translated-ip': n.translatedIp, 'translated-port': n.translatedPort, 'out-interface': n.outInterface,
  ...(n.persistent ? { persistent: true } : {}),
  ...metaOf(n, false),
});

/** The document of `doc`, labelled with `version`. */
export function exportDoc(doc: ConfigDoc, version: number): ConfigExport {
  return {
    format: EXPORT_FORMAT,
    version,
    interfaces: sorted(doc.interfaces).map(iface),
    zones: sorted(doc.zones).map(zone),
    addresses: sorted(doc.addresses).map(address),
    ...(doc.addressGroups.size ? { 'address-groups': sorted(doc.addressGroups).map(group) } : {}),
    ...(doc.dynamicSets.size ? { 'dynamic-sets': sorted(doc.dynamicSets).map(dynamicSet) } : {}),
    services: sorted(doc.services).map(service),
    ...(doc.serviceGroups.size ? { 'service-groups': sorted(doc.serviceGroups).map(group) } : {}),
    vlans: sorted(doc.vlans).map(vlan),
    dhcp: sorted(doc.dhcp).map(dhcp),
    routes: doc.routes.map(route),
    policies: doc.policies.map(policy),
    nat: doc.nat.map(nat),
    ...(doc.ha ? { ha: renderHa(doc.ha) } : {}),
    ...(doc.localPolicies.length ? { 'local-policies': doc.localPolicies.map(localPolicy) } : {}),
  };
}

/** Each kind of object in its document (API) spelling: what a field-level diff compares. */
export const EXPORT_FORMS: Readonly<Record<string, (o: never) => Record<string, unknown>>> = {
  ha: (h: HaConfig) => renderHa(h), address, service, 'address-group': group, 'service-group': group, 'dynamic-set': dynamicSet, zone, interface: iface, vlan, dhcp, route, policy, nat, 'local-policy': localPolicy,
};
