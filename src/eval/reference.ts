// The plain definition of eval.md: every step scans the configuration in order. It is the
// oracle the compiled matchers are tested against, so it stays small and obvious; it only
// parses addresses and ports once, in the constructor. Decisions eval.md leaves open are
// listed in docs/eval.md ("Semantics") and marked [decision] here.
import { FwError } from '../errors';
import { formatCidr, formatIp, parseCidr, parseIp, type Cidr, type Family } from '../config/net';
import { linkCidrs } from '../config/link-addresses';
import { poolFirst } from '../config/nat-pool';
import { mapAddress, staticPair, type StaticPair } from '../config/nat-static';
import type { ConfigDoc, NatRule, PolicyObj, RouteObj, ZoneRef } from '../config/types';
import type { EvalResult, Evaluator, NatAnswer, Packet } from './types';
import { hasPorts, isIcmp, protocolNumber } from '../config/protocols';
import { GroupFlattener } from '../config/groups';

interface Iface {
  name: string;
  zone: string | null; // null: none (or a zone that does not exist)
  up: boolean;
  /** every address (host bits kept) with its connected subnet */
  cidrs: Array<{ addr: Cidr; subnet: Cidr }>;
}

interface Svc {
  protocol: number;
  ranges: Array<[number, number]>; // destination ports (tcp, udp, sctp)
  icmpType?: number;
  icmpCode?: number;
  sources?: Array<[number, number]>; // source ports (tcp, udp, sctp); absent: every one
}

interface Route {
  id: number | null; // null: a connected subnet
  destination: string;
  egress: string;
}

/** Does `net` hold the address `bytes` (same family)? */
function holds(net: Cidr, family: Family, bytes: Uint8Array): boolean {
  if (net.family !== family) return false;
  for (let bit = 0; bit < net.prefix; bit++) {
    const m = 0x80 >> (bit & 7);
    if ((net.bytes[bit >> 3] & m) !== (bytes[bit >> 3] & m)) return false;
  }
  return true;
}

function parsePorts(entry: number | string): [number, number] | null {
  if (typeof entry === 'number') return [entry, entry];
  const m = /^(\d+)-(\d+)$/.exec(entry);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

const isAny = (name: string) => name === '' || name === 'any';

export class ReferenceEvaluator implements Evaluator {
  private readonly zoneNets: Array<{ name: string; nets: Cidr[] }> = [];
  private readonly ifaces = new Map<string, Iface>();
  private readonly ifaceList: Iface[] = []; // sorted by name: ties go to the first [decision]
  private readonly addresses = new Map<string, Cidr[]>();
  /** each service group's services (flattened once) */
  private readonly serviceGroups = new Map<string, readonly string[]>();
  private readonly services = new Map<string, Svc>();
  private readonly routes: RouteObj[];
  private readonly policies: PolicyObj[];
  private readonly nat: NatRule[];
  /** each static rule's networks (a rule that cannot map has none: it matches nothing) */
  private readonly statics = new Map<NatRule, StaticPair>();

  constructor(private readonly doc: ConfigDoc) {
    for (const name of [...doc.zones.keys()].sort()) {
      const nets = doc.zones.get(name)!.networks.map((n) => parseCidr(n)).filter((c): c is Cidr => c !== null);
      this.zoneNets.push({ name, nets });
    }
    const members = [...doc.interfaces.values(), ...doc.vlans.values()];
    for (const m of members.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (this.ifaces.has(m.name)) continue;
      const iface: Iface = {
        name: m.name,
        zone: m.zone !== '' && doc.zones.has(m.zone) ? m.zone : null,
        up: m.state === 'up',
        cidrs: linkCidrs(m),
      };
      this.ifaces.set(m.name, iface);
      this.ifaceList.push(iface);
    }
    // an address group is looked up like an address, by its flattened networks
    const groups = new GroupFlattener(doc);
    for (const a of groups.addresses().values()) {
      this.addresses.set(a.name, a.ips.map((t) => parseCidr(t)).filter((c): c is Cidr => c !== null));
    }
    for (const g of doc.serviceGroups.keys()) this.serviceGroups.set(g, groups.serviceLeaves(g));
    for (const s of doc.services.values()) {
      const ranges = s.ports.map(parsePorts).filter((r): r is [number, number] => r !== null);
      const sources = s.sourcePorts?.map(parsePorts).filter((r): r is [number, number] => r !== null);
      this.services.set(s.name, { protocol: protocolNumber(s.protocol), ranges, icmpType: s.icmpType, icmpCode: s.icmpCode, sources });
    }
    this.routes = doc.routes;
    this.policies = doc.policies;
    this.nat = doc.nat;
    for (const r of doc.nat) {
      const pair = r.type === 'static' ? staticPair(doc, r, groups) : null;
      if (pair !== null && typeof pair !== 'string') this.statics.set(r, pair);
    }
  }

  eval(p: Packet): EvalResult {
    if (p.inInterface !== null && !this.ifaces.has(p.inInterface)) {
      throw new FwError('ERR_NET_2003', `in-interface: unknown interface or VLAN "${p.inInterface}"`);
    }
    if (p.srcZone !== null && !this.doc.zones.has(p.srcZone)) throw new FwError('ERR_NET_2003', `src-zone: unknown zone "${p.srcZone}"`);
    if (p.dstZone !== null && !this.doc.zones.has(p.dstZone)) throw new FwError('ERR_NET_2003', `dst-zone: unknown zone "${p.dstZone}"`);

    // 1. source zone
    const srcZone = this.sourceZone(p);
    // 1b. [decision, issue 41] broadcast and multicast are never forwarded: the kernel delivers
    // them to the firewall itself (or drops them); no route, NAT or policy is consulted
    const cast = this.castReason(p);
    if (cast !== null) {
      const denied: EvalResult = { action: 'deny', reason: cast, srcZone, dstZone: p.dstZone, egressInterface: null, route: null, nat: null, policy: null };
      // [decision, issue 41] a broadcast reaches the firewall itself: a local policy judges it,
      // else a management shortcut may accept it, else it stays denied as a broadcast
      if (cast === 'multicast') return denied;
      const local = this.local(p, srcZone);
      return local.policy !== null || local.action === 'allow' ? { action: local.action, reason: local.reason, srcZone, dstZone: p.dstZone, egressInterface: null, route: null, nat: null, policy: local.policy } : denied;
    }
    // 2. route and destination zone of the original destination
    const route1 = this.route(p.family, p.dst);
    const dstZone1 = p.dstZone ?? this.destinationZone(route1, p.family, p.dst);
    // 3. NAT, first match, on the original packet
    const nat = this.matchNat(p, srcZone, dstZone1, route1);
    // 4. dnat: route and zone again for the new destination
    let route = route1;
    let dstZone = dstZone1;
    const dnat = nat !== null && nat.dnat;
    if (dnat) {
      route = this.route(p.family, nat.newDst);
      dstZone = p.dstZone ?? this.destinationZone(route, p.family, nat.newDst);
    }
    const base = {
      srcZone,
      dstZone,
      egressInterface: route ? route.egress : null,
      route: route ? { id: route.id, destination: route.destination } : null,
    };
    // 4b. [issue 41] to one of the firewall's own addresses (after a dnat: the new one): the
    // local policies judge it, then the management shortcuts of the link it came in on
    if (this.isOwn(p.family, dnat ? nat.newDst : p.dst)) {
      const local = this.local(p, srcZone);
      // the answer's fields in their usual order (the batch's JSON is compared byte for byte)
      return { action: local.action, reason: local.reason, srcZone, dstZone: null, egressInterface: null, route: null, nat: dnat ? nat.answer : null, policy: local.policy };
    }
    // 5. no route and no dst-zone given [decision: nat is the dnat rule when one matched]
    if (route === null && p.dstZone === null) {
      return { action: 'deny', reason: 'no-route', ...base, nat: dnat ? nat.answer : null, policy: null };
    }
    // 6. security policy: post-NAT destination zone, original addresses and service
    const policy = this.policies.find((r) => this.policyMatches(r, p, srcZone, dstZone));
    if (!policy) return { action: 'deny', reason: 'default-deny', ...base, nat: dnat ? nat.answer : null, policy: null };
    // 7. snat only for an allowed packet
    const allowed = policy.action === 'allow';
    return {
      action: policy.action,
      reason: 'policy',
      ...base,
      nat: nat !== null && (dnat || allowed) ? nat.answer : null,
      policy: { id: policy.id, action: policy.action, log: policy.log },
    };
  }

  /** multicast (224.0.0.0/4, ff00::/8), the limited broadcast, or an up link's IPv4 subnet's
   * broadcast address (prefixes up to /30: a /31 and a /32 have none). */
  private castReason(p: Packet): 'broadcast' | 'multicast' | null {
    const d = p.dst;
    if (p.family === 6) return d[0] === 0xff ? 'multicast' : null;
    if ((d[0] & 0xf0) === 0xe0) return 'multicast';
    if (d.every((b) => b === 255)) return 'broadcast';
    for (const i of this.ifaceList) {
      if (!i.up) continue;
      for (const { subnet } of i.cidrs) {
        if (subnet.family === 4 && subnet.prefix <= 30 && holds(subnet, 4, d)) {
          // every host bit set
          let all = true;
          for (let bit = subnet.prefix; bit < 32; bit++) if ((d[bit >> 3] & (0x80 >> (bit & 7))) === 0) all = false;
          if (all) return 'broadcast';
        }
      }
    }
    return null;
  }

  /** An address of an up interface or VLAN (host bits kept). */
  private isOwn(family: Family, bytes: Uint8Array): boolean {
    return this.ifaceList.some((i) => i.up && i.cidrs.some(({ addr }) => addr.family === family && addr.bytes.every((b, k) => b === bytes[k])));
  }

  /** The local judgement of a packet to the firewall itself: the first local policy that
   * matches (no dst-zone), else the management shortcuts of the ingress link: the in-interface,
   * else the egress of the route back to the source. */
  private local(p: Packet, srcZone: string | null): Pick<EvalResult, 'action' | 'reason' | 'policy'> {
    const rule = this.doc.localPolicies.find((r) => this.policyMatches(r, p, srcZone, null));
    if (rule) return { action: rule.action, reason: 'local-policy', policy: { id: rule.id, action: rule.action, log: rule.log } };
    const ingress = p.inInterface ?? this.route(p.family, p.src)?.egress ?? null;
    const link = ingress === null ? undefined : this.doc.interfaces.get(ingress) ?? this.doc.vlans.get(ingress);
    const m = new Set<string>(link?.management ?? []);
    const dhcp = ingress !== null && this.doc.dhcp.has(ingress);
    const tcp = p.protocol === 6, port = p.dstPort;
    const ok =
      (m.has('ping') && ((p.protocol === 1 && port >> 8 === 8) || (p.protocol === 58 && port >> 8 === 128))) ||
      (tcp && ((m.has('ssh') && port === 22) || (m.has('https') && port === 443) || (m.has('http') && port === 80))) ||
      (dhcp && p.protocol === 17 && port === 67);
    return { action: ok ? 'allow' : 'deny', reason: 'local-policy', policy: null };
  }

  private zoneOf(ifaceName: string): string | null {
    return this.ifaces.get(ifaceName)?.zone ?? null;
  }

  /** The zone whose networks hold the address most specifically; ties: first zone by name. */
  private zoneByNetworks(family: Family, bytes: Uint8Array): string | null {
    let best: string | null = null;
    let bestPrefix = -1;
    for (const z of this.zoneNets) {
      for (const n of z.nets) {
        if (n.prefix > bestPrefix && holds(n, family, bytes)) {
          best = z.name;
          bestPrefix = n.prefix;
        }
      }
    }
    return best;
  }

  /** The up interface or VLAN whose connected subnet holds the address most specifically. */
  private connected(family: Family, bytes: Uint8Array): Iface | null {
    let best: Iface | null = null;
    let bestPrefix = -1;
    for (const i of this.ifaceList) {
      if (!i.up) continue;
      for (const { subnet } of i.cidrs) {
        if (holds(subnet, family, bytes) && subnet.prefix > bestPrefix) {
          best = i;
          bestPrefix = subnet.prefix;
        }
      }
    }
    return best;
  }

  private sourceZone(p: Packet): string | null {
    if (p.srcZone !== null) return p.srcZone;
    // [decision] an in-interface without a zone falls through to the next rule
    if (p.inInterface !== null) {
      const z = this.zoneOf(p.inInterface);
      if (z !== null) return z;
    }
    const z = this.zoneByNetworks(p.family, p.src);
    if (z !== null) return z;
    // [decision] the most specific up connected subnet decides, even if its interface has no zone
    const i = this.connected(p.family, p.src);
    return i ? i.zone : null;
  }

  /** The egress of a static route, or null when it is unusable. */
  private routeEgress(r: RouteObj): string | null {
    if (r.interface !== '') {
      const i = this.ifaces.get(r.interface);
      return i && i.up ? i.name : null;
    }
    const gw = r.gateway !== '' ? parseIp(r.gateway) : null;
    if (!gw) return null;
    const i = this.connected(gw.family, gw.bytes);
    return i ? i.name : null;
  }

  /** Longest prefix; ties: connected subnets first (then interface name), lower metric, lower id. */
  private route(family: Family, dst: Uint8Array): Route | null {
    type Cand = Route & { prefix: number; kind: number; metric: number; name: string };
    const cands: Cand[] = [];
    for (const i of this.ifaceList) {
      for (const { subnet } of i.up ? i.cidrs : []) {
        if (holds(subnet, family, dst)) cands.push({ id: null, destination: formatCidr(subnet), egress: i.name, prefix: subnet.prefix, kind: 0, metric: 0, name: i.name });
      }
    }
    for (const r of this.routes) {
      const d = parseCidr(r.destination);
      if (!d || !holds(d, family, dst)) continue;
      const egress = this.routeEgress(r);
      if (egress !== null) cands.push({ id: r.id, destination: formatCidr(d), egress, prefix: d.prefix, kind: 1, metric: r.metric, name: '' });
    }
    cands.sort(
      (a, b) =>
        b.prefix - a.prefix || a.kind - b.kind || a.metric - b.metric || (a.id ?? 0) - (b.id ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    if (cands.length === 0) return null;
    return { id: cands[0].id, destination: cands[0].destination, egress: cands[0].egress };
  }

  private destinationZone(route: Route | null, family: Family, dst: Uint8Array): string | null {
    if (route) {
      const z = this.zoneOf(route.egress);
      if (z !== null) return z;
    }
    return this.zoneByNetworks(family, dst);
  }

  /** one zone, any, or (issue 41) a list: the packet's zone is one of them */
  private zoneMatches(ruleZone: ZoneRef, zone: string | null): boolean {
    if (typeof ruleZone !== 'string') return zone !== null && ruleZone.includes(zone);
    return isAny(ruleZone) || ruleZone === zone;
  }

  private addrMatches(name: string, family: Family, bytes: Uint8Array): boolean {
    if (isAny(name)) return true;
    const nets = this.addresses.get(name);
    return nets !== undefined && nets.some((n) => holds(n, family, bytes));
  }

  /** A ported protocol by destination port, ICMP by the type and code it names (an ICMP
   * packet's dstPort is type << 8 | code), any other protocol by its number alone. [decision]
   * A service with source ports takes a packet whose src-port is one of them; a packet
   * without src-port counts as source port 0, which no service names. */
  private serviceMatches(name: string, p: Packet): boolean {
    const leaves = this.serviceGroups.get(name);
    if (leaves) return leaves.some((l) => this.serviceMatches(l, p));
    const s = this.services.get(name);
    if (s === undefined || s.protocol !== p.protocol) return false;
    if (hasPorts(s.protocol)) {
      const sp = p.srcPort ?? 0;
      return s.ranges.some(([lo, hi]) => lo <= p.dstPort && p.dstPort <= hi) && (s.sources === undefined || s.sources.some(([lo, hi]) => lo <= sp && sp <= hi));
    }
    if (!isIcmp(s.protocol)) return true;
    return (s.icmpType === undefined || s.icmpType === p.dstPort >> 8) && (s.icmpCode === undefined || s.icmpCode === (p.dstPort & 0xff));
  }

  private policyMatches(r: PolicyObj, p: Packet, srcZone: string | null, dstZone: string | null): boolean {
    return (
      !r.disabled &&
      this.zoneMatches(r.srcZone, srcZone) &&
      this.zoneMatches(r.dstZone, dstZone) &&
      this.addrMatches(r.srcAddr, p.family, p.src) &&
      this.addrMatches(r.dstAddr, p.family, p.dst) &&
      (r.services.length === 0 || r.services.some((s) => isAny(s) || this.serviceMatches(s, p)))
    );
  }

  private matchNat(p: Packet, srcZone: string | null, dstZone: string | null, route: Route | null): { answer: NatAnswer; newDst: Uint8Array; dnat: boolean } | null {
    for (const r of this.nat) {
      if (r.disabled) continue;
      if (r.type === 'static') {
        const m = this.matchStatic(r, p, srcZone, dstZone);
        if (m) return m;
        continue;
      }
      if (!this.zoneMatches(r.srcZone, srcZone) || !this.zoneMatches(r.dstZone, dstZone)) continue;
      if (!this.addrMatches(r.srcAddr, p.family, p.src) || !this.addrMatches(r.dstAddr, p.family, p.dst)) continue;
      if (!isAny(r.service) && !this.serviceMatches(r.service, p)) continue;
      if (!isAny(r.outInterface) && (route === null || route.egress !== r.outInterface)) continue;
      // the rule applies only to packets of its translated address's family
      let translated: Cidr | null = null;
      if (r.translatedIp !== '') {
        const ip = parseIp(poolFirst(r.translatedIp)); // a pool: its first address
        translated = ip ? { family: ip.family, bytes: ip.bytes, prefix: 0 } : null;
      } else if (r.type === 'snat' && route !== null) {
        // masquerade: the egress link's first address of the packet's family
        translated = this.ifaces.get(route.egress)?.cidrs.find((c) => c.addr.family === p.family)?.addr ?? null;
      }
      if (translated === null || translated.family !== p.family) continue;
      const answer: NatAnswer = {
        id: r.id,
        type: r.type,
        translatedIP: formatIp(translated.family, translated.bytes),
        translatedPort: r.translatedPort,
      };
      return { answer, newDst: translated.bytes, dnat: r.type !== 'snat' };
    }
    return null;
  }

  /**
   * A static rule (issue 41, nat-static.ts): outbound, from the inside network in the rule's
   * zones to its dst-addr, the source becomes the outside host of the same host bits;
   * [decision] inbound, from the rule's dst-zone and its dst-addr to the outside network (any
   * destination zone: before the translation it is the outside's), the destination becomes
   * the inside host. Outbound is tried first.
   */
  private matchStatic(r: NatRule, p: Packet, srcZone: string | null, dstZone: string | null) {
    const pair = this.statics.get(r);
    if (!pair) return null;
    const answer = (to: Uint8Array, translates: 'source' | 'destination'): NatAnswer =>
      ({ id: r.id, type: r.type, translatedIP: formatIp(p.family, to), translatedPort: '', translates });
    if (this.zoneMatches(r.srcZone, srcZone) && this.zoneMatches(r.dstZone, dstZone) && holds(pair.inside, p.family, p.src) && this.addrMatches(r.dstAddr, p.family, p.dst)) {
      const to = mapAddress(pair.inside, pair.outside, p.src);
      return { answer: answer(to, 'source'), newDst: to, dnat: false };
    }
    if (this.zoneMatches(r.dstZone, srcZone) && holds(pair.outside, p.family, p.dst) && this.addrMatches(r.dstAddr, p.family, p.src)) {
      const to = mapAddress(pair.outside, pair.inside, p.dst);
      return { answer: answer(to, 'destination'), newDst: to, dnat: true };
    }
    return null;
  }
}
