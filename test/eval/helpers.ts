// Shared fixtures of the eval tests: a small document builder and fast-check arbitraries of
// random configurations and packets. Addresses are drawn from a few small shared "universes"
// (two IPv4 /24s, one IPv4 /16 and IPv6 /120s, plus the whole space) so that packets land on
// prefix edges, overlapping networks and equal prefixes all the time.
import fc from 'fast-check';
import { emptyDoc } from '../../src/config/document';
import { canonicalCidr, formatCidr, parseCidr } from '../../src/config/net';
import type { ConfigDoc, NatType, PortEntry, ZoneRef } from '../../src/config/types';
import type { BuildParams } from '../../src/eval/classifier';

export interface DocSpec {
  zones?: Record<string, string[]>; // name -> networks
  interfaces?: Record<string, { ip?: string; zone?: string; state?: 'up' | 'down' }>;
  vlans?: Record<string, { ip?: string; zone?: string; state?: 'up' | 'down'; parent?: string; id?: number }>;
  addresses?: Record<string, string[]>;
  services?: Record<string, { protocol: string; ports: PortEntry[]; icmpType?: number; icmpCode?: number; sourcePorts?: PortEntry[] }>;
  addressGroups?: Record<string, string[]>; // name -> members
  serviceGroups?: Record<string, string[]>;
  routes?: Array<{ destination: string; gateway?: string; interface?: string; metric?: number; id?: number }>;
  policies?: Array<{ action?: 'allow' | 'deny'; srcZone?: ZoneRef; dstZone?: ZoneRef; srcAddr?: string; dstAddr?: string; services?: string[]; log?: boolean; id?: number; disabled?: boolean }>;
  nat?: Array<{ type: NatType; srcZone?: ZoneRef; dstZone?: ZoneRef; srcAddr?: string; dstAddr?: string; service?: string; translatedIp?: string; translatedPort?: string; outInterface?: string; id?: number; disabled?: boolean }>;
}

export function mkDoc(s: DocSpec): ConfigDoc {
  const doc = emptyDoc(Object.keys(s.interfaces ?? {}));
  for (const [name, networks] of Object.entries(s.zones ?? {})) {
    doc.zones.set(name, { name, type: 'l3', color: '', networks: networks.map((n) => canonicalCidr(n)!) });
  }
  for (const [name, i] of Object.entries(s.interfaces ?? {})) {
    Object.assign(doc.interfaces.get(name)!, { ip: i.ip ?? '', zone: i.zone ?? '', state: i.state ?? 'up' });
  }
  let vid = 10;
  for (const [name, v] of Object.entries(s.vlans ?? {})) {
    doc.vlans.set(name, { name, id: v.id ?? vid++, parent: v.parent ?? 'eth0', ip: v.ip ?? '', zone: v.zone ?? '', state: v.state ?? 'up', management: [] });
  }
  for (const [name, ips] of Object.entries(s.addresses ?? {})) {
    doc.addresses.set(name, { name, ips: [...new Set(ips.map((n) => canonicalCidr(n)!))] });
  }
  for (const [name, svc] of Object.entries(s.services ?? {})) doc.services.set(name, { name, ...svc });
  for (const [name, members] of Object.entries(s.addressGroups ?? {})) doc.addressGroups.set(name, { name, members, description: '' });
  for (const [name, members] of Object.entries(s.serviceGroups ?? {})) doc.serviceGroups.set(name, { name, members, description: '' });
  (s.routes ?? []).forEach((r, i) => {
    doc.routes.push({ id: r.id ?? i + 1, description: '', destination: canonicalCidr(r.destination)!, gateway: r.gateway ?? '', interface: r.interface ?? '', metric: r.metric ?? 0 });
  });
  doc.routes.sort((a, b) => a.id - b.id);
  (s.policies ?? []).forEach((p, i) => {
    doc.policies.push({ id: p.id ?? i + 1, action: p.action ?? 'allow', srcZone: p.srcZone ?? '', dstZone: p.dstZone ?? '', srcAddr: p.srcAddr ?? '', dstAddr: p.dstAddr ?? '', services: p.services ?? [], log: p.log ?? false, ...(p.disabled ? { disabled: true } : {}) });
  });
  (s.nat ?? []).forEach((n, i) => {
    doc.nat.push({ id: n.id ?? i + 1, description: '', type: n.type, srcZone: n.srcZone ?? '', dstZone: n.dstZone ?? '', srcAddr: n.srcAddr ?? '', dstAddr: n.dstAddr ?? '', service: n.service ?? '', translatedIp: n.translatedIp ?? '', translatedPort: n.translatedPort ?? '', outInterface: n.outInterface ?? '', ...(n.disabled ? { disabled: true } : {}) });
  });
  doc.counters = { policy: doc.policies.length, nat: doc.nat.length, route: doc.routes.length };
  return doc;
}

// ---- random configurations ------------------------------------------------------------

const V4_BASES = ['10.0.0.', '10.0.1.', '10.1.7.', '192.168.1.'];
const V6_BASES = ['2001:db8::', '2001:db8:0:1::', 'fd00::'];
const V4_LENS = [0, 1, 8, 16, 23, 24, 25, 26, 28, 30, 31, 32, 32];
const V6_LENS = [0, 16, 32, 64, 112, 120, 121, 124, 126, 127, 128, 128];
const HOSTS = [0, 1, 2, 63, 64, 127, 128, 129, 254, 255];

const host = fc.oneof(fc.constantFrom(...HOSTS), fc.integer({ min: 0, max: 255 }));

/** An address text in one of the universes (or anywhere, rarely). */
export const addrArb = (family: 4 | 6) =>
  family === 4
    ? fc.oneof(
        { weight: 9, arbitrary: fc.tuple(fc.constantFrom(...V4_BASES), host).map(([b, h]) => `${b}${h}`) },
        { weight: 1, arbitrary: fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.')) },
      )
    : fc.oneof(
        { weight: 9, arbitrary: fc.tuple(fc.constantFrom(...V6_BASES), host).map(([b, h]) => `${b}${h.toString(16)}`) },
        { weight: 1, arbitrary: fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':')) },
      );

export const cidrArb = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(addrArb(4), fc.constantFrom(...V4_LENS)).map(([a, l]) => `${a}/${l}`) },
  { weight: 2, arbitrary: fc.tuple(addrArb(6), fc.constantFrom(...V6_LENS)).map(([a, l]) => `${a}/${l}`) },
);

const ifaceIpArb = fc.oneof(
  fc.tuple(addrArb(4), fc.constantFrom(16, 23, 24, 25, 30, 31)).map(([a, l]) => `${a}/${l}`),
  fc.tuple(addrArb(6), fc.constantFrom(64, 120, 126)).map(([a, l]) => `${a}/${l}`),
);

const PORTS = [1, 22, 53, 79, 80, 81, 443, 1023, 1024, 8080, 65534, 65535];
const portEntryArb: fc.Arbitrary<PortEntry> = fc.oneof(
  fc.constantFrom(...PORTS),
  fc.constantFrom('1-1024', '80-81', '1000-2000', '1024-65535', '60000-65535', '1-65535', '443-8080'),
);

export interface RandomSpec {
  zones: Array<{ networks: string[] }>;
  ifaces: Array<{ ip: string | null; zone: number | null; up: boolean }>;
  vlans: Array<{ ip: string | null; zone: number | null; up: boolean }>;
  addresses: string[][];
  services: Array<{ protocol: string; ports: PortEntry[]; icmpType?: number | null; icmpCode?: number | null; sourcePorts?: PortEntry[] | null }>;
  routes: Array<{ destination: string; gateway: string | null; iface: number | null; metric: number }>;
  policies: Array<{ allow: boolean; sz: ZoneIdx; dz: ZoneIdx; sa: number | null; da: number | null; svcs: number[] | null; log: boolean; off?: boolean }>;
  nat: Array<{ type: NatType; sz: ZoneIdx; dz: ZoneIdx; sa: number | null; da: number | null; svc: number | null; tip: string | null; port: number; out: number | null; off?: boolean }>;
  /** address groups ag0..: member indices into the addresses then the groups before it (so nesting, never a cycle) */
  addrGroups?: number[][];
  /** service groups sg0..: likewise over the services */
  svcGroups?: number[][];
}

const opt = <T>(a: fc.Arbitrary<T>, freq = 2) => fc.option(a, { nil: null, freq });
const idx = fc.nat(15);
/** a rule's zone field in a random spec: any (null), an index, or (issue 41) several */
export type ZoneIdx = number | null | number[];
/** zoneLists: a zone field is a list of 2-3 indices about one time in three */
const zoneArb = (zoneLists: boolean): fc.Arbitrary<ZoneIdx> =>
  zoneLists ? fc.oneof({ weight: 2, arbitrary: opt(idx) }, { weight: 1, arbitrary: fc.array(idx, { minLength: 2, maxLength: 3 }) }) : opt(idx);

export interface SpecSizes {
  policies: [number, number];
  nat: [number, number];
  addresses: number;
  services: number;
}

export const SMALL: SpecSizes = { policies: [0, 10], nat: [0, 4], addresses: 5, services: 4 };
export const LARGE: SpecSizes = { policies: [20, 120], nat: [0, 30], addresses: 12, services: 8 };

/** `off` of a rule: disabled about one time in four when `disabled` is asked for, else never. */
const offArb = (disabled: boolean) => (disabled ? fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }) : fc.constant(false));

const ICMP_TYPES = [0, 3, 8, 11, 128, 129];

/** A service of any protocol kind (issue 27): ported, ICMP with or without type and code, other. */
const anyServiceArb: fc.Arbitrary<RandomSpec['services'][number]> = fc.record({
  protocol: fc.constantFrom('tcp', 'udp', 'sctp', 'icmp', 'icmpv6', 'gre', '253'),
  ports: fc.uniqueArray(portEntryArb, { minLength: 1, maxLength: 3 }),
  icmpType: opt(fc.constantFrom(...ICMP_TYPES)),
  icmpCode: opt(fc.constantFrom(0, 1, 3)),
});

/** Source ports of a service (issue 27): the ports packets draw (PORTS) and ranges around them. */
const sourcePortsArb = opt(fc.uniqueArray(portEntryArb, { minLength: 1, maxLength: 2 }), 2);

/**
 * Random configurations. `disabled`: some policies and NAT rules are disabled (rule
 * metadata); `protocols`: services of every protocol kind, not only tcp and udp; `sports`:
 * about half the ported services name source ports.
 */
const groupsArb = fc.array(fc.array(idx, { minLength: 1, maxLength: 3 }), { maxLength: 5 });

export const specArb = (z: SpecSizes = SMALL, { disabled = false, protocols = false, sports = false, groups = false, zoneLists = false } = {}): fc.Arbitrary<RandomSpec> => fc.record({
  addrGroups: groups ? groupsArb : fc.constant([]),
  svcGroups: groups ? groupsArb : fc.constant([]),
  zones: fc.array(fc.record({ networks: fc.array(cidrArb, { maxLength: 2 }) }), { maxLength: 4 }),
  ifaces: fc.array(fc.record({ ip: opt(ifaceIpArb, 5), zone: opt(idx), up: fc.boolean() }), { minLength: 1, maxLength: 4 }),
  vlans: fc.array(fc.record({ ip: opt(ifaceIpArb, 5), zone: opt(idx), up: fc.boolean() }), { maxLength: 2 }),
  addresses: fc.array(fc.array(cidrArb, { minLength: 1, maxLength: 3 }), { maxLength: z.addresses }),
  services: fc.array(fc.tuple(protocols ? anyServiceArb : fc.record<RandomSpec['services'][number]>({ protocol: fc.constantFrom('tcp', 'udp'), ports: fc.uniqueArray(portEntryArb, { minLength: 1, maxLength: 3 }) }), sports ? sourcePortsArb : fc.constant(null))
    .map(([svc, sourcePorts]) => (sourcePorts ? { ...svc, sourcePorts } : svc)), { maxLength: z.services }),
  routes: fc.array(
    fc.record({
      destination: fc.oneof(cidrArb, fc.constantFrom('0.0.0.0/0', '::/0', '10.0.0.0/24', '10.0.0.0/24')),
      gateway: opt(fc.oneof(addrArb(4), addrArb(6))),
      iface: opt(fc.nat(6)),
      metric: fc.nat(2),
    }),
    { maxLength: 5 },
  ),
  policies: fc.array(
    fc.record({ allow: fc.boolean(), sz: zoneArb(zoneLists), dz: zoneArb(zoneLists), sa: opt(idx), da: opt(idx), svcs: opt(fc.array(idx, { minLength: 1, maxLength: 2 })), log: fc.boolean(), off: offArb(disabled) }),
    { minLength: z.policies[0], maxLength: z.policies[1] },
  ),
  nat: fc.array(
    fc.record({
      type: fc.constantFrom('snat' as const, 'dnat-ip' as const, 'dnat-port' as const, 'static' as const),
      sz: zoneArb(zoneLists), dz: zoneArb(zoneLists), sa: opt(idx), da: opt(idx), svc: opt(idx),
      tip: opt(fc.oneof(addrArb(4), addrArb(6)), 3),
      port: fc.constantFrom(22, 80, 8080),
      out: opt(fc.nat(6)),
      off: offArb(disabled),
    }),
    { minLength: z.nat[0], maxLength: z.nat[1] },
  ),
});

/** A random service as stored: ports only for a ported protocol, a type and code only for ICMP. */
function serviceOf(v: RandomSpec['services'][number]): NonNullable<DocSpec['services']>[string] {
  const ported = v.protocol === 'tcp' || v.protocol === 'udp' || v.protocol === 'sctp';
  const icmp = v.protocol === 'icmp' || v.protocol === 'icmpv6';
  const out: NonNullable<DocSpec['services']>[string] = { protocol: v.protocol, ports: ported ? v.ports : [] };
  if (ported && v.sourcePorts) out.sourcePorts = v.sourcePorts;
  if (icmp && v.icmpType != null) {
    out.icmpType = v.icmpType;
    if (v.icmpCode != null) out.icmpCode = v.icmpCode;
  }
  return out;
}

/** A static rule's translated-ip for an inside of one network of at most 256 addresses: the
 * tip's network of that size (another universe's when the tip is absent or of the other
 * family); "" for any other inside. */
function staticOutside(inside: string[] | undefined, tip: string | null): string {
  const c = inside?.length === 1 ? parseCidr(inside[0]) : null;
  if (!c || c.prefix < (c.family === 4 ? 24 : 120)) return '';
  const t = tip !== null ? parseCidr(tip) : null;
  const to = t && t.family === c.family ? tip! : c.family === 4 ? '10.1.7.0' : 'fd00::';
  return formatCidr(parseCidr(`${to}/${c.prefix}`)!).replace(c.family === 4 ? /\/32$/ : /\/128$/, '');
}

/** Turns a random spec into a document; indices wrap around, an index into nothing is `any`. */
export function specDoc(s: RandomSpec): ConfigDoc {
  const zoneNames = s.zones.map((_, i) => `z${i}`);
  const ifNames = s.ifaces.map((_, i) => `eth${i}`);
  const vlanNames = s.vlans.map((_, i) => `vl${i}`);
  const members = [...ifNames, ...vlanNames, 'eth9'];
  const pickName = (list: string[], i: number | null) => (i === null || list.length === 0 ? '' : list[i % list.length]);
  const oneZone = (i: number | null) => pickName(zoneNames, i);
  // a list of indices: its distinct zones; one left is that zone's name, as the API stores it
  const zone = (i: ZoneIdx): ZoneRef => {
    if (!Array.isArray(i)) return oneZone(i);
    const names = [...new Set(i.map((k) => oneZone(k)))].filter((n) => n !== '');
    return names.length > 1 ? names : names[0] ?? '';
  };
  const baseAddr = s.addresses.map((_, i) => `a${i}`);
  const baseSvc = s.services.map((_, i) => `s${i}`);
  // group i holds members picked among the base objects and the groups before it
  const groupsOf = (bases: string[], specs: number[][] | undefined, prefix: string) => {
    const out: Record<string, string[]> = {};
    const pool = [...bases];
    (specs ?? []).forEach((members, i) => {
      if (pool.length === 0) return;
      out[`${prefix}${i}`] = [...new Set(members.map((m) => pool[m % pool.length]))];
      pool.push(`${prefix}${i}`);
    });
    return out;
  };
  const addressGroups = groupsOf(baseAddr, s.addrGroups, 'ag');
  const serviceGroups = groupsOf(baseSvc, s.svcGroups, 'sg');
  const addrNames = [...baseAddr, ...Object.keys(addressGroups)];
  const svcNames = [...baseSvc, ...Object.keys(serviceGroups)];
  return mkDoc({
    addressGroups,
    serviceGroups,
    zones: Object.fromEntries(s.zones.map((z, i) => [zoneNames[i], z.networks])),
    interfaces: Object.fromEntries(s.ifaces.map((f, i) => [ifNames[i], { ip: f.ip ?? '', zone: oneZone(f.zone), state: f.up ? 'up' : 'down' }])),
    vlans: Object.fromEntries(s.vlans.map((v, i) => [vlanNames[i], { ip: v.ip ?? '', zone: oneZone(v.zone), state: v.up ? 'up' : 'down' }])),
    addresses: Object.fromEntries(s.addresses.map((a, i) => [addrNames[i], a])),
    services: Object.fromEntries(s.services.map((v, i) => [svcNames[i], serviceOf(v)])),
    routes: s.routes.map((r) => ({
      destination: r.destination,
      gateway: r.gateway ?? '',
      interface: r.iface === null || (r.gateway !== null && r.iface % 2 === 0) ? '' : members[r.iface % members.length],
      metric: r.metric,
    })).map((r) => (r.gateway === '' && r.interface === '' ? { ...r, interface: members[0] } : r)),
    policies: s.policies.map((p) => ({
      action: p.allow ? 'allow' : 'deny',
      srcZone: zone(p.sz),
      dstZone: zone(p.dz),
      srcAddr: pickName(addrNames, p.sa),
      dstAddr: pickName(addrNames, p.da),
      services: p.svcs === null || svcNames.length === 0 ? [] : [...new Set(p.svcs.map((i) => svcNames[i % svcNames.length]))],
      log: p.log,
      disabled: p.off,
    })),
    nat: s.nat.map((n) => {
      let srcAddr = pickName(addrNames, n.sa);
      // a static rule (issue 41): no service, port or out-interface; mostly an inside address
      // it can map (one network of at most 256 addresses), its outside the tip's network of that
      // size (else the rule maps nothing)
      if (n.type === 'static') {
        const mappable = baseAddr.filter((_, i) => staticOutside(s.addresses[i], null) !== '');
        if (mappable.length > 0 && n.sa !== null && n.sa % 4 !== 0) srcAddr = mappable[n.sa % mappable.length];
        const tip = staticOutside(s.addresses[baseAddr.indexOf(srcAddr)], n.tip);
        return { type: n.type, srcZone: zone(n.sz), dstZone: zone(n.dz), srcAddr, dstAddr: pickName(addrNames, n.da), translatedIp: tip || (n.tip ?? '10.0.0.1'), disabled: n.off };
      }
      return {
        type: n.type,
        srcZone: zone(n.sz),
        dstZone: zone(n.dz),
        srcAddr,
        dstAddr: pickName(addrNames, n.da),
        service: pickName(svcNames, n.svc),
        translatedIp: n.type === 'snat' ? n.tip ?? '' : n.tip ?? '10.0.0.1',
        translatedPort: n.type === 'dnat-port' ? String(n.port) : '',
        outInterface: pickName(members, n.out),
        disabled: n.off,
      };
    }),
  });
}

export type JsonPacket = Record<string, unknown>;

export interface PacketSpec {
  family: 4 | 6;
  src4: string; dst4: string; src6: string; dst6: string;
  protocol: string | number;
  port: number;
  inIf: number | null;
  sz: number | null;
  dz: number | null;
  seed: number;
  sport: number | null; // the packet's src-port; null: one now and then from the seed
}

/** A random eval request; zone and interface indices are resolved against a document later. */
export const packetArb: fc.Arbitrary<PacketSpec> = fc.record({
  family: fc.constantFrom(4 as const, 4 as const, 6 as const),
  src4: addrArb(4), dst4: addrArb(4), src6: addrArb(6), dst6: addrArb(6),
  protocol: fc.constantFrom<string | number>('tcp', 'tcp', 'udp', 'icmp', 6, 17, 47, 0, 255, 'sctp', 'icmpv6', 132, 1, 58, 253),
  port: fc.oneof(fc.constantFrom(0, ...PORTS, 1025, 2000, 60000), fc.nat(65535)),
  inIf: opt(fc.nat(9), 3),
  sz: opt(fc.nat(4), 4),
  dz: opt(fc.nat(4), 4),
  seed: fc.nat(),
  sport: opt(fc.oneof(fc.constantFrom(0, ...PORTS, 1025, 60000), fc.nat(65535)), 2),
});

/** The JSON request of a packet spec; an index past the document's names gives an unknown name
 * now and then (the evaluators must then both refuse it the same way). */
export function packetJson(p: PacketSpec, zones: number, members: string[]): JsonPacket {
  const j: JsonPacket = { 'src-ip': p.family === 4 ? p.src4 : p.src6, 'dst-ip': p.family === 4 ? p.dst4 : p.dst6, protocol: p.protocol };
  if (p.protocol === 'tcp' || p.protocol === 'udp' || p.protocol === 6 || p.protocol === 17 || p.seed % 3 === 0) j['dst-port'] = p.port;
  if (p.sport !== null) j['src-port'] = p.sport;
  else if (p.seed % 5 === 0) j['src-port'] = p.seed % 65536;
  // ICMP: a type (and a code) most of the time, from the types services name
  if ((p.protocol === 'icmp' || p.protocol === 'icmpv6' || p.protocol === 1 || p.protocol === 58) && p.seed % 4 !== 0) {
    j['icmp-type'] = ICMP_TYPES[p.seed % ICMP_TYPES.length];
    if (p.seed % 3 !== 0) j['icmp-code'] = [0, 1, 3][p.seed % 3];
  }
  const unknown = p.seed % 97 === 0;
  if (p.inIf !== null) j['in-interface'] = unknown || members.length === 0 ? 'eth9' : members[p.inIf % members.length];
  if (p.sz !== null && zones > 0) j['src-zone'] = unknown ? 'nozone' : `z${p.sz % zones}`;
  if (p.dz !== null && zones > 0) j['dst-zone'] = `z${p.dz % zones}`;
  return j;
}

/** Members (interfaces and VLANs) of a spec's document, for packets' in-interface. */
export function specMembers(s: RandomSpec): string[] {
  return [...s.ifaces.map((_, i) => `eth${i}`), ...s.vlans.map((_, i) => `vl${i}`)];
}

/**
 * The same configuration written without groups, flattened here independently of
 * src/config/groups.ts (a plain recursion, no memo): each address group becomes an address of
 * its members' networks, a policy's service groups their services, and a NAT rule naming a
 * service group one rule per service it holds (first match: consecutive rules alike but for
 * the service match what one rule over their union matches).
 */
export function withoutGroups(doc: ConfigDoc): ConfigDoc {
  const out = { ...doc, addresses: new Map(doc.addresses), services: new Map(doc.services), addressGroups: new Map(), serviceGroups: new Map() } as ConfigDoc;
  const nets = (name: string): string[] => doc.addresses.get(name)?.ips ?? (doc.addressGroups.get(name)?.members ?? []).flatMap(nets);
  const svcs = (name: string): string[] => (doc.services.has(name) ? [name] : (doc.serviceGroups.get(name)?.members ?? []).flatMap(svcs));
  for (const g of doc.addressGroups.keys()) out.addresses.set(g, { name: g, ips: [...new Set(nets(g))] });
  out.policies = doc.policies.map((p) => ({ ...p, services: [...new Set(p.services.flatMap(svcs))] }));
  out.nat = doc.nat.flatMap((n) => (n.service === '' ? [n] : [...new Set(svcs(n.service))].map((service) => ({ ...n, service }))));
  return out;
}

/** Build parameters across their ranges: tiny leaves and cuts, the valve, the hash nodes and
 * the set stage on or off, so that every path of the classifier's build is taken. */
export const buildParamsArb: fc.Arbitrary<BuildParams> = fc.record({
  binth: fc.constantFrom(1, 2, 3, 16),
  spfac: fc.constantFrom(1, 2, 4),
  maxBits: fc.integer({ min: 1, max: 8 }),
  rootBits: fc.integer({ min: 1, max: 12 }),
  maxEntries: fc.constantFrom(20, 4_000_000),
  smallV4: fc.constantFrom(0, 16, 33),
  smallV6: fc.constantFrom(0, 48, 129),
  hash: fc.constantFrom(0, 1, 2),
  smallTree: fc.constantFrom(0, 64, 1 << 30),
  // 0: every rule in the set stage (wide.ts); 1, 3: rules of several prefixes there, the
  // others in the trees; 1 << 30: none there
  wide: fc.constantFrom(0, 1, 3, 8, 1 << 30),
});
