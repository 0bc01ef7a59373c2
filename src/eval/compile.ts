// Compiles a configuration document into a CompiledImage: the policy and NAT classifiers of
// both families, and the longest-prefix tables of routes, zone networks and connected
// subnets. Pure and synchronous; the commit pipeline runs it in a piscina worker.
import { formatCidr, formatIp, parseCidr, parseIp, type Cidr, type Family } from '../config/net';
import { linkCidrs } from '../config/link-addresses';
import { poolFirst } from '../config/nat-pool';
import type { ConfigDoc, NatRule, PolicyObj, ZoneRef } from '../config/types';
import { staticHosts, staticPair } from '../config/nat-static';
import { buildClassifier, CLASSIFIER_KEYS, DEFAULT_BUILD_PARAMS, type BuildParams, type ClassifierData } from './classifier';
import { packArrays, type CompiledImage, type IfaceMeta, type NatMeta, type RouteMeta } from './image';
import { buildLpm, type LpmData, type LpmEntry } from './lpm';
import { ANY_ZONE, buildFamilyTable, familyBit, NEVER, SOME_ZONES, updateFamilyTable, type RuleSpec, type ServiceSplits } from './rules';
import { addressSet, bytesToBig, serviceSetsOf, sportPiecesOf, SVC_ANY, type AddrSet } from './sets';
import { BuildMemo } from './build-memo';
import { broadcastWords } from './cast';
import { managementBits, ownAddressWords } from './local';
import { listKey, sameObjects, SpecSets } from './spec-sets';

const FAMILIES: Family[] = [4, 6];

function byName(a: { name: string }, b: { name: string }) {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function cidrEntry(c: Cidr, answer: number): LpmEntry {
  return { value: bytesToBig(c.bytes), len: c.prefix, answer };
}

function lpmLookup(t: LpmData, family: Family, bytes: Uint8Array): number {
  // build-time lookup (not hot): a linear pass over the intervals is plenty
  const nw = family === 4 ? 1 : 4;
  const key: number[] = [];
  for (let i = 0; i < nw; i++) key.push(((bytes[4 * i] << 24) | (bytes[4 * i + 1] << 16) | (bytes[4 * i + 2] << 8) | bytes[4 * i + 3]) ^ -0x80000000);
  let answer = -1;
  for (let j = 0; j < t.answers.length; j++) {
    let cmp = 0;
    for (let i = 0; i < nw && cmp === 0; i++) cmp = t.starts[j * nw + i] - key[i];
    if (cmp > 0) break;
    answer = t.answers[j];
  }
  return answer;
}

const akey = (name: string) => (name === '' || name === 'any' ? '*' : `=${name}`);

/** Zones numbered 1..Z in name order (0 is none). */
export function zoneIndexOf(doc: ConfigDoc): Map<string, number> {
  return new Map([...doc.zones.keys()].sort().map((z, i) => [z, i + 1]));
}

/** A rule's zone fields as RuleSpec holds them (field: sz/dz; list: szs/dzs). Several zones
 * (issue 41) are SOME_ZONES and their indices ascending; a list whose zones are all gone is
 * NEVER, with one left it is that zone. A rule of one zone gets its index and a null list:
 * its spec and its cost are as before. */
function zoneFieldsOf(zoneIdx: Map<string, number>) {
  const one = (name: string) => (name === '' || name === 'any' ? ANY_ZONE : zoneIdx.get(name) ?? NEVER);
  const indices = (z: readonly string[]) => z.map((n) => zoneIdx.get(n) ?? NEVER).filter((i) => i !== NEVER).sort((a, b) => a - b);
  const field = (z: ZoneRef): number => {
    if (typeof z === 'string') return one(z);
    const idx = indices(z);
    return idx.length === 0 ? NEVER : idx.length === 1 ? idx[0] : SOME_ZONES;
  };
  const list = (z: ZoneRef): number[] | null => {
    if (typeof z === 'string') return null;
    const idx = indices(z);
    return idx.length > 1 ? idx : null;
  };
  /** `spec` with the rule's lists: set only on a rule over several zones, so a one-zone
   * rule's spec has the fields (and the size) it had */
  const lists = (r: { srcZone: ZoneRef; dstZone: ZoneRef }, spec: RuleSpec): RuleSpec => {
    if (typeof r.srcZone !== 'string') spec.szs = list(r.srcZone);
    if (typeof r.dstZone !== 'string') spec.dzs = list(r.dstZone);
    return spec;
  };
  return { field, lists };
}

/** The policy table as RuleSpecs (zones numbered 1..Z in name order). With a BuildMemo, a
 * policy whose object, zones, address and service sets are those of the memo's previous build
 * keeps that build's spec object (build-memo.ts), and this build's specs are recorded. */
export function policySpecs(doc: ConfigDoc, memo?: BuildMemo): RuleSpec[] {
  const zoneIdx = zoneIndexOf(doc);
  const zone = zoneFieldsOf(zoneIdx);
  const sets = new SpecSets(doc, memo);
  const prev = previousOf(memo, zoneIdx);
  const make = (p: PolicyObj): RuleSpec => {
    const { svc, svcKey, sport } = sets.services(p.services);
    if (memo) memo.stats.specsMade++;
    return zone.lists(p, {
      sport,
      sz: zone.field(p.srcZone),
      dz: zone.field(p.dstZone),
      src: sets.addr(p.srcAddr),
      dst: sets.addr(p.dstAddr),
      svc,
      srcKey: akey(p.srcAddr),
      dstKey: akey(p.dstAddr),
      svcKey,
      families: p.disabled ? 0 : 3, // a disabled policy matches nothing, so it shadows nothing
    });
  };
  if (!prev) {
    const specs = doc.policies.map(make);
    if (memo) [memo.policies, memo.specs] = [doc.policies, specs];
    return specs;
  }
  // the sets that changed since the previous build; a policy that is the same object and
  // names none of them has the same spec. Policies are found in the previous list by
  // position, past an insertion, deletion or move by a map of it made then.
  const dirty = sets.carryOver(prev);
  const aKey = (n: string) => (n === 'any' ? '' : n);
  const was = prev.policies, wasSpecs = prev.specs;
  let byObj: Map<PolicyObj, number> | null = null;
  let j = 0;
  const specs = doc.policies.map((p, i) => {
    if (was[j] !== p) {
      // edited in place (the next ones line up): a new spec, without the map
      if (!byObj && i + 1 < doc.policies.length && was[j + 1] === doc.policies[i + 1]) {
        j++;
        return make(p);
      }
      byObj ??= new Map(was.map((q, k) => [q, k]));
      j = byObj.get(p) ?? -1;
      if (j < 0) {
        j = i;
        return make(p);
      }
    }
    const spec = wasSpecs[j++];
    if ((dirty.addr.size > 0 && (dirty.addr.has(aKey(p.srcAddr)) || dirty.addr.has(aKey(p.dstAddr)))) || (dirty.svc.size > 0 && dirty.svc.has(listKey(p.services)))) return make(p);
    memo!.stats.specsReused++;
    return spec;
  });
  [memo!.policies, memo!.specs] = [doc.policies, specs];
  return specs;
}

/** The memo's previous build when its specs may be reused: made under the same zones (specs
 * hold zone numbers); records this build's zones. */
function previousOf(memo: BuildMemo | undefined, zoneIdx: ReadonlyMap<string, number>): BuildMemo | null {
  if (!memo) return null;
  memo.zones = [...zoneIdx.keys()].join('\n');
  return memo.previous && memo.previous.zones === memo.zones ? memo.previous : null;
}

/** The NAT table as RuleSpecs (a rule's families: its translated address's, both for a
 * masquerade, none when its out-interface does not exist) and the NAT meta. A BuildMemo
 * works as for policySpecs (a rule's spec also depends on its out-interface's existence). */
export function natTable(doc: ConfigDoc, ifIdx: ReadonlyMap<string, number>, memo?: BuildMemo): { specs: RuleSpec[]; meta: NatMeta[]; rule: number[] } {
  const zoneIdx = zoneIndexOf(doc);
  const zone = zoneFieldsOf(zoneIdx);
  const sets = new SpecSets(doc, memo);
  const prev = previousOf(memo, zoneIdx);
  const serviceSet = serviceSetsOf(doc.services);
  const nat: NatMeta[] = [];
  const specs: RuleSpec[] = [];
  const rule: number[] = []; // each entry's rule (index in doc.nat): a static rule has several
  doc.nat.forEach((r, ri) => {
    if (r.type === 'static') {
      for (const e of staticEntries(doc, r, sets, zone)) {
        specs.push(e.spec);
        nat.push(e.meta);
        rule.push(ri);
      }
      return;
    }
    rule.push(ri);
    specs.push(natSpec(r));
  });
  return { specs, meta: nat, rule };

  function natSpec(r: NatRule): RuleSpec {
    const masquerade = r.type === 'snat' && r.translatedIp === '';
    // a pool (snat) answers its first address: the kernel picks one per connection
    const tip = r.translatedIp !== '' ? parseIp(poolFirst(r.translatedIp)) : null;
    const outIf = r.outInterface === '' || r.outInterface === 'any' ? -1 : ifIdx.get(r.outInterface) ?? -2;
    let families = masquerade ? 3 : tip ? familyBit(tip.family) : 0;
    if (outIf === -2 || r.disabled) families = 0;
    nat.push({
      id: r.id,
      type: r.type,
      translatedIp: tip ? formatIp(tip.family, tip.bytes) : '',
      translatedPort: r.translatedPort,
      outIf,
      masquerade,
    });
    const svc = r.service === 'any' ? '' : r.service;
    const leaves = svc === '' ? [] : sets.groups.services([svc]);
    const src = sets.addr(r.srcAddr), dst = sets.addr(r.dstAddr);
    const deps = sets.depsOf(leaves);
    const was = prev?.nat.get(r);
    // the out-interface's index only tells whether it exists here (families)
    if (was && (was.outIf === -2) === (outIf === -2) && was.spec.src === src && was.spec.dst === dst && sameObjects(was.deps, deps)) {
      memo!.nat.set(r, was);
      memo!.stats.specsReused++;
      return was.spec;
    }
    const spec: RuleSpec = zone.lists(r, {
      sz: zone.field(r.srcZone),
      dz: zone.field(r.dstZone),
      src,
      dst,
      svc: svc === '' ? SVC_ANY : serviceSet(leaves),
      sport: svc === '' ? null : sportPiecesOf(doc.services, leaves),
      srcKey: akey(r.srcAddr),
      dstKey: akey(r.dstAddr),
      svcKey: svc === '' ? '*' : leaves.join(','),
      families,
    });
    if (memo) {
      memo.nat.set(r, { outIf, deps, spec });
      memo.stats.specsMade++;
    }
    return spec;
  }
}

/**
 * A static rule's entries (issue 41, nat-static.ts): per host pair an outbound one (the rule's
 * zones, the inside host as source, its dst-addr as destination: the source becomes the outside
 * host) then per pair an inbound one (from the rule's dst-zone, its dst-addr as source, to the
 * outside host: the destination becomes the inside host). Each answers its own address, so the
 * pairs are entries of their own. A rule that cannot map (commit-checks refuses it) or is
 * disabled keeps one entry that matches nothing.
 */
function staticEntries(doc: ConfigDoc, r: NatRule, sets: SpecSets, zone: ReturnType<typeof zoneFieldsOf>): Array<{ spec: RuleSpec; meta: NatMeta }> {
  const pair = staticPair(doc, r, sets.groups);
  const hosts = typeof pair === 'string' ? [] : staticHosts(pair);
  const bits = typeof pair === 'string' ? 32 : pair.inside.family === 4 ? 32 : 128;
  const families = typeof pair === 'string' || r.disabled ? 0 : familyBit(pair.inside.family);
  const host = (ip: string) => addressSet([`${ip}/${bits}`]);
  // zones as a rule's: a name, a list (several zones, SOME_ZONES and their indices) or none
  const entry = (sz: ZoneRef | null, dz: ZoneRef | null, src: AddrSet, dst: AddrSet, srcKey: string, dstKey: string, to: string, translates: 'source' | 'destination') => ({
    spec: zone.lists({ srcZone: sz ?? '', dstZone: dz ?? '' }, {
      sz: sz === null ? NEVER : zone.field(sz), dz: dz === null ? NEVER : zone.field(dz),
      src, dst, svc: SVC_ANY, sport: null, srcKey, dstKey, svcKey: '*', families,
    }),
    meta: { id: r.id, type: r.type, translatedIp: to, translatedPort: '', outIf: -1, masquerade: false, translates },
  });
  if (hosts.length === 0) return [entry(null, null, host('0.0.0.0'), host('0.0.0.0'), '@none', '@none', '', 'source')];
  const peers = sets.addr(r.dstAddr);
  return [
    ...hosts.map(([inside, outside]) => entry(r.srcZone, r.dstZone, host(inside), peers, `@${inside}`, akey(r.dstAddr), outside, 'source')),
    ...hosts.map(([inside, outside]) => entry(r.dstZone, 'any', peers, host(outside), akey(r.dstAddr), `@${outside}`, inside, 'destination')),
  ];
}

export interface CompileOptions {
  params?: BuildParams;
  /** policySpecs(doc) when the caller has built them already (the compile worker shares them with the analysis) */
  specs?: readonly RuleSpec[];
  /** this build's memo, whose `previous` is the build to reuse (build-memo.ts); the specs
   * given must have been made with it */
  build?: BuildMemo;
}

/** The connected subnets of one family as LPM entries answering their link's index. */
function connectedEntries(subnets: ReadonlyArray<{ s: Cidr; i: number }>, family: Family): LpmEntry[] {
  return subnets.filter(({ s }) => s.family === family).map(({ s, i }) => cidrEntry(s, i));
}

export function compileImage(doc: ConfigDoc, opts: CompileOptions = {}): CompiledImage {
  const t0 = performance.now();
  const params = opts.params ?? DEFAULT_BUILD_PARAMS;
  const arrays = new Map<string, Int32Array>();

  const zones = [...doc.zones.keys()].sort();
  const zoneIdx = new Map(zones.map((z, i) => [z, i + 1]));

  // interfaces and VLANs, one namespace sorted by name (an interface before a VLAN of the same name)
  const members = [...doc.interfaces.values(), ...doc.vlans.values()].sort(byName);
  const ifaces: IfaceMeta[] = [];
  // the connected subnets of up links, every address of each (s: subnet, i: its link)
  const subnets: Array<{ s: Cidr; i: number }> = [];
  const ifIdx = new Map<string, number>();
  for (const m of members) {
    if (ifIdx.has(m.name)) continue;
    const cidrs = linkCidrs(m);
    const first = (family: Family) => {
      const c = cidrs.find((x) => x.addr.family === family);
      return c ? formatIp(family, c.addr.bytes) : '';
    };
    const i = ifaces.length;
    ifIdx.set(m.name, i);
    ifaces.push({ name: m.name, zone: zoneIdx.get(m.zone) ?? 0, up: m.state === 'up', addr4: first(4), addr6: first(6), mgmt: managementBits(m.management, doc.dhcp.has(m.name)) });
    if (m.state === 'up') for (const c of cidrs) subnets.push({ s: c.subnet, i });
  }

  // the broadcast addresses of the up links' IPv4 subnets: never forwarded (cast.ts)
  arrays.set('bcast4', broadcastWords(subnets.map((x) => x.s)));
  // the up links' own addresses: a packet to one is judged by the local policies (local.ts)
  const own = ownAddressWords(members.filter((m) => m.state === 'up').flatMap((m) => linkCidrs(m).map((c) => c.addr)));
  arrays.set('own4', own[4]);
  arrays.set('own6', own[6]);

  const routes: RouteMeta[] = [];
  for (const family of FAMILIES) {
    const f = `${family}`;
    // connected subnets of up interfaces: the first by name wins a tie
    const conn = buildLpm(connectedEntries(subnets, family), family);
    arrays.set(`conn${f}.starts`, conn.starts);
    arrays.set(`conn${f}.answers`, conn.answers);
    // zone networks: the first zone by name wins a tie
    const znet: LpmEntry[] = [];
    for (const z of zones) {
      for (const n of doc.zones.get(z)!.networks) {
        const c = parseCidr(n);
        if (c && c.family === family) znet.push(cidrEntry(c, zoneIdx.get(z)!));
      }
    }
    const zt = buildLpm(znet, family);
    arrays.set(`znet${f}.starts`, zt.starts);
    arrays.set(`znet${f}.answers`, zt.answers);
    // routes: connected subnets (metric 0, before any static route of the same prefix, then by
    // name), and usable static routes by metric then id; per prefix the first one wins
    type Cand = RouteMeta & { c: Cidr; kind: number; metric: number; name: string };
    const cands: Cand[] = [];
    for (const { s, i } of subnets) {
      if (s.family === family) cands.push({ id: null, destination: formatCidr(s), egress: i, c: s, kind: 0, metric: 0, name: ifaces[i].name });
    }
    for (const r of doc.routes) {
      const c = parseCidr(r.destination);
      if (!c || c.family !== family) continue;
      let egress = -1;
      if (r.interface !== '') {
        const i = ifIdx.get(r.interface);
        if (i !== undefined && ifaces[i].up) egress = i;
      } else if (r.gateway !== '') {
        const gw = parseIp(r.gateway);
        if (gw) {
          const gwConn = gw.family === family ? conn : buildLpm(connectedEntries(subnets, gw.family), gw.family);
          egress = lpmLookup(gwConn, gw.family, gw.bytes);
        }
      }
      if (egress >= 0) cands.push({ id: r.id, destination: formatCidr(c), egress, c, kind: 1, metric: r.metric, name: '' });
    }
    cands.sort((a, b) => a.kind - b.kind || a.metric - b.metric || (a.id ?? 0) - (b.id ?? 0) || byName(a, b));
    const entries = cands.map((c) => {
      routes.push({ id: c.id, destination: c.destination, egress: c.egress });
      return cidrEntry(c.c, routes.length - 1);
    });
    const rt = buildLpm(entries, family);
    arrays.set(`route${f}.starts`, rt.starts);
    arrays.set(`route${f}.answers`, rt.answers);
  }

  const memo = opts.build;
  const polSpecs = opts.specs ?? policySpecs(doc, memo);
  const { specs: natSpecs, meta: nat } = natTable(doc, ifIdx, memo);
  const putClassifier = (prefix: string, d: ClassifierData) => {
    for (const k of CLASSIFIER_KEYS) arrays.set(`${prefix}.${k}`, d[k]);
  };
  const splits: ServiceSplits = new Map(); // each service set split into prefixes once
  const locSpecs = policySpecs({ ...doc, policies: doc.localPolicies });
  for (const family of FAMILIES) {
    const table = (name: string, specs: readonly RuleSpec[], firstOnly: boolean) => {
      const reuse = memo ? { specs, memo, name } : undefined;
      // the previous build's table, updated where its specs changed (rules.ts)
      const was = memo?.previous?.tables.get(name);
      const t = was ? updateFamilyTable(specs, family, splits, was.table, was.specs) : buildFamilyTable(specs, family, splits);
      putClassifier(name, buildClassifier(t, zones.length, params, firstOnly, reuse));
    };
    table(`pol${family}`, polSpecs, true);
    // NAT is searched past a first match whose out-interface or family does not hold
    table(`nat${family}`, natSpecs, false);
    // issue 41: the local policies, a policy table of their own (every rule's dst-zone any)
    putClassifier(`loc${family}`, buildClassifier(buildFamilyTable(locSpecs, family, splits), zones.length, params, true));
  }
  const locId = new Int32Array(doc.localPolicies.length);
  const locFlags = new Int32Array(doc.localPolicies.length);
  doc.localPolicies.forEach((p, i) => {
    locId[i] = p.id;
    locFlags[i] = (p.action === 'allow' ? 1 : 0) | (p.log ? 2 : 0);
  });
  arrays.set('loc.id', locId);
  arrays.set('loc.flags', locFlags);
  const polId = new Int32Array(doc.policies.length);
  const polFlags = new Int32Array(doc.policies.length);
  doc.policies.forEach((p, i) => {
    polId[i] = p.id;
    polFlags[i] = (p.action === 'allow' ? 1 : 0) | (p.log ? 2 : 0);
  });
  arrays.set('pol.id', polId);
  arrays.set('pol.flags', polFlags);

  const { buffer, index } = packArrays(arrays);
  return {
    meta: { format: 1, arrays: index, zones, ifaces, routes, nat, policies: doc.policies.length, buildMs: performance.now() - t0 },
    buffer,
  };
}
