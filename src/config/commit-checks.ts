// Commit-time checks of cross-object semantics (contract section 3). Each change already
// checked formats and references; these are the rules that span objects and that a
// sequence of valid changes may break for a while (an interface readdressed under its DHCP
// pool, a route added before its interface has an address). Every problem is reported, one
// line each, each line naming its object, in a fixed order: interface and VLAN addresses,
// VLANs, zones, DHCP pools, routes, NAT rules; within a kind by name or id.
import { GroupFlattener } from './groups';
import { haProblems, pairView } from './ha';
import type { ConfigDoc, DhcpPool, NatRule, PortEntry, RouteObj } from './types';
import { applyMask, cidrContainsIp, compareIp, formatCidr, formatIp, ipEquals, maskBytes, parseIp, type Cidr, type IpAddr } from './net';
import { linkCidrs, poolSubnet, type Addressed } from './link-addresses';
import { staticPair } from './nat-static';

/** An interface or a VLAN with its parsed address (null when it has none). */
interface Link {
  label: string; // "interface eth1", "vlan v10"
  name: string;
  zone: string;
  addrs: Cidr[]; // every address, host bits kept
  ra: boolean;
}

/** The interfaces (by name), then the VLANs (by name). */
function links(doc: ConfigDoc): Link[] {
  const out: Link[] = [];
  const byName = <T extends Addressed & { name: string; zone: string; ra?: boolean }>(m: Map<string, T>, kind: string) => {
    for (const name of [...m.keys()].sort()) {
      const l = m.get(name)!;
      out.push({ label: `${kind} ${name}`, name, zone: l.zone, addrs: linkCidrs(l).map((c) => c.addr), ra: l.ra === true });
    }
  };
  byName(doc.interfaces, 'interface');
  byName(doc.vlans, 'vlan');
  return out;
}

const formatCidrKeepHost = (c: Cidr): string => `${hostText(c)}/${c.prefix}`;
const hostIp = (c: Cidr): IpAddr => ({ family: c.family, bytes: c.bytes });
const hostText = (c: Cidr): string => formatIp(c.family, c.bytes);
const subnetText = (c: Cidr): string => formatCidr({ family: c.family, bytes: applyMask(c.bytes, c.prefix), prefix: c.prefix });

/** No two interfaces or VLANs have the same host address. */
function checkSharedAddresses(all: Link[], out: string[]): void {
  const first = new Map<string, Link>();
  for (const l of all) {
    for (const addr of l.addrs) {
      const key = `${addr.family}:${hostText(addr)}`;
      const owner = first.get(key);
      if (owner) out.push(`${l.label}: address ${hostText(addr)} is also used by ${owner === l ? 'another of its addresses' : owner.label}`);
      else first.set(key, l);
    }
  }
}

/** A VLAN sits on a physical interface. */
function checkVlans(doc: ConfigDoc, out: string[]): void {
  for (const name of [...doc.vlans.keys()].sort()) {
    const v = doc.vlans.get(name)!;
    if (!doc.interfaces.has(v.parent)) out.push(`vlan ${name}: parent ${v.parent} is not a physical interface`);
  }
}

/** A zone of type l3 holds only interfaces and VLANs that have an IP address. */
function checkZones(doc: ConfigDoc, all: Link[], out: string[]): void {
  for (const name of [...doc.zones.keys()].sort()) {
    if (doc.zones.get(name)!.type !== 'l3') continue;
    for (const l of all) {
      if (l.zone === name && !l.addrs.length) out.push(`zone ${name}: type l3 but ${l.label} has no IP address`);
    }
  }
}

/** The interface of that name, else the VLAN. */
function findLink(all: Link[], name: string): Link | undefined {
  return all.find((l) => l.name === name);
}

/** A DHCP pool serves the IPv4 subnet of its interface, from a sane range. */
function checkDhcpPool(p: DhcpPool, all: Link[], out: string[]): void {
  const at = `dhcp ${p.interface}`;
  const link = findLink(all, p.interface);
  if (!link) {
    out.push(`${at}: interface ${p.interface} does not exist`);
    return;
  }
  const net = poolSubnet({ ip: '', addresses: link.addrs.map(formatCidrKeepHost) }, p.startIp);
  if (!net) {
    out.push(`${at}: ${link.label} has no IPv4 address`);
    return;
  }
  const subnet = subnetText(net);
  const start = parseIp(p.startIp);
  const end = parseIp(p.endIp);
  if (!start || !end) {
    out.push(`${at}: range ${p.startIp}-${p.endIp} is not a pair of IPv4 addresses`);
    return;
  }
  const range = `range ${p.startIp}-${p.endIp}`;
  const startIn = cidrContainsIp(net, start);
  const endIn = cidrContainsIp(net, end);
  if (!startIn && !endIn) out.push(`${at}: ${range} is outside ${subnet}`);
  else if (!startIn) out.push(`${at}: start ${p.startIp} is outside ${subnet}`);
  else if (!endIn) out.push(`${at}: end ${p.endIp} is outside ${subnet}`);
  const ordered = compareIp(start.bytes, end.bytes) <= 0;
  if (!ordered) out.push(`${at}: start ${p.startIp} is after end ${p.endIp}`);
  const inRange = (ip: IpAddr) => ip.family === 4 && compareIp(start.bytes, ip.bytes) <= 0 && compareIp(ip.bytes, end.bytes) <= 0;
  if (startIn && endIn && ordered) {
    if (inRange(hostIp(net))) out.push(`${at}: ${range} contains the address of ${link.label} (${hostText(net)})`);
    if (net.prefix <= 30) {
      const network = applyMask(net.bytes, net.prefix);
      const mask = maskBytes(4, net.prefix);
      const broadcast = Uint8Array.from(network, (b, i) => b | (~mask[i] & 0xff));
      if (inRange({ family: 4, bytes: network })) out.push(`${at}: ${range} contains the network address ${formatIp(4, network)}`);
      if (inRange({ family: 4, bytes: broadcast })) out.push(`${at}: ${range} contains the broadcast address ${formatIp(4, broadcast)}`);
    }
  }
  if (p.gateway !== '') {
    const gw = parseIp(p.gateway);
    if (!gw || !cidrContainsIp(net, gw)) out.push(`${at}: gateway ${p.gateway} is outside ${subnet}`);
    else if (ordered && inRange(gw)) out.push(`${at}: gateway ${p.gateway} is inside the ${range}`);
  }
}

function isLinkLocal6(ip: IpAddr): boolean {
  return ip.family === 6 && ip.bytes[0] === 0xfe && (ip.bytes[1] & 0xc0) === 0x80;
}

/** A route's gateway is a neighbour: inside a connected subnet, and not one of our own addresses. */
function checkRoute(r: RouteObj, all: Link[], out: string[]): void {
  if (r.gateway === '') return;
  const at = `route ${r.id}`;
  const gw = parseIp(r.gateway);
  if (!gw) {
    out.push(`${at}: gateway ${r.gateway} is not an IP address`);
    return;
  }
  const own = all.find((l) => l.addrs.some((a) => ipEquals(hostIp(a), gw)));
  if (own) {
    out.push(`${at}: gateway ${r.gateway} is the address of ${own.label}`);
    return;
  }
  if (r.interface !== '') {
    if (isLinkLocal6(gw)) return; // every IPv6 link has a link-local subnet
    const link = findLink(all, r.interface);
    const same = link?.addrs.filter((a) => a.family === gw.family) ?? [];
    if (!link?.addrs.length) out.push(`${at}: gateway ${r.gateway} is unreachable: ${link?.label ?? `interface ${r.interface}`} has no IP address`);
    else if (!same.some((a) => cidrContainsIp(a, gw))) out.push(`${at}: gateway ${r.gateway} is outside ${(same.length ? same : link.addrs).map(subnetText).join(', ')}, the subnet${same.length > 1 ? 's' : ''} of ${link.label}`);
    return;
  }
  if (isLinkLocal6(gw)) {
    out.push(`${at}: link-local gateway ${r.gateway} needs an interface`);
    return;
  }
  if (!all.some((l) => l.addrs.some((a) => cidrContainsIp(a, gw)))) {
    out.push(`${at}: gateway ${r.gateway} is not in any connected subnet`);
  }
}

function checkRoutes(doc: ConfigDoc, all: Link[], out: string[]): void {
  const seen = new Map<string, number>();
  for (const r of [...doc.routes].sort((a, b) => a.id - b.id)) {
    checkRoute(r, all, out);
    const key = `${r.destination}|${r.gateway}|${r.interface}|${r.metric}`;
    const twin = seen.get(key);
    if (twin !== undefined) out.push(`route ${r.id}: same destination, gateway, interface and metric as route ${twin}`);
    else seen.set(key, r.id);
  }
}

/** The one port number a port entry names (80, "80" or "80-80"), or null for a range. */
function singlePort(p: PortEntry): number | null {
  if (typeof p === 'number') return p;
  const m = /^(\d+)(?:-(\d+))?$/.exec(p);
  return m !== null && (m[2] === undefined || m[1] === m[2]) ? Number(m[1]) : null;
}

/**
 * A dnat-port rule translates a single port number: its service, or every service of its
 * group (flattened), has exactly one port, and all of them the same one (tcp/53 and udp/53
 * forward together). The problem in words, or null.
 */
function dnatPortProblem(doc: ConfigDoc, groups: GroupFlattener, service: string): string | null {
  if (service === '' || service === 'any') return 'a dnat-port rule needs a service with a single port number, not any';
  const leaves = groups.serviceLeaves(service);
  const ports = new Map<string, number | null>();
  for (const name of leaves) {
    const svc = doc.services.get(name);
    if (!svc) return `service ${name} does not exist`;
    if (svc.ports.length !== 1 || singlePort(svc.ports[0]) === null) {
      return `service ${name} has ports ${svc.ports.join(', ') || 'none'}; a dnat-port rule needs a single port number`;
    }
    ports.set(name, singlePort(svc.ports[0]));
  }
  if (leaves.length === 0) {
    return groups.isServiceGroup(service) ? `service group ${service} holds no service; a dnat-port rule needs a single port number` : `service ${service} does not exist`;
  }
  if (new Set(ports.values()).size > 1) {
    const list = [...ports].map(([name, port]) => `${name} ${port}`).join(', ');
    return `service group ${service} holds different ports (${list}); a dnat-port rule needs a single port number`;
  }
  return null;
}

/** A dnat-port rule translates one port number; a static rule maps one network to one of its size; a masquerade needs an address on its out-interface. */
function checkNat(doc: ConfigDoc, groups: GroupFlattener, n: NatRule, all: Link[], out: string[]): void {
  const at = `nat ${n.id}`;
  if (n.type === 'dnat-port') {
    const problem = dnatPortProblem(doc, groups, n.service);
    if (problem !== null) out.push(`${at}: ${problem}`);
  }
  // a static rule's inside network is its address object's, which may have changed since
  if (n.type === 'static') {
    const pair = staticPair(doc, n, groups);
    if (typeof pair === 'string') out.push(`${at}: ${pair}`);
  }
  if (n.type === 'snat' && n.translatedIp === '' && n.outInterface !== '') {
    const link = findLink(all, n.outInterface);
    if (!link?.addrs.length) out.push(`${at}: masquerade needs an address on out-interface ${n.outInterface}`);
  }
}

/** A link serving router advertisements has an IPv6 /64 to announce (SLAAC needs 64 bits of host). */
function checkRa(all: Link[], out: string[]): void {
  for (const l of all) {
    if (l.ra && !l.addrs.some((a) => a.family === 6 && a.prefix === 64 && !isLinkLocal6(a))) {
      out.push(`${l.label}: ra needs an IPv6 address with a /64 prefix to announce (SLAAC)`);
    }
  }
}

/** Every problem of the document, one line each; [] when it can be committed. */
export function commitChecks(given: ConfigDoc): string[] {
  // an HA pair's links are checked with their virtual addresses (ha.ts pairView)
  const doc = pairView(given);
  const out: string[] = [...haProblems(given)];
  const all = links(doc);
  checkSharedAddresses(all, out);
  checkRa(all, out);
  checkVlans(doc, out);
  checkZones(doc, all, out);
  for (const name of [...doc.dhcp.keys()].sort()) checkDhcpPool(doc.dhcp.get(name)!, all, out);
  checkRoutes(doc, all, out);
  const groups = new GroupFlattener(doc);
  for (const n of [...doc.nat].sort((a, b) => a.id - b.id)) checkNat(doc, groups, n, all, out);
  return out;
}
