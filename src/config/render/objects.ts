// Read models of the named objects, exactly as firewall-api.md spells them.
import type {
  AddressObj, ConfigDoc, DhcpPool, InterfaceObj, LinkState, Management, PortEntry, Protocol, ServiceObj, VlanObj, ZoneObj, ZoneType,
} from '../types';
import { formatIp, maskBytes, parseCidr, parseIfaceAddress } from '../net';

export interface AddressModel {
  name: string;
  ips: Array<{ ip: number[]; mask: number[] }>; // 4 ints for IPv4, 16 for IPv6
}

export function renderAddress(a: AddressObj): AddressModel {
  return {
    name: a.name,
    ips: a.ips.map((text) => {
      const c = parseCidr(text);
      if (!c) throw new Error(`stored network "${text}" does not parse`);
      return { ip: Array.from(c.bytes), mask: Array.from(maskBytes(c.family, c.prefix)) };
    }),
  };
}

export interface ServiceModel {
  name: string;
  protocol: Protocol;
  ports: PortEntry[]; // integers; a range is a string "low-high" (low < high)
}

export function renderService(s: ServiceObj): ServiceModel {
  return { name: s.name, protocol: s.protocol, ports: [...s.ports] };
}

export interface ZoneModel {
  name: string;
  type: ZoneType;
  color: string;
  interfaces: string[]; // derived: the interfaces and VLANs whose zone is this one, sorted
  networks: string[];
}

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

export interface InterfaceModel {
  name: string;
  ip: string;
  management: Management[];
  state: LinkState;
  zone: string;
}

export function renderInterface(i: InterfaceObj): InterfaceModel {
  return { name: i.name, ip: i.ip, management: [...i.management], state: i.state, zone: i.zone };
}

export interface VlanModel {
  name: string;
  id: number;
  parent: string;
  ip: string;
  zone: string;
  state: LinkState;
  management: Management[];
}

export function renderVlan(v: VlanObj): VlanModel {
  return { name: v.name, id: v.id, parent: v.parent, ip: v.ip, zone: v.zone, state: v.state, management: [...v.management] };
}

export interface DhcpModel {
  interface: string;
  startIP: string;
  endIP: string;
  gateway: string;
  dns: string[];
  subnetMask: string; // from the interface's (or VLAN's) IPv4 prefix; "" when it has none
  leaseTimeMin: number;
}

/** The dotted mask of an interface or VLAN's IPv4 address, "" when it has no IPv4 address. */
export function linkSubnetMask(doc: ConfigDoc, link: string): string {
  const ip = doc.interfaces.get(link)?.ip ?? doc.vlans.get(link)?.ip ?? '';
  const c = ip === '' ? null : parseIfaceAddress(ip);
  if (!c || c.family !== 4) return '';
  return formatIp(4, maskBytes(4, c.prefix));
}

export function renderDhcp(doc: ConfigDoc, p: DhcpPool): DhcpModel {
  return {
    interface: p.interface,
    startIP: p.startIp,
    endIP: p.endIp,
    gateway: p.gateway,
    dns: [...p.dns],
    subnetMask: linkSubnetMask(doc, p.interface),
    leaseTimeMin: p.leaseTime,
  };
}
