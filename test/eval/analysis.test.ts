// The commit-time analysis: covered policies (shadowed / redundant) and unused objects.
// Soundness: every reported policy is checked with the reference evaluator on packets sampled
// from its match space (none may reach it, each lands on a listed policy). Exactness: in a
// tiny address/port universe every packet is enumerated, so the covered policies and the
// policies that take their packets are known exactly and must be what analyze() reports.
import fc from 'fast-check';
import { parseCidr } from '../../src/config/net';
import type { ConfigDoc, NatRule, PolicyObj, ZoneRef } from '../../src/config/types';
import { analyze, warningLines, type Analysis, type AnalysisStats, type Coverage } from '../../src/eval/analysis';
import { parsePacket } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { parsePortEntry } from '../../src/eval/sets';
import { LARGE, mkDoc, specArb, specDoc, type DocSpec } from './helpers';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

describe('covered policies, by hand', () => {
  const base: DocSpec = {
    zones: { z1: [], z2: [] },
    interfaces: { eth0: {} },
    addresses: { net: ['10.0.0.0/24'], lo: ['10.0.0.0/25'], hi: ['10.0.0.128/25'], part: ['10.0.0.0/25', '10.0.0.192/26'], dual: ['10.0.0.0/24', '2001:db8::/64'] },
    services: { web: { protocol: 'tcp', ports: [80, 443] }, allTcp: { protocol: 'tcp', ports: ['1-65535'] }, allUdp: { protocol: 'udp', ports: ['1-65535'] } },
  };
  const run = (policies: DocSpec['policies']) => analyze(mkDoc({ ...base, policies }));

  test('a union of earlier rules covers a rule: redundant, naming both', () => {
    const a = run([{ srcAddr: 'lo' }, { srcAddr: 'hi' }, { srcAddr: 'net' }]);
    expect(a.redundant).toEqual([{ id: 3, coveredBy: [1, 2] }]);
    expect(a.shadowed).toEqual([]);
  });
  test('a different action makes it shadowed', () => {
    const a = run([{ srcAddr: 'lo' }, { srcAddr: 'hi', action: 'deny' }, { srcAddr: 'net' }]);
    expect(a.shadowed).toEqual([{ id: 3, coveredBy: [1, 2] }]);
    expect(warningLines(a)).toEqual(['policy 3 is shadowed by policies 1, 2']);
  });
  test('a partial cover is no cover', () => {
    expect(run([{ srcAddr: 'part' }, { srcAddr: 'net' }])).toMatchObject({ shadowed: [], redundant: [] });
  });
  test('coveredBy lists only the rules that take packets of it', () => {
    const a = run([{ srcAddr: 'net' }, { srcAddr: 'lo', action: 'deny' }, { srcAddr: 'lo' }]);
    expect(a.redundant).toEqual([{ id: 3, coveredBy: [1] }]);
    expect(a.shadowed).toEqual([{ id: 2, coveredBy: [1] }]);
    expect(warningLines(a)).toEqual(['policy 2 is shadowed by policy 1', 'policy 3 is redundant: covered by policy 1']);
  });
  test('coveredBy is a minimal cover: a taker the others already cover is left out', () => {
    const a = run([{ srcAddr: 'lo' }, { srcAddr: 'net' }, { srcAddr: 'net' }, { srcAddr: 'net' }]);
    // policy 1 takes half of policy 3's packets, but policy 2 alone holds them all
    expect(a.redundant).toEqual([{ id: 3, coveredBy: [2] }, { id: 4, coveredBy: [2] }]);
  });
  test('deep pass: a partial shadow of the other action, with a packet that shows it', () => {
    const doc = mkDoc({ ...base, policies: [{ srcAddr: 'lo', dstZone: 'z2', action: 'deny', services: ['web'] }, { srcAddr: 'net' }] });
    const quick = analyze(doc);
    expect(quick.complete).toBe(false);
    expect(quick.partiallyShadowed).toEqual([]);
    const a = analyze(doc, undefined, { deep: true });
    expect(a.complete).toBe(true);
    expect(a.partiallyShadowed).toEqual([{ id: 2, by: 1, example: expect.objectContaining({ protocol: 'tcp', 'dst-zone': 'z2' }) }]);
    const got = new ReferenceEvaluator(doc).eval(parsePacket(a.partiallyShadowed[0].example));
    expect(got.policy).toMatchObject({ id: 1, action: 'deny' });
    // one family wholly taken by the other action, the other family free: a partial shadow
    const dual = analyze(mkDoc({ ...base, policies: [{ srcAddr: 'net', action: 'deny' }, { srcAddr: 'dual' }] }), undefined, { deep: true });
    expect(dual.shadowed).toEqual([]);
    expect(dual.partiallyShadowed).toEqual([{ id: 2, by: 1, example: expect.objectContaining({ 'src-ip': '10.0.0.0' }) }]);
    // the same action is no partial shadow
    expect(analyze(mkDoc({ ...base, policies: [{ srcAddr: 'lo' }, { srcAddr: 'net' }] }), undefined, { deep: true }).partiallyShadowed).toEqual([]);
  });
  test('deep pass: NAT rules that can never match', () => {
    const doc = mkDoc({
      ...base,
      nat: [
        { type: 'snat', srcAddr: 'lo', translatedIp: '192.0.2.1' },
        { type: 'snat', srcAddr: 'hi', translatedIp: '192.0.2.2' },
        { type: 'snat', srcAddr: 'net', translatedIp: '192.0.2.3' }, // 1 and 2 take it all
        { type: 'snat', srcAddr: 'dual', translatedIp: '2001:db8::1' }, // IPv6 packets: not covered
        { type: 'snat', srcAddr: 'net', outInterface: 'eth0', translatedIp: '192.0.2.4' }, // covered too
        { type: 'snat', srcAddr: 'part' }, // a masquerade of IPv4 packets only here: covered
        { type: 'snat', srcAddr: 'net', translatedIp: '192.0.2.5', outInterface: 'eth0' },
        { type: 'snat', srcAddr: 'lo', translatedIp: '192.0.2.6' },
      ],
    });
    // a rule that depends on the route or on an interface address (5, 6) takes nothing from
    // later rules in this analysis: 8 is covered by 1 alone
    expect(analyze(doc, undefined, { deep: true }).unreachableNat).toEqual([
      { id: 3, coveredBy: [1, 2] },
      { id: 5, coveredBy: [1, 2] },
      { id: 6, coveredBy: [1, 2] },
      { id: 7, coveredBy: [1, 2] },
      { id: 8, coveredBy: [1] },
    ]);
    // without 1 and 2, only the masquerade and the out-interface rule stand before 8: it stays
    const rest = mkDoc({ ...base, nat: [{ type: 'snat', srcAddr: 'net', outInterface: 'eth0', translatedIp: '192.0.2.4' }, { type: 'snat', srcAddr: 'net' }, { type: 'snat', srcAddr: 'lo', translatedIp: '192.0.2.6' }] });
    expect(analyze(rest, undefined, { deep: true }).unreachableNat).toEqual([]);
  });
  test('a deadline that has passed leaves the policies undecided, and the result incomplete', () => {
    const doc = mkDoc({ ...base, policies: [{ srcAddr: 'lo' }, { srcAddr: 'hi' }, { srcAddr: 'net' }] });
    const stats = {} as AnalysisStats;
    const a = analyze(doc, undefined, { deep: true, deadline: Date.now() - 1, stats });
    expect(a).toMatchObject({ complete: false, shadowed: [], redundant: [], undecided: [3] });
    expect(stats.undecided).toBe(1);
    expect(analyze(doc, undefined, { deep: true })).toMatchObject({ complete: true, redundant: [{ id: 3, coveredBy: [1, 2] }], undecided: [] });
  });
  test('zones: `any` includes packets with no zone', () => {
    expect(run([{ srcZone: 'z1' }, { srcZone: 'z2' }, {}])).toMatchObject({ shadowed: [], redundant: [] });
    expect(run([{}, { srcZone: 'z1', dstZone: 'z2' }]).redundant).toEqual([{ id: 2, coveredBy: [1] }]);
  });
  test('services: `any` is more than every tcp and udp port', () => {
    expect(run([{ services: ['allTcp'] }, { services: ['allUdp'] }, {}])).toMatchObject({ shadowed: [], redundant: [] });
    expect(run([{ services: ['allTcp', 'allUdp'] }, { services: ['web'] }]).redundant).toEqual([{ id: 2, coveredBy: [1] }]);
  });
  test('both families of an address object must be covered', () => {
    expect(run([{ srcAddr: 'net' }, { srcAddr: 'dual' }])).toMatchObject({ shadowed: [], redundant: [] });
    expect(run([{ srcAddr: 'dual', action: 'deny' }, { srcAddr: 'net' }]).shadowed).toEqual([{ id: 2, coveredBy: [1] }]);
  });
  test('unused address and service objects', () => {
    const a = analyze(mkDoc({ ...base, policies: [{ srcAddr: 'lo', services: ['web'] }], nat: [{ type: 'snat', dstAddr: 'hi', service: 'allUdp', translatedIp: '192.0.2.1' }] }));
    expect(a.unusedAddresses).toEqual(['dual', 'net', 'part']);
    expect(a.unusedServices).toEqual(['allTcp']);
    expect(warningLines(a)).toEqual([]);
    expect(warningLines(a, { unused: true })).toEqual([
      'address dual is not used by any policy or NAT rule',
      'address net is not used by any policy or NAT rule',
      'address part is not used by any policy or NAT rule',
      'service allTcp is not used by any policy or NAT rule',
    ]);
  });
});

// ---- soundness on random configurations ------------------------------------------------

function pick<T>(a: readonly T[], r: () => number): T {
  return a[Math.floor(r() * a.length)];
}

/** A random packet of policy p's match space (zones pinned), or null if it has none. */
function samplePacket(doc: ConfigDoc, p: PolicyObj, r: () => number): Record<string, unknown> | null {
  const zones = [...doc.zones.keys()];
  const nets = (name: string) => (name === '' ? ['0.0.0.0/0', '::/0'] : doc.addresses.get(name)!.ips);
  const src = nets(p.srcAddr).map((c) => parseCidr(c)!);
  const dst = nets(p.dstAddr).map((c) => parseCidr(c)!);
  const fams = ([4, 6] as const).filter((f) => src.some((c) => c.family === f) && dst.some((c) => c.family === f));
  if (fams.length === 0 || zones.length === 0) return null;
  const f = pick(fams, r);
  const host = (list: typeof src) => {
    const c = pick(list.filter((x) => x.family === f), r);
    const b = new Uint8Array(c.bytes);
    const corner = r();
    for (let bit = c.prefix; bit < b.length * 8; bit++) if (corner < 0.2 ? false : corner < 0.4 ? true : r() < 0.5) b[bit >> 3] |= 0x80 >> (bit & 7);
    return f === 4 ? Array.from(b).join('.') : Array.from({ length: 8 }, (_, i) => ((b[2 * i] << 8) | b[2 * i + 1]).toString(16)).join(':');
  };
  let protocol: string | number = pick(['tcp', 'udp', 'icmp', 47], r);
  let port = Math.floor(r() * 65536);
  if (p.services.length > 0) {
    const s = doc.services.get(pick(p.services, r))!;
    const [lo, hi] = parsePortEntry(pick(s.ports, r))!;
    protocol = s.protocol;
    port = lo + Math.floor(r() * (hi - lo + 1));
  }
  const j: Record<string, unknown> = { 'src-ip': host(src), 'dst-ip': host(dst), protocol, 'dst-port': port };
  j['src-zone'] = p.srcZone || pick(zones, r);
  j['dst-zone'] = p.dstZone || pick(zones, r);
  return j;
}

describe('covered policies, random configurations', () => {
  test('no sampled packet of a reported policy reaches it; a listed policy holds each', () => {
    let reported = 0;
    fc.assert(
      fc.property(specArb({ ...LARGE, policies: [5, 60] }), fc.integer(), (spec, s) => {
        const doc = specDoc(spec);
        const a = analyze(doc, undefined, { deep: s % 2 === 0 });
        const ref = new ReferenceEvaluator(doc);
        let x = s >>> 0;
        const r = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 4294967296);
        for (const [list, same] of [[a.shadowed, false], [a.redundant, true]] as const) {
          for (const c of list) {
            reported++;
            const p = doc.policies.find((q) => q.id === c.id)!;
            for (let k = 0; k < 40; k++) {
              const j = samplePacket(doc, p, r);
              if (!j) continue;
              const ans = ref.eval(parsePacket(j));
              // issue 41: a packet to the firewall itself, a broadcast or multicast never meets
              // the forward policies (the analysis is of their match space)
              if (ans.reason === 'local-policy' || ans.reason === 'broadcast' || ans.reason === 'multicast') continue;
              const got = ans.policy;
              expect(got).not.toBeNull();
              expect(got!.id).not.toBe(p.id);
              // the cover holds the packet; a redundant policy's packet meets its own action
              expect(c.coveredBy.some((id) => inSpace(doc, doc.policies.find((q) => q.id === id)!, j))).toBe(true);
              if (same) expect(got!.action).toBe(p.action);
            }
          }
        }
      }),
      { numRuns: 60, seed },
    );
    expect(reported).toBeGreaterThan(20); // the generator does produce covered rules
  });
});

// ---- exactness in a tiny universe --------------------------------------------------------

// Every prefix lies in 10.0.0.0/30 or 2001:db8::/127 (or is /0), every port in 1-4, so the
// addresses 10.0.0.0-3 plus one outside, 2001:db8::0-1 plus one outside, ports 1-5 (5 stands
// for every port no service lists), tcp/udp/icmp and zones z0, z1, none enumerate every
// distinct packet.
const TINY_ZONES = ['z0', 'z1'];
// issue 41: three zones and fields naming one, any, or several of them
const LIST_ZONES = ['z0', 'z1', 'z2'];
const zoneListArb = fc.constantFrom<ZoneRef>('', 'z0', 'z1', 'z2', ['z0', 'z1'], ['z1', 'z2'], ['z2', 'z0'], ['z0', 'z1', 'z2']);

const tinyCidr = fc.oneof(
  fc.tuple(fc.nat(3), fc.constantFrom(30, 31, 32, 32)).map(([h, l]) => `10.0.0.${h}/${l}`),
  fc.tuple(fc.nat(1), fc.constantFrom(127, 128)).map(([h, l]) => `2001:db8::${h}/${l}`),
  fc.constantFrom('0.0.0.0/0', '::/0'),
);

interface TinySpec {
  addresses: string[][];
  services: Array<{ protocol: 'tcp' | 'udp'; ports: Array<number | string>; sourcePorts?: Array<number | string> }>;
  policies: Array<{ allow: boolean; sz: ZoneRef; dz: ZoneRef; sa: number | null; da: number | null; svcs: number[] | null }>;
}

const tinySpec: fc.Arbitrary<TinySpec> = fc.record({
  addresses: fc.array(fc.array(tinyCidr, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 4 }),
  services: fc.array(fc.record({ protocol: fc.constantFrom('tcp' as const, 'udp' as const), ports: fc.uniqueArray(fc.constantFrom<number | string>(1, 2, 3, 4, '1-2', '2-4', '3-4', '1-4'), { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 3 }),
  policies: fc.array(
    fc.record({ allow: fc.boolean(), sz: fc.constantFrom('', 'z0', 'z1'), dz: fc.constantFrom('', 'z0', 'z1'), sa: fc.option(fc.nat(3), { nil: null }), da: fc.option(fc.nat(3), { nil: null }), svcs: fc.option(fc.uniqueArray(fc.nat(2), { minLength: 1, maxLength: 2 }), { nil: null }) }),
    { minLength: 1, maxLength: 8 },
  ),
});

// With source ports (issue 27): services name some of 1-3 about half the time, and packets of
// tcp and udp carry source ports 1-4 (4 stands for every port no service lists).
const TINY_SPORTS = [1, 2, 3, 4];
const tinySpecSports: fc.Arbitrary<TinySpec> = tinySpec.chain((t) =>
  fc.array(fc.option(fc.uniqueArray(fc.constantFrom<number | string>(1, 2, 3, '1-2', '2-3'), { minLength: 1, maxLength: 2 }), { nil: null }), { minLength: t.services.length, maxLength: t.services.length })
    .map((sp) => ({ ...t, services: t.services.map((s, i) => (sp[i] ? { ...s, sourcePorts: sp[i]! } : s)) })));

function tinyDoc(t: TinySpec, zones: readonly string[] = TINY_ZONES): ConfigDoc {
  const addr = (i: number | null) => (i === null ? '' : `a${i % t.addresses.length}`);
  return mkDoc({
    zones: Object.fromEntries(zones.map((z) => [z, []])),
    interfaces: { eth0: {} },
    routes: [{ destination: '0.0.0.0/0', interface: 'eth0' }, { destination: '::/0', interface: 'eth0' }],
    addresses: Object.fromEntries(t.addresses.map((ips, i) => [`a${i}`, ips])),
    services: Object.fromEntries(t.services.map((s, i) => [`s${i}`, s])),
    policies: t.policies.map((p) => ({
      action: p.allow ? 'allow' : 'deny',
      srcZone: p.sz,
      dstZone: p.dz,
      srcAddr: addr(p.sa),
      dstAddr: addr(p.da),
      services: p.svcs === null ? [] : [...new Set(p.svcs.map((i) => `s${i % t.services.length}`))],
    })),
  });
}

function allPackets(sports: number[] | null = null, zones: readonly string[] = TINY_ZONES): Array<Record<string, unknown>> {
  const v4 = ['10.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3', '192.0.2.1'];
  const v6 = ['2001:db8::', '2001:db8::1', '2001:db9::1'];
  const svcs: Array<[string, number]> = [['icmp', 0]];
  for (const proto of ['tcp', 'udp']) for (let port = 1; port <= 5; port++) svcs.push([proto, port]);
  const out: Array<Record<string, unknown>> = [];
  for (const addrs of [v4, v6]) {
    for (const s of addrs) for (const d of addrs) for (const [protocol, port] of svcs) for (const sz of [...zones, null]) for (const dz of [...zones, null]) {
      for (const sp of protocol === 'icmp' || !sports ? [null] : sports) {
        const j: Record<string, unknown> = { 'src-ip': s, 'dst-ip': d, protocol, 'dst-port': port };
        if (sp !== null) j['src-port'] = sp;
        if (sz) j['src-zone'] = sz;
        if (dz) j['dst-zone'] = dz;
        out.push(j);
      }
    }
  }
  return out;
}

interface Truth {
  analysis: Pick<Analysis, 'shadowed' | 'redundant'>;
  /** per policy index: the indices of the policies that take its packets */
  winners: Array<Set<number>>;
  /** per policy index: its packets, as indices into the universe */
  members: number[][];
  /** per policy index, not covered: does a policy of the other action take one of its packets? */
  partial: boolean[];
}

/** Brute force over every packet of the tiny universe. */
function bruteForce(doc: ConfigDoc, packets = allPackets()): Truth {
  const ref = new ReferenceEvaluator(doc);
  const n = doc.policies.length;
  const winners = doc.policies.map(() => new Set<number>());
  const members = doc.policies.map(() => [] as number[]);
  const partial = new Array<boolean>(n).fill(false);
  packets.forEach((j, k) => {
    const first = ref.eval(parsePacket(j)).policy;
    for (let i = 0; i < n; i++) {
      if (!inSpace(doc, doc.policies[i], j)) continue;
      if (first === null) throw new Error(`packet ${JSON.stringify(j)} of policy ${doc.policies[i].id}'s space meets no policy`);
      members[i].push(k);
      const w = doc.policies.findIndex((q) => q.id === first.id);
      winners[i].add(w);
      if (doc.policies[w].action !== doc.policies[i].action) partial[i] = true;
    }
  });
  const analysis: Truth['analysis'] = { shadowed: [], redundant: [] };
  doc.policies.forEach((p, i) => {
    if (members[i].length === 0 || winners[i].has(i)) return;
    const entry = { id: p.id, coveredBy: [] as number[] };
    ([...winners[i]].every((k) => doc.policies[k].action === p.action) ? analysis.redundant : analysis.shadowed).push(entry);
  });
  // only a policy that still takes packets is partly shadowed; a covered one is reported whole
  doc.policies.forEach((_, i) => {
    if (!winners[i].has(i)) partial[i] = false;
  });
  return { analysis, winners, members, partial };
}

/** Is packet j in policy q's match space? Written out plainly. */
function inSpace(doc: ConfigDoc, q: PolicyObj | NatRule, j: Record<string, unknown>): boolean {
  const holds = (name: string, ip: string) =>
    name === '' || doc.addresses.get(name)!.ips.some((c) => {
      const net = parseCidr(c)!;
      const a = parseCidr(ip)!;
      if (net.family !== a.family) return false;
      for (let bit = 0; bit < net.prefix; bit++) if ((net.bytes[bit >> 3] ^ a.bytes[bit >> 3]) & (0x80 >> (bit & 7))) return false;
      return true;
    });
  const services = 'services' in q ? q.services : q.service === '' ? [] : [q.service];
  const inZone = (z: ZoneRef, zone: unknown) => (typeof z === 'string' ? z === '' || z === zone : z.includes(zone as string));
  return inZone(q.srcZone, j['src-zone']) &&
    inZone(q.dstZone, j['dst-zone']) &&
    holds(q.srcAddr, j['src-ip'] as string) &&
    holds(q.dstAddr, j['dst-ip'] as string) &&
    (services.length === 0 ||
      services.some((name) => {
        const svc = doc.services.get(name)!;
        const sp = (j['src-port'] as number | undefined) ?? 0;
        return svc.protocol === j.protocol && svc.ports.some((e) => {
          const [lo, hi] = parsePortEntry(e)!;
          return lo <= (j['dst-port'] as number) && (j['dst-port'] as number) <= hi;
        }) && (svc.sourcePorts === undefined || svc.sourcePorts.some((e) => {
          const [lo, hi] = parsePortEntry(e)!;
          return lo <= sp && sp <= hi;
        }));
      }));
}

/** Checks a reported cover: earlier policies whose union holds every packet of the policy,
 * none of which can be left out, except, for a shadowed policy, one policy of the other
 * action that takes some of its packets (named so the warning shows what shadows it). */
function expectMinimalCover(doc: ConfigDoc, truth: Truth, c: { id: number; coveredBy: number[] }, shadowed: boolean): void {
  const i = doc.policies.findIndex((p) => p.id === c.id);
  const idx = c.coveredBy.map((id) => doc.policies.findIndex((p) => p.id === id));
  expect(idx.every((k) => k >= 0 && k < i)).toBe(true);
  const inside = (k: number, packet: number) => truth.members[k].includes(packet);
  const coversAll = (set: number[]) => truth.members[i].every((packet) => set.some((k) => inside(k, packet)));
  expect(coversAll(idx)).toBe(true);
  const shadows = idx.filter((k) => truth.winners[i].has(k) && doc.policies[k].action !== doc.policies[i].action);
  if (shadowed) expect(shadows.length).toBeGreaterThan(0);
  const droppable = idx.filter((k) => coversAll(idx.filter((x) => x !== k)));
  expect(droppable.length <= (shadowed ? 1 : 0)).toBe(true);
  if (droppable.length) expect(shadows).toContain(droppable[0]);
}

/** analyze() against brute force on one tiny configuration, both passes; returns how many
 * policies are covered. */
function expectExact(t: TinySpec, sports: number[] | null = null, zones: readonly string[] = TINY_ZONES): number {
  const doc = tinyDoc(t, zones);
  const want = bruteForce(doc, allPackets(sports, zones));
  for (const deep of [false, true]) {
    const stats = {} as AnalysisStats;
    const got = analyze(doc, undefined, { deep, stats });
    expect(stats.undecided).toBe(0);
    expect(got.complete).toBe(deep);
    const ids = (list: Coverage[]) => list.map((c) => c.id);
    expect({ shadowed: ids(got.shadowed), redundant: ids(got.redundant) }).toEqual({ shadowed: ids(want.analysis.shadowed), redundant: ids(want.analysis.redundant) });
    for (const c of got.shadowed) expectMinimalCover(doc, want, c, true);
    for (const c of got.redundant) expectMinimalCover(doc, want, c, false);
    // a redundant policy is named with policies of its own action
    for (const c of got.redundant) {
      const action = doc.policies.find((p) => p.id === c.id)!.action;
      for (const id of c.coveredBy) expect(doc.policies.find((p) => p.id === id)!.action).toBe(action);
    }
    if (!deep) continue;
    // partial shadows: exactly the policies not covered that another action takes from
    expect(got.partiallyShadowed.map((p) => p.id)).toEqual(doc.policies.filter((_, i) => want.partial[i]).map((p) => p.id));
    const ref = new ReferenceEvaluator(doc);
    for (const p of got.partiallyShadowed) {
      const pol = doc.policies.find((q) => q.id === p.id)!;
      expect(inSpace(doc, pol, p.example)).toBe(true);
      const first = ref.eval(parsePacket(p.example)).policy!;
      expect(first.id).toBe(p.by);
      expect(first.action).not.toBe(pol.action);
    }
  }
  return want.analysis.shadowed.length + want.analysis.redundant.length;
}

describe('covered policies, exactly', () => {
  test('analyze() = brute force over every packet of a tiny universe (both exact methods)', () => {
    let covered = 0;
    fc.assert(
      fc.property(tinySpec, (t) => {
        covered += expectExact(t);
      }),
      { numRuns: 50, seed },
    );
    expect(covered).toBeGreaterThan(10);
  });

  test('several zones per policy (issue 41): analyze() = brute force, zones z0-z2 and fields naming one, any or several', () => {
    let covered = 0;
    let lists = 0;
    const arb = tinySpec.chain((t) => fc.array(fc.tuple(zoneListArb, zoneListArb), { minLength: t.policies.length, maxLength: t.policies.length })
      .map((zs) => ({ ...t, policies: t.policies.map((p, i) => ({ ...p, sz: zs[i][0], dz: zs[i][1] })) })));
    fc.assert(
      fc.property(arb, (t) => {
        covered += expectExact(t, null, LIST_ZONES);
        lists += t.policies.filter((p) => typeof p.sz !== 'string' || typeof p.dz !== 'string').length;
      }),
      { numRuns: 40, seed },
    );
    expect(covered).toBeGreaterThan(10);
    expect(lists).toBeGreaterThan(40);
  });

  test('several zones: a rule over {z0, z1} covers one over z0 and one over {z1, z0}; not one over {z0, z2} or any', () => {
    const t = (zones: ZoneRef[]): TinySpec => ({
      addresses: [['0.0.0.0/0']], services: [{ protocol: 'tcp', ports: [1] }],
      policies: zones.map((sz) => ({ allow: true, sz, dz: '', sa: null, da: null, svcs: null })),
    });
    const redundant = (zones: ZoneRef[]) => analyze(tinyDoc(t(zones), LIST_ZONES), undefined, { deep: true }).redundant;
    expect(redundant([['z0', 'z1'], 'z0', ['z1', 'z0']])).toEqual([{ id: 2, coveredBy: [1] }, { id: 3, coveredBy: [1] }]);
    expect(redundant([['z0', 'z1'], ['z0', 'z2'], ''])).toEqual([]);
    expect(redundant(['z0', 'z1', ['z0', 'z1']])).toEqual([{ id: 3, coveredBy: [1, 2] }]);
  });

  test('with source ports: analyze() = brute force, every packet of the universe with source ports 1-4', () => {
    let covered = 0;
    let named = 0;
    fc.assert(
      fc.property(tinySpecSports, (t) => {
        covered += expectExact(t, TINY_SPORTS);
        if (t.services.some((s) => s.sourcePorts)) named++;
      }),
      // 40 runs: with 20, about one seed in 40 met 5 covered policies or fewer (3 at the
      // least, in 300 seeds sampled), and this guard failed CI; with 40, the least was 10
      { numRuns: 40, seed },
    );
    expect(covered).toBeGreaterThan(5);
    expect(named).toBeGreaterThan(5);
  });

  // Found with FC_SEED=1509072062 (shrunk): policy 1 holds all IPv4 packets, policy 2 all
  // packets. Policy 3's IPv4 cover is policy 1 (its IPv4 candidates end there), its IPv6
  // cover policy 2; each family's cover was minimal, their union {1, 2} was not: policy 2
  // alone covers both families.
  const dualFamily: TinySpec = {
    addresses: [['0.0.0.0/0']],
    services: [{ protocol: 'tcp', ports: [1] }],
    policies: [
      { allow: false, sz: '', dz: '', sa: null, da: 0, svcs: null },
      { allow: false, sz: '', dz: '', sa: null, da: null, svcs: null },
      { allow: false, sz: '', dz: '', sa: null, da: null, svcs: null },
    ],
  };
  test('regression: a cover is minimal across the families, not only in each', () => {
    expect(expectExact(dualFamily)).toBe(1);
    expect(analyze(tinyDoc(dualFamily), undefined, { deep: true }).redundant).toEqual([{ id: 3, coveredBy: [2] }]);
  });
});

describe('NAT rules that can never match, exactly', () => {
  const natSpec = fc.record({
    addresses: fc.array(fc.array(tinyCidr, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 4 }),
    services: tinySpec.map((t) => t.services),
    rules: fc.array(
      fc.record({ dnat: fc.boolean(), sz: zoneListArb, dz: zoneListArb, sa: fc.option(fc.nat(3), { nil: null }), da: fc.option(fc.nat(3), { nil: null }), svc: fc.option(fc.nat(2), { nil: null }), v6: fc.boolean() }),
      { minLength: 1, maxLength: 8 },
    ),
  });
  test('unreachableNat = the rules no packet of a tiny universe meets first (rules that always apply)', () => {
    let found = 0;
    fc.assert(
      fc.property(natSpec, (t) => {
        const addr = (i: number | null) => (i === null ? '' : `a${i % t.addresses.length}`);
        const doc = mkDoc({
          zones: { z0: [], z1: [], z2: [] }, // issue 41: rules over one, any or several zones
          interfaces: { eth0: {} },
          routes: [{ destination: '0.0.0.0/0', interface: 'eth0' }, { destination: '::/0', interface: 'eth0' }],
          addresses: Object.fromEntries(t.addresses.map((ips, i) => [`a${i}`, ips])),
          services: Object.fromEntries(t.services.map((x, i) => [`s${i}`, x])),
          policies: [{}], // allow everything, so that an snat match shows in the answer
          nat: t.rules.map((r) => ({
            type: r.dnat ? 'dnat-ip' : 'snat', srcZone: r.sz, dstZone: r.dz, srcAddr: addr(r.sa), dstAddr: addr(r.da),
            service: r.svc === null ? '' : `s${r.svc % t.services.length}`, translatedIp: r.v6 ? '2001:db8::9' : '10.0.0.9',
          })),
        });
        const ref = new ReferenceEvaluator(doc);
        const hit = new Set<number>();
        for (const j of allPackets(null, LIST_ZONES)) {
          const nat = ref.eval(parsePacket(j)).nat;
          if (nat) hit.add(nat.id);
        }
        const want = doc.nat.filter((r) => !hit.has(r.id)).map((r) => r.id);
        found += want.length;
        const got = analyze(doc, undefined, { deep: true }).unreachableNat;
        expect(got.map((c) => c.id)).toEqual(want);
        // each cover holds every packet of its rule's space (of the rule's family)
        for (const c of got) {
          const rule = doc.nat.find((r) => r.id === c.id)!;
          const fam = rule.translatedIp.includes(':') ? 6 : 4;
          for (const j of allPackets(null, LIST_ZONES)) {
            if (parseCidr(j['src-ip'] as string)!.family !== fam || !inSpace(doc, rule, j)) continue;
            expect(c.coveredBy.some((id) => inSpace(doc, doc.nat.find((r) => r.id === id)!, j))).toBe(true);
          }
        }
      }),
      { numRuns: 40, seed },
    );
    expect(found).toBeGreaterThan(5);
  });
});
