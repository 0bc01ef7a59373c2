// The HA pair (issue 39): one optional document of the configuration, `ha`, edited with
// PUT /api/ha like any other change of the candidate. Two fwd nodes become one firewall on
// the wire: keepalived (VRRPv3) moves the virtual addresses, conntrackd (FTFW) keeps the
// connections (src/dataplane/ha-*.ts). This module holds the document's shape, its checks
// and the two views of a configuration that HA makes:
// - the pair view (commit checks, what needs one address for the pair): an HA link's address
//   is its virtual address;
// - a node's view (its kernel): an HA link's addresses are that node's own, and a masquerade
//   out of an HA link translates to the link's virtual address.
import { Type, type Static } from '@sinclair/typebox';
import { FwError } from '../errors';
import { cidrContainsIp, parseIfaceAddress, type Cidr } from './net';
import { addressFields, linkAddresses } from './link-addresses';
import type { ConfigDoc, InterfaceObj, NatRule, VlanObj } from './types';
import { checkIfaceAddress, checkName, checkRange, checkRef, shapeChecker } from './validate';

export interface HaNode {
  node: string; // an FW_NODE_ID
  priority: number; // 1-254, distinct
  /** link name -> the node's own addresses there ("10.0.0.2/24", host bits kept) */
  addresses: Record<string, string[]>;
}

export interface HaVirtual {
  interface: string;
  vrid: number; // 1-255, unique per link and family
  addresses: string[]; // "10.0.0.1/24": held by the master alone
}

export interface HaConfig {
  enabled: boolean;
  syncInterface: string;
  advertIntervalMs: number;
  preempt: boolean;
  nodes: HaNode[];
  virtualAddresses: HaVirtual[];
}

export const HA_DEFAULTS = { advertIntervalMs: 1000, preempt: true } as const;

const Addrs = Type.Array(Type.String(), { maxItems: 64 });

/** The document of GET and PUT /api/ha (and `ha` of fwd-config/1). */
export const HaModel = Type.Object({
  enabled: Type.Boolean(),
  'sync-interface': Type.Optional(Type.String({ description: 'the link conntrackd syncs over (no zone); "" when disabled' })),
  'advert-interval-ms': Type.Optional(Type.Integer({ description: 'VRRP advertisement interval, 100-10,000 ms (default 1000)' })),
  preempt: Type.Optional(Type.Boolean({ description: 'the node of higher priority takes the master role back when it returns (default true)' })),
  nodes: Type.Optional(Type.Array(Type.Object({
    node: Type.String({ description: 'an FW_NODE_ID' }),
    priority: Type.Integer({ description: '1-254, distinct' }),
    addresses: Type.Record(Type.String(), Addrs, { description: 'link name -> the node\'s own addresses on it' }),
  }, { additionalProperties: false }), { maxItems: 8 })),
  'virtual-addresses': Type.Optional(Type.Array(Type.Object({
    interface: Type.String(),
    vrid: Type.Integer({ description: '1-255, unique per link and address family' }),
    addresses: Addrs,
  }, { additionalProperties: false }), { maxItems: 64 })),
}, { additionalProperties: false, description: 'the HA pair: VRRP virtual addresses and connection sync' });
export type HaBody = Static<typeof HaModel>;

const checkShape = shapeChecker(HaModel);

/** The document as the API writes it. */
export function renderHa(ha: HaConfig | undefined): HaBody {
  if (!ha) return { enabled: false, 'sync-interface': '', 'advert-interval-ms': HA_DEFAULTS.advertIntervalMs, preempt: HA_DEFAULTS.preempt, nodes: [], 'virtual-addresses': [] };
  return {
    enabled: ha.enabled,
    'sync-interface': ha.syncInterface,
    'advert-interval-ms': ha.advertIntervalMs,
    preempt: ha.preempt,
    nodes: ha.nodes.map((n) => ({ node: n.node, priority: n.priority, addresses: Object.fromEntries(Object.entries(n.addresses).map(([k, v]) => [k, [...v]])) })),
    'virtual-addresses': ha.virtualAddresses.map((v) => ({ interface: v.interface, vrid: v.vrid, addresses: [...v.addresses] })),
  };
}

const linkExists = (doc: ConfigDoc) => (name: string) => doc.interfaces.has(name) || doc.vlans.has(name);
const familyOf = (c: Cidr) => c.family;

/**
 * The checked HA document of a PUT body: shape (400 ERR_NET_1004), ranges (ERR_NET_1008),
 * addresses (ERR_NET_1001), links that exist (ERR_NET_2003), what must be unique (409
 * ERR_NET_2006). What spans other objects (zones, a link's own addresses, DHCP pools) is a
 * commit check (haProblems): a candidate is edited in any order.
 */
export function checkHa(doc: ConfigDoc, body: unknown): HaConfig {
  const b = checkShape(body);
  const exists = linkExists(doc);
  const ha: HaConfig = {
    enabled: b.enabled,
    syncInterface: b['sync-interface'] ?? '',
    advertIntervalMs: b['advert-interval-ms'] ?? HA_DEFAULTS.advertIntervalMs,
    preempt: b.preempt ?? HA_DEFAULTS.preempt,
    nodes: [],
    virtualAddresses: [],
  };
  checkRange('advert-interval-ms', ha.advertIntervalMs, 100, 10_000);
  checkRef('sync-interface', ha.syncInterface, exists, 'interface');
  const nodeIds = new Set<string>();
  const priorities = new Map<number, string>();
  (b.nodes ?? []).forEach((n, i) => {
    const at = `nodes[${i}]`;
    checkName(`${at}.node`, n.node);
    if (nodeIds.has(n.node)) throw new FwError('ERR_NET_2006', `field "${at}.node": node "${n.node}" appears twice`);
    nodeIds.add(n.node);
    checkRange(`${at}.priority`, n.priority, 1, 254);
    const other = priorities.get(n.priority);
    if (other !== undefined) throw new FwError('ERR_NET_2006', `field "${at}.priority": ${n.priority} is also node "${other}"'s priority (priorities are distinct)`);
    priorities.set(n.priority, n.node);
    const addresses: Array<[string, string[]]> = [];
    for (const link of Object.keys(n.addresses).sort()) {
      checkRef(`${at}.addresses`, link, exists, 'interface');
      const list: string[] = [];
      n.addresses[link].forEach((a, j) => {
        const c = checkIfaceAddress(`${at}.addresses.${link}[${j}]`, a);
        if (c === '') throw new FwError('ERR_NET_1001', `field "${at}.addresses.${link}[${j}]": an address with a prefix such as 10.0.0.2/24 is required`);
        if (list.includes(c)) throw new FwError('ERR_NET_2006', `field "${at}.addresses.${link}": ${c} appears twice`);
        list.push(c);
      });
      addresses.push([link, list]);
    }
    ha.nodes.push({ node: n.node, priority: n.priority, addresses: Object.fromEntries(addresses) });
  });
  const vrids = new Map<string, number>();
  (b['virtual-addresses'] ?? []).forEach((v, i) => {
    const at = `virtual-addresses[${i}]`;
    checkRef(`${at}.interface`, v.interface, exists, 'interface');
    if (v.interface === '') throw new FwError('ERR_NET_1004', `field "${at}.interface": a link is required`);
    if (v.interface === ha.syncInterface) throw new FwError('ERR_NET_1004', `field "${at}.interface": ${v.interface} is the sync interface, which carries no virtual address`);
    checkRange(`${at}.vrid`, v.vrid, 1, 255);
    if (!v.addresses.length) throw new FwError('ERR_NET_1004', `field "${at}.addresses": at least one address`);
    const list = v.addresses.map((a, j) => {
      const c = checkIfaceAddress(`${at}.addresses[${j}]`, a);
      if (c === '') throw new FwError('ERR_NET_1001', `field "${at}.addresses[${j}]": an address with a prefix such as 10.0.0.1/24 is required`);
      return c;
    });
    for (const family of new Set(list.map((a) => familyOf(parseIfaceAddress(a)!)))) {
      // VRRPv3 runs one instance per family: a vrid is unique per link and family
      const key = `${v.interface}|${family}|${v.vrid}`;
      const was = vrids.get(key);
      if (was !== undefined) throw new FwError('ERR_NET_2006', `field "${at}.vrid": ${v.vrid} is already virtual-addresses[${was}]'s on ${v.interface} (IPv${family})`);
      vrids.set(key, i);
    }
    ha.virtualAddresses.push({ interface: v.interface, vrid: v.vrid, addresses: list });
  });
  checkVirtualInsideNodes(ha);
  if (ha.enabled) checkEnabled(ha);
  return ha;
}

/** Every virtual address lies inside a subnet of each node's addresses on its link, and is none of them. */
function checkVirtualInsideNodes(ha: HaConfig): void {
  ha.virtualAddresses.forEach((v, i) => {
    v.addresses.forEach((a, j) => {
      const vip = parseIfaceAddress(a)!;
      for (const n of ha.nodes) {
        const own = (n.addresses[v.interface] ?? []).map((x) => parseIfaceAddress(x)!);
        const field = `virtual-addresses[${i}].addresses[${j}]`;
        if (own.some((o) => o.family === vip.family && o.bytes.every((b, k) => b === vip.bytes[k]))) {
          throw new FwError('ERR_NET_2006', `field "${field}": ${a} is node "${n.node}"'s own address`);
        }
        if (!own.some((o) => o.family === vip.family && cidrContainsIp(o, vip))) {
          const has = n.addresses[v.interface]?.join(', ') || 'none';
          throw new FwError('ERR_NET_1001', `field "${field}": ${a} is outside node "${n.node}"'s addresses on ${v.interface} (${has})`);
        }
      }
    });
  });
}

/** An enabled pair: two nodes, a sync interface each node has an IPv4 address on. */
function checkEnabled(ha: HaConfig): void {
  if (ha.nodes.length !== 2) throw new FwError('ERR_NET_1004', `field "nodes": an enabled HA pair has exactly two nodes (${ha.nodes.length} given)`);
  if (ha.syncInterface === '') throw new FwError('ERR_NET_1004', 'field "sync-interface": an enabled HA pair needs a sync interface');
  for (const n of ha.nodes) {
    if (!(n.addresses[ha.syncInterface] ?? []).some((a) => !a.includes(':'))) {
      throw new FwError('ERR_NET_1004', `field "nodes": node "${n.node}" has no IPv4 address on the sync interface ${ha.syncInterface}`);
    }
  }
  if (!ha.virtualAddresses.length) throw new FwError('ERR_NET_1004', 'field "virtual-addresses": an enabled HA pair moves at least one virtual address');
}

/** The links that carry virtual addresses, plus the sync interface: their addresses are per node. */
export function haLinks(ha: HaConfig | undefined): Set<string> {
  if (!ha?.enabled) return new Set();
  return new Set([...ha.virtualAddresses.map((v) => v.interface), ...(ha.syncInterface ? [ha.syncInterface] : [])]);
}

/** The commit problems HA adds (pair view of the rest: pairView). */
export function haProblems(doc: ConfigDoc): string[] {
  const ha = doc.ha;
  if (!ha?.enabled) return [];
  const out: string[] = [];
  const exists = linkExists(doc);
  for (const name of [...haLinks(ha)].sort()) {
    if (!exists(name)) {
      out.push(`ha: link ${name} does not exist`);
      continue;
    }
    const l = doc.interfaces.get(name) ?? doc.vlans.get(name)!;
    if (linkAddresses(l).length) out.push(`ha: ${name} is an HA link: its shared ip/addresses are not used (each node's own are in ha.nodes, the pair's in virtual-addresses); clear them`);
  }
  const sync = ha.syncInterface;
  if (sync && exists(sync)) {
    const l = doc.interfaces.get(sync) ?? doc.vlans.get(sync)!;
    if (l.zone !== '') out.push(`ha: sync interface ${sync} carries zone ${l.zone}: the sync link carries no traffic of a zone`);
  }
  const vipLinks = new Set(ha.virtualAddresses.map((v) => v.interface));
  for (const n of doc.nat) {
    if (n.type === 'snat' && n.translatedIp === '' && n.outInterface === '' && vipLinks.size && !n.disabled) {
      out.push(`nat ${n.id}: a masquerade of an HA pair names its out-interface (it then translates to that link's virtual address)`);
    }
  }
  return out;
}

/** The warnings of a commit: an explicit translated-ip that is a node's own address fails over to nothing. */
export function haWarnings(doc: ConfigDoc): string[] {
  const ha = doc.ha;
  if (!ha?.enabled) return [];
  const own = new Map<string, string>();
  for (const n of ha.nodes) for (const list of Object.values(n.addresses)) for (const a of list) own.set(a.split('/')[0], n.node);
  return doc.nat
    .filter((r) => r.translatedIp !== '' && own.has(r.translatedIp))
    .map((r) => `nat ${r.id}: translated-ip ${r.translatedIp} is node ${own.get(r.translatedIp)}'s own address: its connections do not survive a failover (use the link's virtual address)`);
}

/** A link with `list` as its addresses (the stored form: `addresses` only when more than one). */
function readdressed<T extends InterfaceObj | VlanObj>(l: T, list: string[]): T {
  const { addresses: _old, ...rest } = l;
  return { ...rest, ...addressFields(list) } as T;
}

/** A copy of `doc` whose HA links hold `addresses(link)` (null: leave the link as it is). */
function withLinkAddresses(doc: ConfigDoc, addresses: (link: string) => string[] | null): ConfigDoc {
  const interfaces = new Map(doc.interfaces);
  const vlans = new Map(doc.vlans);
  for (const [name, l] of doc.interfaces) {
    const a = addresses(name);
    if (a) interfaces.set(name, readdressed(l, a));
  }
  for (const [name, l] of doc.vlans) {
    const a = addresses(name);
    if (a) vlans.set(name, readdressed(l, a));
  }
  return { ...doc, interfaces, vlans };
}

/**
 * The configuration as the pair presents it (the commit checks, eval): an HA link's address
 * is its virtual addresses, and for a family without one the first node's own (the sync link:
 * the first node's, it only must exist).
 */
export function pairView(doc: ConfigDoc): ConfigDoc {
  const ha = doc.ha;
  if (!ha?.enabled) return doc;
  const links = haLinks(ha);
  return withLinkAddresses(doc, (link) => {
    if (!links.has(link)) return null;
    const vips = ha.virtualAddresses.filter((v) => v.interface === link).flatMap((v) => v.addresses);
    // a family without a virtual address is the nodes' own (the first node's stands for both):
    // IPv6 announced by router advertisements from the master's own addresses, the sync link
    const v6 = (a: string) => a.includes(':');
    const covered = new Set(vips.map(v6));
    return [...vips, ...(ha.nodes[0]?.addresses[link] ?? []).filter((a) => !covered.has(v6(a)))];
  });
}

/** The first IPv4 virtual address of a link (without prefix), or null. */
export function virtualIpv4(ha: HaConfig, link: string): string | null {
  for (const v of ha.virtualAddresses) {
    if (v.interface !== link) continue;
    const a = v.addresses.find((x) => !x.includes(':'));
    if (a) return a.split('/')[0];
  }
  return null;
}

/**
 * The configuration node `nodeId` enforces on its kernel: its own addresses on the HA links
 * (keepalived adds the virtual ones on the master), and a masquerade out of an HA link as a
 * source translation to the link's virtual address, so that the replies reach whichever node
 * is master and a connection's translation is the same on both (conntrackd syncs it).
 */
export function nodeView(doc: ConfigDoc, nodeId: string | undefined): ConfigDoc {
  const ha = doc.ha;
  if (!ha?.enabled) return doc;
  const me = ha.nodes.find((n) => n.node === nodeId);
  const links = haLinks(ha);
  const view = withLinkAddresses(doc, (link) => (links.has(link) ? me?.addresses[link] ?? [] : null));
  view.nat = doc.nat.map((n): NatRule => {
    if (n.type !== 'snat' || n.translatedIp !== '' || !links.has(n.outInterface)) return n;
    const vip = virtualIpv4(ha, n.outInterface);
    return vip ? { ...n, translatedIp: vip } : n;
  });
  return view;
}

/** The node of `nodeId` in the pair, or undefined. */
export function haNode(ha: HaConfig | undefined, nodeId: string | undefined): HaNode | undefined {
  return ha?.nodes.find((n) => n.node === nodeId);
}

/** The other node of the pair. */
export function haPeer(ha: HaConfig, nodeId: string | undefined): HaNode | undefined {
  return ha.nodes.find((n) => n.node !== nodeId);
}

/** Whether the HA document names `link` (sync interface, a node's addresses, a virtual address). */
export function haNamesLink(ha: HaConfig, link: string): boolean {
  return ha.syncInterface === link || ha.virtualAddresses.some((v) => v.interface === link) || ha.nodes.some((n) => Object.hasOwn(n.addresses, link));
}
