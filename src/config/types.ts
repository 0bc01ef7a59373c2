// The configuration document: one firewall configuration (running or candidate).
// Named collections are Maps so that hostile names ("constructor", "__proto__") are plain
// keys; the document is serialized with serializeDoc/parseDoc (document.ts).
// "any" is stored as "" for a zone, an address, a NAT service or an out-interface, and as []
// for a policy's services.

import type { HaConfig } from './ha';

// a protocol's name ("tcp", "icmp", "gre"), or its number when it has none ("253"): protocols.ts
export type Protocol = string;
export type PortEntry = number | string; // 443, or a range "1024-65535" (low < high)
export type LinkState = 'up' | 'down';
export type Management = 'ping' | 'ssh' | 'https' | 'http';
export type ZoneType = 'l2' | 'l3';
export type PolicyAction = 'allow' | 'deny';
export type NatType = 'snat' | 'dnat-ip' | 'dnat-port' | 'static';

export interface AddressObj {
  name: string;
  ips: string[]; // canonical networks, host bits cleared, duplicates removed, order kept
  /** an FQDN address (issue 40): `ips` is empty, the daemon resolves the name at run time */
  fqdn?: string;
}

/**
 * A dynamic address set (issue 40, docs/dynamic-objects.md): committed as an object, its
 * entries change at run time without a session (src/dynamic/). Its name shares the address
 * namespace, so a policy names it wherever it names an address.
 */
export interface DynamicSetObj {
  name: string;
  family: 'ipv4' | 'ipv6';
  maxEntries: number; // 1-FW_DYNAMIC_MAX_ENTRIES
  defaultTtl: number; // seconds an entry lives when its POST names no ttl; 0 = until deleted
}

export interface ServiceObj {
  name: string;
  protocol: Protocol;
  ports: PortEntry[]; // [] for a protocol without ports (icmp, gre, ...)
  icmpType?: number; // icmp/icmpv6 only, 0-255; absent: every type
  icmpCode?: number; // only with icmpType; absent: every code
  sourcePorts?: PortEntry[]; // tcp/udp/sctp only, non-empty when present; absent: every source port
}

/** An address group or a service group (groups.ts): members are base objects or other groups of its kind. */
export interface GroupObj {
  name: string;
  members: string[]; // order kept, each once
  description: string; // "" when none
}

export interface ZoneObj {
  name: string;
  type: ZoneType;
  color: string;
  networks: string[]; // canonical networks
  // members are not stored here: they are the interfaces and VLANs whose `zone` names this zone
}

export interface InterfaceObj {
  name: string;
  ip: string; // "" or canonical "address/prefix" (host bits kept): the first IPv4 address of `addresses`, else the first
  /** every address, when more than one (link-addresses.ts); absent: `ip` alone, or none */
  addresses?: string[];
  /** IPv6 router advertisements (SLAAC) on this link; absent: off */
  ra?: boolean;
  management: Management[];
  state: LinkState;
  zone: string; // "" = none
}

export interface VlanObj {
  name: string;
  id: number; // 1-4094
  parent: string; // physical interface
  ip: string;
  addresses?: string[]; // as InterfaceObj's
  ra?: boolean;
  zone: string;
  state: LinkState;
  management: Management[];
}

export interface DhcpPool {
  interface: string; // interface or VLAN name; the key
  startIp: string;
  endIp: string;
  gateway: string; // "" = none
  dns: string[];
  leaseTime: number; // minutes
}

export interface RouteObj {
  id: number;
  description: string;
  destination: string; // canonical network; "default" is stored as 0.0.0.0/0
  gateway: string; // "" = none
  interface: string; // "" = none
  metric: number;
}

/**
 * What an operator writes about a policy or a NAT rule beside its match (rule-meta.ts). Each
 * field is stored only when set: absent means no name, no description, no tags, enabled.
 */
export interface RuleMeta {
  name?: string; // unique in its table
  description?: string;
  tags?: string[];
  disabled?: boolean; // true: keeps its place and counter, never matches
}

/** A rule's zone field (zone-list.ts): "" any, a zone's name, or 2+ names (issue 41) */
export type ZoneRef = string | readonly string[];

export interface PolicyObj extends RuleMeta {
  id: number;
  action: PolicyAction;
  srcZone: ZoneRef;
  dstZone: ZoneRef;
  srcAddr: string;
  dstAddr: string;
  services: string[]; // [] = any
  log: boolean;
}

export interface NatRule extends RuleMeta {
  id: number;
  description: string; // always stored (the seed's field)
  type: NatType;
  srcZone: ZoneRef;
  dstZone: ZoneRef;
  srcAddr: string;
  dstAddr: string;
  service: string; // "" = any
  translatedIp: string; // "" = masquerade (snat only)
  translatedPort: string; // "" unless dnat-port
  outInterface: string;
  /** snat only (issue 41): a source keeps one address of the pool for all its connections; stored only when true */
  persistent?: boolean;
}

export interface Counters {
  policy: number; // last id handed out
  nat: number;
  route: number;
  /** issue 41 (resources/local-policy.ts); absent until the first local policy: a document
   * without any serializes as it did */
  localPolicy?: number;
}

export interface ConfigDoc {
  addresses: Map<string, AddressObj>;
  services: Map<string, ServiceObj>;
  /** one namespace with addresses: a name is an address or a group, never both */
  addressGroups: Map<string, GroupObj>;
  /** one namespace with services */
  serviceGroups: Map<string, GroupObj>;
  /** one namespace with addresses (issue 40); stored only when there are some */
  dynamicSets: Map<string, DynamicSetObj>;
  zones: Map<string, ZoneObj>;
  interfaces: Map<string, InterfaceObj>;
  vlans: Map<string, VlanObj>;
  dhcp: Map<string, DhcpPool>;
  routes: RouteObj[]; // sorted by id
  policies: PolicyObj[]; // evaluation order
  nat: NatRule[]; // evaluation order
  /** issue 41: policies for traffic addressed to the firewall itself (resources/local-policy.ts);
   * dstZone always "" (the firewall is the destination); evaluation order */
  localPolicies: PolicyObj[];
  counters: Counters;
  /** the HA pair (ha.ts); undefined when never configured. Always an own property (undo.ts restores it). */
  ha?: HaConfig;
}
