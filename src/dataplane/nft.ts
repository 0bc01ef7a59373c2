// The nft table of a configuration: one table of our own (inet fwdaemon) as units that two
// versions can be compared by (nft-table.ts): written whole (deleted and recreated in one
// transaction) or as the difference, atomically either way, never touching another owner's
// tables. Pure: the same document (and counter values) gives the same table. Names of sets
// and chains come from what they stand for (an object's name, a policy's id), never from a
// position, so a change renames nothing else.
//
// Every decision eval.md makes from an address alone (source zone, destination zone, egress
// of the route) is an interval set computed by topology.ts; rules then follow eval.md's order:
//   nat_pre   (prerouting, dstnat)  NAT table in order on the original packet: dnat, or stop
//                                   at a matching snat rule (first match wins)
//   forward   (filter)              `admit`: established connections of this version and related
//                                   accepted (older ones judged again: rematch); then the policies in
//                                   order on the connection's tuples (ct original/reply ...), in
//                                   chains of about 64 policies (`pol_<last id>`); an allow marks
//                                   the connection and ends in `stamp` (the version's generation);
//                                   anything else dropped
//   nat_post  (postrouting, srcnat) not for dnat'ed connections; the same NAT table in order:
//                                   snat / masquerade (only allowed packets get here)
//   input     (filter)              the local policies in order (issue 41), then management
//                                   access per link, everything else dropped
//   rpf       (prerouting, -150)    a source that would not be routed back out of the link it
//                                   came in on is dropped (the source zone is decided by address)
import { haInputRules, haSets } from './ha-render';
import { GroupFlattener } from '../config/groups';
import type { Family } from '../config/net';
import { parseCidr, type Cidr } from '../config/net';
import { nftNet, staticPair, type StaticPair } from '../config/nat-static';
import { parsePool, poolNft } from '../config/nat-pool';
import type { AddressObj, ConfigDoc, DynamicSetObj, NatRule, PolicyObj, ZoneRef } from '../config/types';
import { CUT_MARK, GENERATION_MASK, generationMark, hex, policyMark } from './marks';
import { tableDigest, tableScript, type NftChain, type NftTable } from './nft-table';
import { hasPorts, isIcmp, PROTO, protocolNumber } from '../config/protocols';
import { select, union, type Seg } from './ranges';
import { Topology } from './topology';
import { Sets, addrElements, stableId } from './nft-sets';
import { DEFAULT_DENY_LOG_PREFIX, DEFAULT_LOG_RULES, localLogPrefix, logsTraffic, natLogPrefix, nflog, nflogOnce, policyLogPrefix, type TrafficLogRules } from './nft-log';

export interface PolicyCounter {
  packets: number;
  bytes: number;
}

const FAMILIES: Family[] = [4, 6];
const IP: Record<Family, string> = { 4: 'ip', 6: 'ip6' };
const ADDR_TYPE: Record<Family, string> = { 4: 'ipv4_addr', 6: 'ipv6_addr' };
const MANAGEMENT: Record<string, string[]> = {
  ping: ['icmp type echo-request', 'icmpv6 type echo-request'],
  ssh: ['tcp dport 22'],
  https: ['tcp dport 443'],
  http: ['tcp dport 80'],
};

const isAny = (name: string) => name === '' || name === 'any';
/** a zone field names any zone (a list never does: zone-list.ts) */
const anyZone = (z: ZoneRef) => typeof z === 'string' && isAny(z);

/** The name of a policy's counter object: the API reads hits back by it. */
export function counterName(policyId: number): string {
  return `policy_${policyId}`;
}

/** The name of a local policy's counter (issue 41). */
export function localCounterName(id: number): string {
  return `local_${id}`;
}

/** The name of a NAT rule's counter: the first packet of every connection it translates. */
export function natCounterName(natId: number): string {
  return `nat_${natId}`;
}

class Renderer {
  readonly sets = new Sets();
  private readonly segCache = new Map<string, Seg<string | null>[]>();
  /** address groups flattened into the interval sets, service groups into their services: each group once per render */
  readonly groups: GroupFlattener;
  private readonly addresses: ReadonlyMap<string, AddressObj>;

  constructor(readonly doc: ConfigDoc, readonly topo: Topology) {
    this.groups = new GroupFlattener(doc);
    this.addresses = this.groups.addresses();
  }

  private segs(kind: 'src' | 'dst' | 'route', family: Family): Seg<string | null>[] {
    const k = `${kind}${family}`;
    let s = this.segCache.get(k);
    if (!s) {
      s = kind === 'src' ? this.topo.sourceZoneSegments(family)
        : kind === 'dst' ? this.topo.destinationZoneSegments(family)
        : this.topo.routeSegments(family);
      this.segCache.set(k, s);
    }
    return s;
  }

  /** The addresses of a zone, or of several (issue 41): one set either way, so a rule over
   * several zones is one rule, as a rule over one zone is. A list's set is named by its zones
   * in name order: lists of the same zones share it. */
  zoneSet(kind: 'src' | 'dst', family: Family, zone: ZoneRef): string | null {
    const side = kind === 'src' ? 'source' : 'destination';
    if (typeof zone === 'string') {
      return this.sets.use(`${kind}zone${family}_${stableId(zone)}`, ADDR_TYPE[family],
        () => addrElements(family, select(this.segs(kind, family), (v) => v === zone)),
        `${side} zone ${zone}`);
    }
    const names = [...zone].sort();
    const members = new Set(names);
    return this.sets.use(`${kind}zones${family}_${stableId(names.join('\n'))}`, ADDR_TYPE[family],
      () => addrElements(family, select(this.segs(kind, family), (v) => v !== null && members.has(v))),
      `${side} zones ${names.join(', ')}`);
  }

  addrSet(family: Family, name: string): string | null {
    const dyn = this.doc.dynamicSets?.get(name);
    if (dyn) return this.dynamicSet(family, dyn);
    if (this.doc.addresses.get(name)?.fqdn) return this.fqdnSet(family, name);
    return this.sets.use(`addr${family}_${stableId(name)}`, ADDR_TYPE[family], () => {
      const nets = (this.addresses.get(name)?.ips ?? []).map((t) => parseCidr(t)).filter((c) => c !== null);
      return addrElements(family, union(family, nets));
    }, `${this.doc.addressGroups.has(name) ? 'address group' : 'address'} ${name}`);
  }

  /**
   * A dynamic address set (issue 40): a named set of its own, declared empty with timeouts;
   * the daemon adds and deletes its elements at run time (src/dynamic/kernel-sets.ts), and a
   * table change keeps them (an unchanged empty declaration is never rewritten; a whole table
   * written again is filled again after the apply). Null for the other family: a rule naming
   * it cannot match that family.
   */
  private dynamicSet(family: Family, set: DynamicSetObj): string | null {
    if ((set.family === 'ipv4' ? 4 : 6) !== family) return null;
    const name = dynamicNftSetName(set);
    if (!this.dynamicDeclared.has(name)) {
      this.dynamicDeclared.add(name);
      this.sets.decls.push({ name, type: ADDR_TYPE[family], elements: [], comment: `dynamic set ${set.name}`, flags: 'interval, timeout' });
    }
    return `@${name}`;
  }

  private readonly dynamicDeclared = new Set<string>();

  /**
   * An FQDN address (issue 40): a named set per family, declared empty; the daemon writes the
   * name's current resolution into it (src/dynamic/fqdn.ts), also after a whole table is
   * written again (the refill). Empty until the first answer: the rule matches nothing then.
   */
  private fqdnSet(family: Family, address: string): string {
    // both families at once: the daemon writes both (a refill naming an undeclared set would fail)
    for (const f of FAMILIES) {
      const name = fqdnNftSetName(address, f);
      if (this.dynamicDeclared.has(name)) continue;
      this.dynamicDeclared.add(name);
      this.sets.decls.push({ name, type: ADDR_TYPE[f], elements: [], comment: `fqdn address ${address}`, flags: 'interval' });
    }
    return `@${fqdnNftSetName(address, family)}`;
  }

  egressSet(family: Family, link: string): string | null {
    return this.sets.use(`egress${family}_${stableId(link)}`, ADDR_TYPE[family],
      () => addrElements(family, select(this.segs('route', family), (v) => v === link)), `routed out of ${link}`);
  }

  /**
   * The match of a service (null: no such service): `meta l4proto tcp <portExpr> <ports>` for
   * a ported protocol (and its source ports, when it names some, by the same expression of the
   * source: `th sport`, `ct original proto-src`), `icmp type T [icmp code C]` for ICMP that names a type, else the
   * protocol alone. Protocols other than tcp and udp are written as numbers: nothing then
   * depends on the host's /etc/protocols.
   */
  service(name: string, portExpr: string): string | null {
    const svc = this.doc.services.get(name);
    if (!svc) return null;
    const n = protocolNumber(svc.protocol);
    const proto = `meta l4proto ${svc.protocol === 'tcp' || svc.protocol === 'udp' ? svc.protocol : n}`;
    if (hasPorts(n)) {
      const dst = `${proto} ${portExpr} ${this.sets.ports(svc)}`;
      if (!svc.sourcePorts || svc.sourcePorts.length === 0) return dst;
      const srcExpr = portExpr.replace('dport', 'sport').replace('proto-dst', 'proto-src');
      return `${dst} ${srcExpr} ${this.sets.sourcePorts(svc)}`;
    }
    if (!isIcmp(n) || svc.icmpType === undefined) return proto;
    const k = n === PROTO.icmp ? 'icmp' : 'icmpv6';
    return `${proto} ${k} type ${svc.icmpType}${svc.icmpCode === undefined ? '' : ` ${k} code ${svc.icmpCode}`}`;
  }

  /** Destinations routed out of a link that has an address of this family (masquerade can apply). */
  masqueradeSet(family: Family): string | null {
    return this.sets.use(`masquerade${family}`, ADDR_TYPE[family],
      () => addrElements(family, select(this.segs('route', family), (v) => this.topo.hasFamily(v ?? '', family))),
      `routed out of a link with an IPv${family} address`);
  }
}

/** The expressions (IP: ip or ip6) a rule compares with the source, the destination zone and the destination address. */
interface AddressExprs {
  src: string;
  dstZone: string;
  dstAddr: string;
}

/** NAT rules see the packet before any translation. */
const NAT_EXPRS: AddressExprs = { src: 'IP saddr', dstZone: 'IP daddr', dstAddr: 'IP daddr' };
/**
 * Policies compare the connection's tuples, not the packet's addresses, so that a packet of
 * either direction of an established connection is judged as its first packet was (rematch):
 * the original source; the destination zone of the post-dnat destination (the reply's
 * source); the original destination (eval.md step 6).
 */
const POLICY_EXPRS: AddressExprs = { src: 'ct original IP saddr', dstZone: 'ct reply IP saddr', dstAddr: 'ct original IP daddr' };

/** What a rule matches on beside its services (a policy's, a local policy's, a NAT rule's). */
interface ZoneAddrMatch { srcZone: ZoneRef; dstZone: ZoneRef; srcAddr: string; dstAddr: string }

/** Matches of zones and addresses for one family; null when the rule cannot match it. */
function addressMatches(
  r: Renderer, family: Family,
  m: ZoneAddrMatch,
  exprs: AddressExprs,
): string[] | null {
  const ip = IP[family];
  const parts: string[] = [];
  const add = (expr: string, set: string | null) => {
    if (set === null) return false;
    parts.push(`${expr.replace('IP', ip)} ${set}`);
    return true;
  };
  if (!anyZone(m.srcZone) && !add(exprs.src, r.zoneSet('src', family, m.srcZone))) return null;
  if (!anyZone(m.dstZone) && !add(exprs.dstZone, r.zoneSet('dst', family, m.dstZone))) return null;
  if (!isAny(m.srcAddr) && !add(exprs.src, r.addrSet(family, m.srcAddr))) return null;
  if (!isAny(m.dstAddr) && !add(exprs.dstAddr, r.addrSet(family, m.dstAddr))) return null;
  return parts;
}

const zoneOrAddressBound = (m: ZoneAddrMatch) =>
  !anyZone(m.srcZone) || !anyZone(m.dstZone) || !isAny(m.srcAddr) || !isAny(m.dstAddr);

/**
 * Service matches of a policy: one alternative per service ([""] for any service). Rules are
 * cheap for the kernel and sets are not, so a policy of three services is three rules that
 * share its counter, and each service's port set exists once.
 */
function serviceAlternatives(r: Renderer, names: string[], portExpr: string): string[] {
  if (names.length === 0 || names.some(isAny)) return [''];
  return r.groups.services(names).map((n) => r.service(n, portExpr)).filter((m): m is string => m !== null);
}

function policyRules(r: Renderer, p: PolicyObj, log: TrafficLogRules): string[] {
  if (p.disabled) return []; // its counter object stays, so its hits are kept
  // an accepted connection carries the policy that accepted it and, from `stamp`, the version
  // (marks.ts): the version is in one rule, so that a commit rewrites no policy for it
  const verdict = p.action === 'allow' ? `ct mark set ${policyMark(p.id)} goto stamp` : 'drop';
  const tails = [`counter name "${counterName(p.id)}" ${verdict}`];
  // a rule of its own before the verdict: only a connection's first packet is logged (not the
  // packets of an older connection that rematch judges again), within the rule's rate limit
  if (p.log) tails.unshift(nflogOnce(log, policyLogPrefix(p.id, p.action)));
  // the original destination and port: dnat has already rewritten the packet in forward
  const services = serviceAlternatives(r, p.services, 'ct original proto-dst');
  const families: Array<string[] | null> = zoneOrAddressBound(p)
    ? FAMILIES.map((f) => addressMatches(r, f, p, POLICY_EXPRS))
    : [[]];
  const out: string[] = [];
  for (const fam of families) {
    if (fam === null) continue;
    for (const svc of services) for (const tail of tails) out.push([...fam, svc, tail].filter(Boolean).join(' '));
  }
  return out;
}

/** The family a NAT rule translates to (eval.md: it applies only to packets of that family). */
function natFamilies(n: NatRule): Family[] {
  if (n.translatedIp === '') return n.type === 'snat' ? FAMILIES : [];
  const pool = parsePool(n.translatedIp);
  return pool ? [pool.family] : [];
}

/** One NAT rule's matches per family, on the packet as it was before any translation. */
function natMatches(r: Renderer, n: NatRule): Array<{ family: Family; match: string }> {
  const out: Array<{ family: Family; match: string }> = [];
  if (n.disabled) return out;
  // a service group: one rule per service it holds, as a policy's list of services is
  const svcs = isAny(n.service) ? [''] : serviceAlternatives(r, [n.service], 'th dport');
  for (const family of natFamilies(n)) {
    const parts = addressMatches(r, family, n, NAT_EXPRS);
    if (parts === null) continue;
    if (!isAny(n.outInterface)) {
      const eg = r.egressSet(family, n.outInterface);
      if (eg === null) continue;
      parts.push(`${IP[family]} daddr ${eg}`);
    }
    if (n.translatedIp === '') {
      const mq = r.masqueradeSet(family);
      if (mq === null) continue;
      parts.push(`${IP[family]} daddr ${mq}`);
    }
    for (const svc of svcs) out.push({ family, match: [`meta nfproto ipv${family}`, ...parts, svc].filter(Boolean).join(' ') });
  }
  return out;
}

/**
 * A static rule's two matches (issue 41, nat-static.ts), on the packet before any translation:
 * outbound (the rule's zones, from the inside network to its dst-addr) and inbound (from its
 * dst-zone and dst-addr to the outside network); none when it cannot map or is disabled.
 */
function staticMatches(r: Renderer, n: NatRule): { pair: StaticPair; family: Family; out: string; in: string } | null {
  const pair = n.disabled ? null : staticPair(r.doc, n, r.groups);
  if (pair === null || typeof pair === 'string') return null;
  const family = pair.inside.family;
  const outbound = addressMatches(r, family, { srcZone: n.srcZone, dstZone: n.dstZone, srcAddr: '', dstAddr: n.dstAddr }, NAT_EXPRS);
  const inbound = addressMatches(r, family, { srcZone: n.dstZone, dstZone: '', srcAddr: n.dstAddr, dstAddr: '' }, NAT_EXPRS);
  if (outbound === null && inbound === null) return null;
  const ip = IP[family];
  const rule = (parts: string[] | null, last: string) => (parts === null ? '' : [`meta nfproto ipv${family}`, ...parts, last].join(' '));
  return { pair, family, out: rule(outbound, `${ip} saddr ${nftNet(pair.inside)}`), in: rule(inbound, `${ip} daddr ${nftNet(pair.outside)}`) };
}

/** The translation from network `from` to `to` of the address `expr`: one host, or the prefix mapped host by host. */
function staticTo(family: Family, from: Cidr, to: Cidr, expr: string): string {
  const ip = IP[family];
  return to.prefix === (family === 4 ? 32 : 128) ? `${ip} to ${nftNet(to)}` : `${ip} prefix to ${ip} ${expr} map { ${nftNet(from)} : ${nftNet(to)} }`;
}

function natPre(r: Renderer, log: TrafficLogRules, logging: boolean): string[] {
  const out: string[] = [];
  for (const n of r.doc.nat) {
    if (n.type === 'static') {
      const m = staticMatches(r, n);
      if (m?.out) out.push(`${m.out} return comment "nat ${n.id}: static outbound, in postrouting"`);
      if (m?.in) {
        if (logging) out.push(`${m.in} ${nflog(log, natLogPrefix(n.id))}`);
        out.push(`${m.in} counter name "${natCounterName(n.id)}" dnat ${staticTo(m.family, m.pair.outside, m.pair.inside, 'daddr')} comment "nat ${n.id}"`);
      }
      continue;
    }
    for (const { family, match } of natMatches(r, n)) {
      if (n.type === 'snat') out.push(`${match} return comment "nat ${n.id}: snat, in postrouting"`);
      else {
        const to = family === 6 && n.translatedPort ? `[${n.translatedIp}]:${n.translatedPort}` : n.translatedPort ? `${n.translatedIp}:${n.translatedPort}` : n.translatedIp;
        // the forward chain sees the translated destination: this record of the original one
        // lets the traffic log show where the connection was addressed (traffic-kernel.ts)
        if (logging) out.push(`${match} ${nflog(log, natLogPrefix(n.id))}`);
        out.push(`${match} counter name "${natCounterName(n.id)}" dnat ${IP[family]} to ${to} comment "nat ${n.id}"`);
      }
    }
  }
  return out;
}

function natPost(r: Renderer): string[] {
  const out = ['ct status dnat return', 'fib saddr type local return'];
  for (const n of r.doc.nat) {
    if (n.type === 'static') {
      const m = staticMatches(r, n);
      if (m?.out) out.push(`${m.out} counter name "${natCounterName(n.id)}" snat ${staticTo(m.family, m.pair.inside, m.pair.outside, 'saddr')} comment "nat ${n.id}"`);
      if (m?.in) out.push(`${m.in} return comment "nat ${n.id}: static inbound, in prerouting"`);
      continue;
    }
    for (const { family, match } of natMatches(r, n)) {
      if (n.type !== 'snat') out.push(`${match} return comment "nat ${n.id}: dnat, in prerouting"`);
      // persistent (issue 41): the address is chosen by the source alone, so one source keeps one
      else if (n.translatedIp === '') out.push(`${match} counter name "${natCounterName(n.id)}" masquerade${n.persistent ? ' persistent' : ''} comment "nat ${n.id}"`);
      else out.push(`${match} counter name "${natCounterName(n.id)}" snat ${IP[family]} to ${poolNft(parsePool(n.translatedIp)!)}${n.persistent ? ' persistent' : ''} comment "nat ${n.id}"`);
    }
  }
  return out;
}

/** A packet to the firewall itself: its source (zone and address) and destination address. */
const LOCAL_EXPRS: AddressExprs = { src: 'IP saddr', dstZone: 'IP daddr', dstAddr: 'IP daddr' };

/** A local policy's rules in `input` (issue 41): as a policy's in `forward`, on the packet
 * itself (a new connection: established ones are accepted above), accept or drop. */
function localPolicyRules(r: Renderer, p: PolicyObj, log: TrafficLogRules): string[] {
  if (p.disabled) return [];
  const tails = [`counter name "${localCounterName(p.id)}" ${p.action === 'allow' ? 'accept' : 'drop'}`];
  if (p.log) tails.unshift(nflogOnce(log, localLogPrefix(p.id, p.action)));
  const services = serviceAlternatives(r, p.services, 'th dport');
  const families: Array<string[] | null> = zoneOrAddressBound(p) ? FAMILIES.map((f) => addressMatches(r, f, p, LOCAL_EXPRS)) : [[]];
  const out: string[] = [];
  for (const fam of families) {
    if (fam === null) continue;
    for (const svc of services) for (const tail of tails) out.push([...fam, svc, tail].filter(Boolean).join(' '));
  }
  return out;
}

function input(doc: ConfigDoc, topo: Topology, r: Renderer, log: TrafficLogRules): string[] {
  const out = [
    'ct state established,related accept',
    'ct state invalid drop',
    'iifname "lo" accept',
    // IPv6 needs neighbour discovery to work at all
    'icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept',
    // before the management shortcuts: a local policy may deny what a shortcut would accept
    ...doc.localPolicies.flatMap((p) => localPolicyRules(r, p, log)),
  ];
  for (const l of topo.links) {
    for (const m of l.management) for (const expr of MANAGEMENT[m] ?? []) out.push(`iifname "${l.name}" ${expr} accept`);
    if (doc.dhcp.has(l.name)) out.push(`iifname "${l.name}" udp dport 67 accept`);
  }
  out.push(...haInputRules(doc.ha));
  return out;
}

/**
 * Whether a chain of policies ends after policy `id`: about one policy in 64, chosen by the id
 * (not by position, so a policy created, deleted or moved changes the chains around it only).
 * Few enough chains that a packet's jumps cost little against its rules; small enough that
 * a changed policy's chain is written again in a few hundred rules at most.
 */
const POLICY_CHAIN_SPREAD = 64;
const endsChain = (id: number) => (Math.imul(id, 0x9e3779b1) >>> 0) % POLICY_CHAIN_SPREAD === 0;

/**
 * The policies in order as chains, each named by the policy that ends it (`pol_<id>`, the last
 * one `pol_end`): a policy created or moved at the top joins the first chain and renames none.
 */
function policyChains(r: Renderer, policies: readonly PolicyObj[], log: TrafficLogRules): NftChain[] {
  const out: NftChain[] = [];
  let rules: string[] = [];
  policies.forEach((p, i) => {
    rules.push(...policyRules(r, p, log));
    const last = i === policies.length - 1;
    if (endsChain(p.id) || last) {
      out.push({ name: endsChain(p.id) ? `pol_${p.id}` : 'pol_end', hook: null, rules });
      rules = [];
    }
  });
  return out;
}

export interface NftOptions {
  /** counter values to start from (policy id: packets and bytes) */
  counters?: ReadonlyMap<number, PolicyCounter>;
  /** the same for NAT rules (rule id) */
  natCounters?: ReadonlyMap<number, PolicyCounter>;
  /** the same for local policies (issue 41) */
  localCounters?: ReadonlyMap<number, PolicyCounter>;
  /** the version the script enforces: the generation in the connections' marks */
  version?: number;
  /** FW_SESSION_REMATCH: packets of connections accepted under an older version meet the policies again */
  rematch?: boolean;
  /** how logged rules reach the traffic log (NFLOG group, rate limit, default deny) */
  log?: TrafficLogRules;
}

/**
 * The first rules of `forward`. With rematch, an established connection flows untouched only
 * when this version accepted it; an older one's packet is marked cut and goes through the
 * policies, where an accepting policy marks it anew (then it flows) and anything else leaves
 * the cut mark and drops it (the data plane deletes cut conntrack entries). Without rematch,
 * established connections flow whatever the version.
 */
function forwardPrologue(version: number, rematch: boolean): string[] {
  if (!rematch) return ['ct state established,related accept', 'ct state invalid drop'];
  return [
    'ct state invalid drop',
    'ct state related accept',
    `ct state established ct mark and ${GENERATION_MASK} == ${generationMark(version)} accept`,
    `ct state established ct mark set ${hex(CUT_MARK)}`,
  ];
}

/** The whole nft script: applied with `nft -f`, checked with `nft -c -f`. */
/** The kernel's name of a dynamic set (its family in the name, as every set of this table). */
export function fqdnNftSetName(address: string, family: 4 | 6): string {
  return `fqdn${family}_${stableId(address)}`;
}

export function dynamicNftSetName(set: Pick<DynamicSetObj, 'name' | 'family'>): string {
  return `dyn${set.family === 'ipv4' ? 4 : 6}_${stableId(set.name)}`;
}

export function renderNft(doc: ConfigDoc, opts: NftOptions = {}): string {
  return tableScript(renderNftTable(doc, opts));
}

/**
 * The table of a configuration. The version is in two rules only (`admit`, `stamp`), so two
 * versions' tables differ where their configurations do; `stamp` also carries the digest of
 * the rest (a comment), which the data plane reads back to know the kernel holds that table.
 */
export function renderNftTable(doc: ConfigDoc, opts: NftOptions = {}): NftTable {
  const { counters = new Map<number, PolicyCounter>(), natCounters = new Map<number, PolicyCounter>(), version = 0, rematch = true, log = DEFAULT_LOG_RULES } = opts;
  const localCounters = opts.localCounters ?? new Map<number, PolicyCounter>();
  const topo = new Topology(doc);
  const r = new Renderer(doc, topo);
  const blocks = policyChains(r, doc.policies, log);
  const chain = (name: string, hook: string | null, rules: string[]): NftChain => ({ name, hook, rules });
  const chains = [
    chain('admit', null, forwardPrologue(version, rematch)),
    ...blocks,
    chain('rpf', 'type filter hook prerouting priority -150; policy accept;', [
      'meta nfproto ipv4 ip saddr != 0.0.0.0 fib saddr . iif oif missing drop',
      'meta nfproto ipv6 ip6 saddr != { ::, fe80::/10 } fib saddr . iif oif missing drop',
    ]),
    chain('input', 'type filter hook input priority filter; policy drop;', input(doc, topo, r, log)),
    // the chain's policy drops what no rule accepted; with FW_LOG_DEFAULT_DENY its first packet is logged first
    chain('forward', 'type filter hook forward priority filter; policy drop;', [
      'jump admit', ...blocks.map((b) => `jump ${b.name}`), ...(log.defaultDeny ? [nflogOnce(log, DEFAULT_DENY_LOG_PREFIX)] : []),
    ]),
    chain('nat_pre', 'type nat hook prerouting priority dstnat; policy accept;', natPre(r, log, logsTraffic(doc, log))),
    chain('nat_post', 'type nat hook postrouting priority srcnat; policy accept;', natPost(r)),
  ];
  const decl = (name: string, c: PolicyCounter = { packets: 0, bytes: 0 }) => ({ name, packets: c.packets, bytes: c.bytes });
  const table: NftTable = {
    counters: [
      ...doc.policies.map((p) => decl(counterName(p.id), counters.get(p.id))),
      ...doc.nat.map((n) => decl(natCounterName(n.id), natCounters.get(n.id))),
      ...doc.localPolicies.map((p) => decl(localCounterName(p.id), localCounters.get(p.id))),
    ],
    sets: [...r.sets.decls, ...haSets(doc.ha)],
    chains,
  };
  const stamp = `ct mark set ct mark or ${generationMark(version)} accept comment "${stampComment(tableDigest(table))}"`;
  return { ...table, chains: [...chains, chain('stamp', null, [stamp])] };
}

/** The comment of the stamp rule: the digest of the table it belongs to. */
export function stampComment(digest: string): string {
  return `fwd table ${digest}`;
}
