// Every configuration resource as the console shows it: its table's columns and its form's
// fields. The fields are keyed by the API's own update body (ResourceBodies), so a renamed
// or removed field is a type error here.
import type { ResourceBodies, ResourceKey, ResourceModels } from './types';
import { anyIfEmpty, cidr } from './format';

/** 'zones': one zone's name or several separated by commas (issue 41): one is sent as a
 * string, several as an array, as the API takes them */
export type FieldKind = 'text' | 'number' | 'list' | 'ports' | 'bool' | 'zones';
/** Where a field's suggestions come from (names of existing objects; addresses and services with their groups). */
export type RefKind = 'zones' | 'addresses' | 'services' | 'interfaces' | 'schedules';

export interface FieldSpec<B> {
  key: keyof B & string;
  label: string;
  kind?: FieldKind;
  options?: readonly string[];
  ref?: RefKind;
  required?: boolean;
  hint?: string;
  /** the object's key: set at creation, not edited */
  fixed?: boolean;
  /** left out of an update too when empty (one of alternatives: an address's networks, DNS name or list URL) */
  omitEmpty?: boolean;
}

export interface Column<M> {
  label: string;
  text: (m: M) => string;
  /** a fixed width in rem (virtual-table.tsx); absent: shares what is left */
  width?: number;
  /** a flexible column's least width in rem (virtual-table.tsx's default otherwise) */
  min?: number;
  /** offered by the rule tables' column chooser, hidden until chosen (column-chooser.tsx) */
  optional?: boolean;
}

export type FormValues = Record<string, string | boolean>;

export interface ResourceDef<K extends ResourceKey> {
  key: K;
  title: string;
  noun: string;
  path: string;
  idOf: (m: ResourceModels[K]) => string;
  columns: Column<ResourceModels[K]>[];
  fields: FieldSpec<ResourceBodies[K]['update']>[];
  formOf: (m: ResourceModels[K]) => FormValues;
  create: boolean;
  remove: boolean;
  /** evaluated in order: reorderable, analysed (policies, NAT) */
  ordered?: boolean;
}

const MANAGEMENT = 'ping, ssh, https, http';
/** The protocols the service form offers (the API also takes any other by number). */
const PROTOCOLS = ['tcp', 'udp', 'sctp', 'icmp', 'icmpv6', 'gre', 'esp', 'ah', 'ospf', 'vrrp', 'ipip', 'igmp', 'pim', 'l2tp'];
const names = (xs: { name: string }[]) => xs.map((x) => x.name).join(', ');
const join = (xs: readonly (string | number)[]) => xs.join(', ');

const addresses: ResourceDef<'addresses'> = {
  key: 'addresses', title: 'Addresses', noun: 'address', path: '/api/addresses', create: true, remove: true,
  idOf: (m) => m.name,
  columns: [
    { label: 'Name', text: (m) => m.name },
    { label: 'Networks', text: (m) => (m.url ? listText(m) : m.fqdn !== undefined ? fqdnText(m) : join(m.ips.map((n) => cidr(n.ip, n.mask)))) },
  ],
  fields: [
    { key: 'name', label: 'Name', required: true, fixed: true },
    { key: 'ips', label: 'Networks', kind: 'list', omitEmpty: true, hint: 'IPs or CIDRs, separated by commas; or a DNS name or an external list below' },
    { key: 'fqdn', label: 'DNS name', omitEmpty: true, hint: 'instead of networks: resolved by the daemon at run time (A and AAAA), no commit when the answer changes' },
    { key: 'url', label: 'List URL', omitEmpty: true, hint: 'an external list instead of networks: http(s) URL of one prefix a line, or a JSON array' },
    { key: 'refresh', label: 'Refresh (s)', kind: 'number', hint: 'external list: seconds between fetches (default 3600)' },
  ],
  formOf: (m) => ({ name: m.name, ips: join(m.ips.map((n) => cidr(n.ip, n.mask))), fqdn: m.fqdn ?? '', url: m.url ?? '', refresh: m.refresh === undefined ? '' : String(m.refresh) }),
};

const services: ResourceDef<'services'> = {
  key: 'services', title: 'Services', noun: 'service', path: '/api/services', create: true, remove: true,
  idOf: (m) => m.name,
  columns: [
    { label: 'Name', text: (m) => m.name },
    { label: 'Protocol', text: (m) => m.protocol },
    { label: 'ICMP type/code', text: (m) => icmpText(m) },
    { label: 'Ports', text: (m) => join(m.ports) },
    { label: 'Source ports', text: (m) => join(m.sourcePorts ?? []) },
  ],
  fields: [
    { key: 'name', label: 'Name', required: true, fixed: true },
    { key: 'protocol', label: 'Protocol', options: PROTOCOLS, required: true },
    { key: 'ports', label: 'Ports', kind: 'ports', hint: 'tcp, udp, sctp: ports or ranges (8000-8080), separated by commas' },
    { key: 'icmp-type', label: 'ICMP type', kind: 'number', hint: 'icmp, icmpv6: 0-255; empty: every type' },
    { key: 'icmp-code', label: 'ICMP code', kind: 'number', hint: 'with a type: 0-255; empty: every code' },
    { key: 'source-ports', label: 'Source ports', kind: 'ports', hint: 'tcp, udp, sctp: source ports or ranges; empty: every source port' },
  ],
  formOf: (m) => ({ name: m.name, protocol: m.protocol, ports: join(m.ports), 'icmp-type': m.icmpType === undefined ? '' : String(m.icmpType), 'icmp-code': m.icmpCode === undefined ? '' : String(m.icmpCode), 'source-ports': join(m.sourcePorts ?? []) }),
};

/** An external list's state in the Networks column: "list: 120 entries, 5 cut, fetched …, error: …" (issue 40). */
export function listText(m: { url?: string; entries?: number; cut?: number; fetchedAt?: string | null; lastError?: string | null }): string {
  const parts = [`list: ${m.entries ?? 0} entries`];
  if (m.cut) parts.push(`${m.cut} cut by the capacity limits`);
  parts.push(m.fetchedAt ? `fetched ${m.fetchedAt}` : 'not fetched yet');
  if (m.lastError) parts.push(`last error: ${m.lastError}`);
  return `${parts.join(', ')} (${m.url})`;
}

/** An FQDN address (issue 40) in the table: its name and what it resolves to now ("api.example.com → 192.0.2.10/32"). */
export function fqdnText(m: { fqdn?: string; resolved?: string[]; resolvedAt?: string | null; lastError?: string | null }): string {
  const now = m.resolved?.length ? join(m.resolved) : m.resolvedAt === undefined ? 'resolved when running' : 'not resolved yet';
  return `${m.fqdn} → ${now}${m.lastError ? ` (last try failed: ${m.lastError})` : ''}`;
}

/** An ICMP service's type and code in words ("type 3, code 4", "every type"); '' for the other protocols. */
export function icmpText(m: { protocol: string; icmpType?: number; icmpCode?: number }): string {
  if (m.protocol !== 'icmp' && m.protocol !== 'icmpv6') return '';
  if (m.icmpType === undefined) return 'every type';
  return `type ${m.icmpType}, ${m.icmpCode === undefined ? 'every code' : `code ${m.icmpCode}`}`;
}

/** Address and service groups: members are objects or groups of the same kind (nested up to 8 deep). */
function groupDef<K extends 'address-groups' | 'service-groups'>(key: K, title: string, noun: string, ref: 'addresses' | 'services'): ResourceDef<K> {
  return {
    key, title, noun, path: `/api/${key}`, create: true, remove: true,
    idOf: (m) => m.name,
    columns: [
      { label: 'Name', text: (m) => m.name },
      { label: 'Members', text: (m) => join(m.members) },
      { label: 'Description', text: (m) => m.description },
    ],
    fields: [
      { key: 'name', label: 'Name', required: true, fixed: true },
      { key: 'members', label: 'Members', kind: 'list', ref, required: true, hint: `${ref} or other groups, separated by commas` },
      { key: 'description', label: 'Description' },
    ],
    formOf: (m) => ({ name: m.name, members: join(m.members), description: m.description }),
  };
}
const addressGroups = groupDef('address-groups', 'Address groups', 'address group', 'addresses');
const serviceGroups = groupDef('service-groups', 'Service groups', 'service group', 'services');

const zones: ResourceDef<'zones'> = {
  key: 'zones', title: 'Zones', noun: 'zone', path: '/api/zones', create: true, remove: true,
  idOf: (m) => m.name,
  columns: [
    { label: 'Name', text: (m) => m.name },
    { label: 'Type', text: (m) => m.type },
    { label: 'Interfaces', text: (m) => join(m.interfaces) },
    { label: 'Networks', text: (m) => join(m.networks) },
    { label: 'Color', text: (m) => m.color },
  ],
  fields: [
    { key: 'name', label: 'Name', required: true, fixed: true },
    { key: 'type', label: 'Type', options: ['l3', 'l2'], required: true },
    { key: 'interfaces', label: 'Interfaces', kind: 'list', ref: 'interfaces', hint: 'interfaces or VLANs, separated by commas' },
    { key: 'networks', label: 'Networks', kind: 'list', hint: 'CIDRs, separated by commas' },
    { key: 'color', label: 'Color' },
  ],
  formOf: (m) => ({ name: m.name, type: m.type, interfaces: join(m.interfaces), networks: join(m.networks), color: m.color }),
};

const interfaces: ResourceDef<'interfaces'> = {
  key: 'interfaces', title: 'Interfaces', noun: 'interface', path: '/api/interfaces', create: false, remove: false,
  idOf: (m) => m.name,
  columns: [
    { label: 'Name', text: (m) => m.name },
    { label: 'Address', text: (m) => m.ip },
    { label: 'Zone', text: (m) => m.zone },
    { label: 'State', text: (m) => m.state },
    { label: 'Management', text: (m) => join(m.management) },
  ],
  fields: [
    { key: 'name', label: 'Name', fixed: true },
    { key: 'ip', label: 'Address', hint: 'CIDR, e.g. 10.0.0.1/24' },
    { key: 'zone', label: 'Zone', ref: 'zones' },
    { key: 'state', label: 'State', options: ['up', 'down'] },
    { key: 'management', label: 'Management', kind: 'list', hint: MANAGEMENT },
  ],
  formOf: (m) => ({ name: m.name, ip: m.ip, zone: m.zone, state: m.state, management: join(m.management) }),
};

const vlans: ResourceDef<'vlans'> = {
  key: 'vlans', title: 'VLANs', noun: 'VLAN', path: '/api/vlans', create: true, remove: true,
  idOf: (m) => m.name,
  columns: [
    { label: 'Name', text: (m) => m.name },
    { label: 'VLAN id', text: (m) => String(m.id) },
    { label: 'Parent', text: (m) => m.parent },
    { label: 'Address', text: (m) => m.ip },
    { label: 'Zone', text: (m) => m.zone },
    { label: 'State', text: (m) => m.state },
  ],
  fields: [
    { key: 'name', label: 'Name', required: true, fixed: true },
    { key: 'id', label: 'VLAN id', kind: 'number', required: true },
    { key: 'parent', label: 'Parent', ref: 'interfaces', required: true },
    { key: 'ip', label: 'Address' },
    { key: 'zone', label: 'Zone', ref: 'zones' },
    { key: 'state', label: 'State', options: ['up', 'down'] },
    { key: 'management', label: 'Management', kind: 'list', hint: MANAGEMENT },
  ],
  formOf: (m) => ({ name: m.name, id: String(m.id), parent: m.parent, ip: m.ip, zone: m.zone, state: m.state, management: join(m.management) }),
};

const dhcp: ResourceDef<'dhcp'> = {
  key: 'dhcp', title: 'DHCP pools', noun: 'DHCP pool', path: '/api/dhcp', create: true, remove: true,
  idOf: (m) => m.interface,
  columns: [
    { label: 'Interface', text: (m) => m.interface },
    { label: 'First address', text: (m) => m.startIP },
    { label: 'Last address', text: (m) => m.endIP },
    { label: 'Gateway', text: (m) => m.gateway },
    { label: 'DNS', text: (m) => join(m.dns) },
    { label: 'Lease (min)', text: (m) => String(m.leaseTimeMin) },
  ],
  fields: [
    { key: 'interface', label: 'Interface', ref: 'interfaces', required: true, fixed: true },
    { key: 'start_ip', label: 'First address', required: true },
    { key: 'end_ip', label: 'Last address', required: true },
    { key: 'gateway', label: 'Gateway' },
    { key: 'dns', label: 'DNS servers', kind: 'list' },
    { key: 'lease_time', label: 'Lease time (minutes)', kind: 'number' },
  ],
  formOf: (m) => ({ interface: m.interface, start_ip: m.startIP, end_ip: m.endIP, gateway: m.gateway, dns: join(m.dns), lease_time: String(m.leaseTimeMin) }),
};

const routes: ResourceDef<'routes'> = {
  key: 'routes', title: 'Routes', noun: 'route', path: '/api/routes', create: true, remove: true,
  idOf: (m) => String(m.id),
  columns: [
    { label: 'Id', text: (m) => String(m.id) },
    { label: 'Destination', text: (m) => m.destination },
    { label: 'Gateway', text: (m) => m.gateway },
    { label: 'Interface', text: (m) => m.interface },
    { label: 'Metric', text: (m) => String(m.metric) },
    { label: 'Description', text: (m) => m.description },
  ],
  fields: [
    { key: 'destination', label: 'Destination', required: true, hint: 'CIDR' },
    { key: 'gateway', label: 'Gateway' },
    { key: 'interface', label: 'Interface', ref: 'interfaces' },
    { key: 'metric', label: 'Metric', kind: 'number' },
    { key: 'description', label: 'Description' },
  ],
  formOf: (m) => ({ destination: m.destination, gateway: m.gateway, interface: m.interface, metric: String(m.metric), description: m.description }),
};

/** A rule's name, tags and disabled switch (issue 27): the same in both rule tables. */
type RuleMeta = { name?: string; tags?: string[]; disabled?: boolean };
const nameColumn: Column<RuleMeta> = { label: 'Name', text: (m) => m.name ?? '', min: 6 };
const metaColumns: Column<RuleMeta>[] = [
  { label: 'Tags', text: (m) => join(m.tags ?? []), optional: true },
  { label: 'Disabled', text: (m) => (m.disabled ? 'disabled' : ''), width: 6.5, optional: true },
];
/** A rule's zone field as the API reads it: null (any), a zone, or several (issue 41). */
type ZoneField = { name: string } | Array<{ name: string }> | null | undefined;
/** The zones' names, separated by commas; "" for any. */
const zoneNames = (z: ZoneField): string => (Array.isArray(z) ? z.map((x) => x.name).join(', ') : z?.name ?? '');
/** Both zones of a rule in one column ("lan → wan", "lan, dmz → wan"): at 1280x800 two zone columns left no room for the addresses. */
const zonesText = (m: { srcZone?: ZoneField; dstZone?: ZoneField }) => `${anyIfEmpty(zoneNames(m.srcZone))} → ${anyIfEmpty(zoneNames(m.dstZone))}`;
const ZONES_HINT = 'one or more, separated by commas; empty: any';
const metaFields = [
  { key: 'name', label: 'Name', hint: 'optional, unique among the rules of the table' },
  { key: 'tags', label: 'Tags', kind: 'list', hint: 'names separated by commas' },
  { key: 'disabled', label: 'Disabled', kind: 'bool' },
] as const satisfies FieldSpec<{ name?: string; tags?: string[]; disabled?: boolean }>[];
const metaForm = (m: RuleMeta): FormValues => ({ name: m.name ?? '', tags: join(m.tags ?? []), disabled: m.disabled ?? false });

/** A policy's schedule and expiry (issue 40 item 4): both tables of policies. */
type RuleTiming = { schedule?: string; expiresAt?: string };
const timingColumns: Column<RuleTiming>[] = [
  { label: 'Schedule', text: (m) => m.schedule ?? '', optional: true },
  { label: 'Expires', text: (m) => m.expiresAt ?? '', optional: true },
];
const timingFields = [
  { key: 'schedule', label: 'Schedule', ref: 'schedules', hint: 'a schedule\'s name: the rule matches only while it is on; empty: always' },
  { key: 'expires-at', label: 'Expires at', hint: 'ISO 8601 with an offset (2027-01-31T18:00:00Z): never matches after it; empty: never expires' },
] as const satisfies FieldSpec<{ schedule?: string; 'expires-at'?: string }>[];
const timingForm = (m: RuleTiming): FormValues => ({ schedule: m.schedule ?? '', 'expires-at': m.expiresAt ?? '' });

const policies: ResourceDef<'policies'> = {
  key: 'policies', title: 'Policies', noun: 'policy', path: '/api/policies', create: true, remove: true, ordered: true,
  idOf: (m) => String(m.id),
  columns: [
    nameColumn,
    { label: 'Action', text: (m) => m.action, width: 5 },
    { label: 'Zones', text: zonesText, min: 7 },
    { label: 'Source', text: (m) => anyIfEmpty(m.srcAddr?.name), min: 6 },
    { label: 'Destination', text: (m) => anyIfEmpty(m.dstAddr?.name), min: 7.5 },
    { label: 'Services', text: (m) => anyIfEmpty(names(m.services)), min: 6 },
    { label: 'Log', text: (m) => (m.log ? 'yes' : ''), width: 3.5, optional: true },
    ...metaColumns,
    ...timingColumns,
    { label: 'Description', text: (m) => m.description ?? '', optional: true },
  ],
  fields: [
    { key: 'action', label: 'Action', options: ['allow', 'deny'], required: true },
    { key: 'src-zone', label: 'Source zone', kind: 'zones', ref: 'zones', hint: ZONES_HINT },
    { key: 'src-addr', label: 'Source address', ref: 'addresses', hint: 'empty: any' },
    { key: 'dst-zone', label: 'Destination zone', kind: 'zones', ref: 'zones', hint: ZONES_HINT },
    { key: 'dst-addr', label: 'Destination address', ref: 'addresses', hint: 'empty: any' },
    { key: 'services', label: 'Services', kind: 'list', ref: 'services', hint: 'names separated by commas; empty: any' },
    { key: 'log', label: 'Log', kind: 'bool' },
    ...metaFields,
    ...timingFields,
    { key: 'description', label: 'Description' },
  ],
  formOf: (m) => ({
    action: m.action, 'src-zone': zoneNames(m.srcZone), 'src-addr': m.srcAddr?.name ?? '', 'dst-zone': zoneNames(m.dstZone),
    'dst-addr': m.dstAddr?.name ?? '', services: names(m.services), log: m.log, ...metaForm(m), ...timingForm(m), description: m.description ?? '',
  }),
};

/** What a NAT rule translates to: "10.0.0.5:8080", or for a source NAT without an address the out interface's ("masquerade via eth1"). */
function natTranslation(m: ResourceModels['nat']): string {
  const to = [m.translatedIP, m.translatedPort].filter(Boolean).join(':');
  if (to) return to;
  return m.type === 'snat' ? `masquerade${m.outInterface ? ` via ${m.outInterface}` : ''}` : '';
}
/** Issue 41: traffic to the firewall itself (docs/local-policies.md); no destination zone. */
const localPolicies: ResourceDef<'local-policies'> = {
  key: 'local-policies', title: 'Local policies', noun: 'local policy', path: '/api/local-policies', create: true, remove: true,
  idOf: (m) => String(m.id),
  columns: [
    { label: 'Id', text: (m) => String(m.id), width: 3.5 },
    { label: 'Action', text: (m) => m.action, width: 5 },
    { label: 'Source zones', text: (m) => anyIfEmpty(zoneNames(m.srcZone)) },
    { label: 'Source', text: (m) => anyIfEmpty(m.srcAddr?.name) },
    { label: 'To the firewall address', text: (m) => anyIfEmpty(m.dstAddr?.name) },
    { label: 'Services', text: (m) => anyIfEmpty(names(m.services)) },
    { label: 'Log', text: (m) => (m.log ? 'yes' : ''), width: 3.5 },
    ...metaColumns,
    ...timingColumns,
  ],
  fields: [
    { key: 'action', label: 'Action', options: ['allow', 'deny'], required: true },
    { key: 'src-zone', label: 'Source zone', kind: 'zones', ref: 'zones', hint: ZONES_HINT },
    { key: 'src-addr', label: 'Source address', ref: 'addresses', hint: 'empty: any' },
    { key: 'dst-addr', label: 'Firewall address', ref: 'addresses', hint: 'empty: every address of the firewall' },
    { key: 'services', label: 'Services', kind: 'list', ref: 'services', hint: 'names separated by commas; empty: any' },
    { key: 'log', label: 'Log', kind: 'bool' },
    ...metaFields,
    ...timingFields,
    { key: 'description', label: 'Description' },
  ],
  formOf: (m) => ({
    action: m.action, 'src-zone': zoneNames(m.srcZone), 'src-addr': m.srcAddr?.name ?? '',
    'dst-addr': m.dstAddr?.name ?? '', services: names(m.services), log: m.log, ...metaForm(m), ...timingForm(m), description: m.description ?? '',
  }),
};

const nat: ResourceDef<'nat'> = {
  key: 'nat', title: 'NAT', noun: 'NAT rule', path: '/api/nat', create: true, remove: true, ordered: true,
  idOf: (m) => String(m.id),
  columns: [
    nameColumn,
    { label: 'Type', text: (m) => m.type, width: 5.5 },
    { label: 'Zones', text: zonesText, min: 7 },
    { label: 'Source', text: (m) => anyIfEmpty(m.srcAddress), min: 6 },
    { label: 'Destination', text: (m) => anyIfEmpty(m.dstAddress), min: 7.5 },
    { label: 'Service', text: (m) => anyIfEmpty(m.service), min: 6 },
    { label: 'Translated to', text: natTranslation, min: 7 },
    { label: 'Out interface', text: (m) => m.outInterface, optional: true },
    { label: 'Description', text: (m) => m.description, optional: true },
    ...metaColumns,
  ],
  fields: [
    { key: 'type', label: 'Type', options: ['snat', 'dnat-ip', 'dnat-port', 'static'], required: true },
    { key: 'src-zone', label: 'Source zone', kind: 'zones', ref: 'zones', hint: ZONES_HINT },
    { key: 'dst-zone', label: 'Destination zone', kind: 'zones', ref: 'zones', hint: ZONES_HINT },
    { key: 'src-addr', label: 'Source address', ref: 'addresses' },
    { key: 'dst-addr', label: 'Destination address', ref: 'addresses' },
    { key: 'service', label: 'Service', ref: 'services' },
    { key: 'translated-ip', label: 'Translated IP' },
    { key: 'translated-port', label: 'Translated port' },
    { key: 'out-interface', label: 'Out interface', ref: 'interfaces' },
    { key: 'persistent', label: 'One pool address per source', kind: 'bool' },
    { key: 'description', label: 'Description' },
    ...metaFields,
  ],
  formOf: (m) => ({
    ...metaForm(m),
    type: m.type, 'src-zone': zoneNames(m.srcZone), 'dst-zone': zoneNames(m.dstZone), 'src-addr': m.srcAddress, 'dst-addr': m.dstAddress,
    service: m.service, 'translated-ip': m.translatedIP, 'translated-port': m.translatedPort, 'out-interface': m.outInterface, persistent: m.persistent ?? false, description: m.description,
  }),
};

/** Issue 40 item 4: when the policies naming a schedule match (docs/schedules.md). */
const schedules: ResourceDef<'schedules'> = {
  key: 'schedules', title: 'Schedules', noun: 'schedule', path: '/api/schedules', create: true, remove: true,
  idOf: (m) => m.name,
  columns: [
    { label: 'Name', text: (m) => m.name },
    { label: 'Now', text: (m) => (m.active ? 'on' : 'off'), width: 4 },
    { label: 'When', text: (m) => (m.type === 'once' ? `${m.start} to ${m.end}` : `${join(m.days ?? [])} ${join(m.ranges ?? [])}`), min: 24 },
    { label: 'Time zone', text: (m) => m['time-zone'], width: 10 },
    { label: 'Description', text: (m) => m.description },
  ],
  fields: [
    { key: 'name', label: 'Name', required: true, fixed: true },
    { key: 'type', label: 'Type', options: ['recurring', 'once'], required: true },
    { key: 'time-zone', label: 'Time zone', hint: 'IANA name (Europe/Berlin); empty: UTC' },
    { key: 'days', label: 'Days', kind: 'list', hint: 'recurring: mon, tue, wed, thu, fri, sat, sun' },
    { key: 'ranges', label: 'Time ranges', kind: 'list', hint: 'recurring: 08:00-12:00, 13:00-18:00 (a range across midnight is two)' },
    { key: 'start', label: 'Start', hint: 'once: ISO 8601 with an offset' },
    { key: 'end', label: 'End', hint: 'once: ISO 8601 with an offset' },
    { key: 'description', label: 'Description' },
  ],
  formOf: (m) => ({ name: m.name, type: m.type, 'time-zone': m['time-zone'], days: join(m.days ?? []), ranges: join(m.ranges ?? []), start: m.start ?? '', end: m.end ?? '', description: m.description }),
};

export const RESOURCE_DEFS = { policies, nat, 'local-policies': localPolicies, schedules, addresses, services, 'address-groups': addressGroups, 'service-groups': serviceGroups, zones, interfaces, vlans, dhcp, routes } as const;

/** The request body of a form: typed values, empty optional fields left out of a create. */
export function bodyOf<B>(fields: FieldSpec<B>[], values: FormValues, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.key];
    if (f.kind === 'bool') {
      body[f.key] = v === true;
      continue;
    }
    const text = typeof v === 'string' ? v.trim() : '';
    if (text === '' && (creating || f.kind === 'number' || f.omitEmpty)) continue;
    if (f.kind === 'number') body[f.key] = /^-?\d+$/.test(text) ? Number(text) : text;
    else if (f.kind === 'list') body[f.key] = splitList(text);
    else if (f.kind === 'zones') body[f.key] = zonesValue(text);
    else if (f.kind === 'ports') body[f.key] = splitList(text).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    else body[f.key] = text;
  }
  return body;
}

/** A zones field's payload: "" (any), one name, or the names (issue 41). */
function zonesValue(text: string): string | string[] {
  const names = splitList(text);
  return names.length > 1 ? names : names[0] ?? '';
}

function splitList(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}
