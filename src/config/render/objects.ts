// Read models of the named objects, exactly as firewall-api.md spells them. Each is a TypeBox
// schema (shown in the OpenAPI document, checked against every answer in the tests) and the
// TypeScript type derived from it.
import { Type, type Static, type TLiteral, type TUnion } from '@sinclair/typebox';
import type { AddressObj, ConfigDoc, DhcpPool, GroupObj, InterfaceObj, ServiceObj, VlanObj, ZoneObj } from '../types';
import { formatIp, maskBytes, parseCidr } from '../net';
import { poolSubnet } from '../link-addresses';

/** A schema of one of a fixed list of strings. */
export function oneOf<T extends string>(values: readonly T[]): TUnion<Array<TLiteral<T>>> {
  return Type.Union(values.map((v) => Type.Literal(v)));
}

const Octets = Type.Array(Type.Integer({ minimum: 0, maximum: 255 }), { minItems: 4, maxItems: 16 });

export const AddressModel = Type.Object({
  name: Type.String(),
  ips: Type.Array(Type.Object({ ip: Octets, mask: Octets }, { additionalProperties: false })), // 4 ints for IPv4, 16 for IPv6
  fqdn: Type.Optional(Type.String({ description: 'an FQDN address (issue 40): the name resolved at run time; `ips` is empty' })),
  resolved: Type.Optional(Type.Array(Type.String(), { description: 'FQDN address: the prefixes in use (the last good answer)' })),
  resolvedAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'FQDN address: ISO time of the last good answer; null: none yet' })),
  changedAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'FQDN address: ISO time of the answer that made resolved what it is (the last change); null: none yet' })),
  lastError: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'FQDN address: why the last resolution failed; external list: why the last fetch failed; null when it succeeded' })),
  url: Type.Optional(Type.String({ description: 'an external list (issue 40): the URL the daemon fetches; `ips` is empty' })),
  refresh: Type.Optional(Type.Integer({ description: 'external list: seconds between fetches' })),
  fetchedAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'external list: ISO time of the last good fetch; null: none yet' })),
  entries: Type.Optional(Type.Integer({ description: 'external list: prefixes in force (the last good fetch, after any cut)' })),
  cut: Type.Optional(Type.Integer({ description: 'external list: prefixes of the list not in force, past FW_LIST_MAX_ENTRIES or FW_DYNAMIC_MAX_ENTRIES' })),
  truncated: Type.Optional(Type.Boolean({ description: 'external list: true when cut is more than 0' })),
}, { additionalProperties: false });
export type AddressModel = Static<typeof AddressModel>;

/** What the daemon resolved an FQDN address to (src/dynamic/fqdn.ts); absent in a candidate. */
export interface FqdnView { resolved: string[]; resolvedAt: number; changedAt: number; lastError: string | null }

/** What the daemon fetched of an external list (src/dynamic/lists.ts); absent in a candidate. `entries`: in force after every cut; `cut`: not in force (FW_LIST_MAX_ENTRIES, FW_DYNAMIC_MAX_ENTRIES). */
export interface ListView { fetchedAt: number; entries: number; cut: number; lastError: string | null }

export function renderAddress(a: AddressObj, fqdn?: FqdnView, list?: ListView): AddressModel {
  const out: AddressModel = {
    name: a.name,
    ips: a.ips.map((text) => {
      const c = parseCidr(text);
      if (!c) throw new Error(`stored network "${text}" does not parse`);
      return { ip: Array.from(c.bytes), mask: Array.from(maskBytes(c.family, c.prefix)) };
    }),
  };
  if (a.fqdn) {
    out.fqdn = a.fqdn;
    // a candidate's (or a version no resolver follows) has the name only: resolutions are the running version's
    if (fqdn) {
      out.resolved = [...fqdn.resolved];
      out.resolvedAt = fqdn.resolvedAt ? new Date(fqdn.resolvedAt).toISOString() : null;
      out.changedAt = fqdn.changedAt ? new Date(fqdn.changedAt).toISOString() : null;
      out.lastError = fqdn.lastError;
    }
  }
  if (a.url) {
    out.url = a.url;
    out.refresh = a.refresh;
    if (list) {
      out.fetchedAt = list.fetchedAt ? new Date(list.fetchedAt).toISOString() : null;
      out.entries = list.entries;
      out.cut = list.cut;
      out.truncated = list.cut > 0;
      out.lastError = list.lastError;
    }
  }
  return out;
}

export const ServiceModel = Type.Object({
  name: Type.String(),
  protocol: Type.String({ description: 'a protocol name (tcp, udp, sctp, icmp, icmpv6, gre, ...), or the number of one without a name' }),
  // integers; a range is a string "low-high" (low < high); [] for a protocol without ports
  ports: Type.Array(Type.Union([Type.Integer({ minimum: 1, maximum: 65535 }), Type.String({ pattern: '^\\d{1,5}-\\d{1,5}$' })])),
  icmpType: Type.Optional(Type.Integer({ minimum: 0, maximum: 255, description: 'icmp/icmpv6 services that name a type' })),
  icmpCode: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  // tcp/udp/sctp services that name source ports, written like ports; absent: every source port
  sourcePorts: Type.Optional(Type.Array(Type.Union([Type.Integer({ minimum: 1, maximum: 65535 }), Type.String({ pattern: '^\\d{1,5}-\\d{1,5}$' })]))),
}, { additionalProperties: false });
export type ServiceModel = Static<typeof ServiceModel>;

export function renderService(s: ServiceObj): ServiceModel {
  const m: ServiceModel = { name: s.name, protocol: s.protocol, ports: [...s.ports] };
  if (s.icmpType !== undefined) m.icmpType = s.icmpType;
  if (s.icmpCode !== undefined) m.icmpCode = s.icmpCode;
  if (s.sourcePorts !== undefined) m.sourcePorts = [...s.sourcePorts];
  return m;
}

/** An address group or a service group as /api/address-groups and /api/service-groups read it. */
export const GroupModel = Type.Object({
  name: Type.String(),
  members: Type.Array(Type.String(), { description: 'base objects or groups of the same kind, in the order given' }),
  description: Type.String(),
}, { additionalProperties: false });
export type GroupModel = Static<typeof GroupModel>;

export function renderGroup(g: GroupObj): GroupModel {
  return { name: g.name, members: [...g.members], description: g.description };
}

export const ZoneModel = Type.Object({
  name: Type.String(),
  type: oneOf(['l2', 'l3'] as const),
  color: Type.String(),
  interfaces: Type.Array(Type.String()), // derived: the interfaces and VLANs whose zone is this one, sorted
  networks: Type.Array(Type.String()),
}, { additionalProperties: false });
export type ZoneModel = Static<typeof ZoneModel>;

/** Names of the interfaces and VLANs in a zone, sorted. */
export function zoneMembers(doc: ConfigDoc, zone: string): string[] {
  const out: string[] = [];
  for (const i of doc.interfaces.values()) if (i.zone === zone) out.push(i.name);
  for (const v of doc.vlans.values()) if (v.zone === zone) out.push(v.name);
  return out.sort();
}

export function renderZone(doc: ConfigDoc, z: ZoneObj): ZoneModel {
  return { name: z.name, type: z.type, color: z.color, interfaces: zoneMembers(doc, z.name), networks: [...z.networks] };
}

const Management = Type.Array(oneOf(['ping', 'ssh', 'https', 'http'] as const));
const LinkState = oneOf(['up', 'down'] as const);

/** `addresses` and `ra`, shown only where set: a link the seed's API configured answers as it did. */
export const linkExtraFields = {
  addresses: Type.Optional(Type.Array(Type.String(), { description: 'every address (present when more than one); `ip` is the first IPv4 one, else the first' })),
  ra: Type.Optional(Type.Literal(true, { description: 'IPv6 router advertisements (SLAAC) are served on this link' })),
};

export function linkExtraModel(l: InterfaceObj | VlanObj): { addresses?: string[]; ra?: true } {
  return { ...(l.addresses ? { addresses: [...l.addresses] } : {}), ...(l.ra ? { ra: true as const } : {}) };
}

export const InterfaceModel = Type.Object({
  name: Type.String(),
  ip: Type.String(),
  ...linkExtraFields,
  management: Management,
  state: LinkState,
  zone: Type.String(),
}, { additionalProperties: false });
export type InterfaceModel = Static<typeof InterfaceModel>;

export function renderInterface(i: InterfaceObj): InterfaceModel {
  return { name: i.name, ip: i.ip, ...linkExtraModel(i), management: [...i.management], state: i.state, zone: i.zone };
}

export const VlanModel = Type.Object({
  name: Type.String(),
  id: Type.Integer({ minimum: 1, maximum: 4094 }),
  parent: Type.String(),
  ip: Type.String(),
  ...linkExtraFields,
  zone: Type.String(),
  state: LinkState,
  management: Management,
}, { additionalProperties: false });
export type VlanModel = Static<typeof VlanModel>;

export function renderVlan(v: VlanObj): VlanModel {
  return { name: v.name, id: v.id, parent: v.parent, ip: v.ip, ...linkExtraModel(v), zone: v.zone, state: v.state, management: [...v.management] };
}

export const DhcpModel = Type.Object({
  interface: Type.String(),
  startIP: Type.String(),
  endIP: Type.String(),
  gateway: Type.String(),
  dns: Type.Array(Type.String()),
  subnetMask: Type.String(), // from the interface's (or VLAN's) IPv4 prefix; "" when it has none
  leaseTimeMin: Type.Integer({ minimum: 1 }),
}, { additionalProperties: false });
export type DhcpModel = Static<typeof DhcpModel>;

/** The dotted mask of an interface or VLAN's IPv4 address, "" when it has no IPv4 address. */
export function linkSubnetMask(doc: ConfigDoc, pool: DhcpPool): string {
  const c = poolSubnet(doc.interfaces.get(pool.interface) ?? doc.vlans.get(pool.interface), pool.startIp);
  return c ? formatIp(4, maskBytes(4, c.prefix)) : '';
}

export function renderDhcp(doc: ConfigDoc, p: DhcpPool): DhcpModel {
  return {
    interface: p.interface,
    startIP: p.startIp,
    endIP: p.endIp,
    gateway: p.gateway,
    dns: [...p.dns],
    subnetMask: linkSubnetMask(doc, p),
    leaseTimeMin: p.leaseTime,
  };
}
