// The set stage (src/eval/wide.ts): rules with many prefixes on a side (address groups) are
// matched by set membership instead of the trees. Tables where such rules and rules of one or
// a few prefixes alternate must answer the linear scan's first match, including packets that
// a rule of each path matches (which one comes first is decided across both), and the
// answer over the whole pipeline stays the reference evaluator's.
import fc from 'fast-check';
import type { Family } from '../../src/config/net';
import { buildClassifier, DEFAULT_BUILD_PARAMS, FamilyClassifier } from '../../src/eval/classifier';
import { CompiledConfig } from '../../src/eval/compiled';
import { policySpecs } from '../../src/eval/compile';
import { LinearClassifier } from '../../src/eval/linear';
import { parsePacket } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { buildFamilyTable, type FamilyTable } from '../../src/eval/rules';
import { isWide } from '../../src/eval/wide';
import { parseIp } from '../../src/config/net';
import { loadWords } from '../../src/eval/compiled';
import { packetKey } from '../../src/eval/sets';
import { cidrArb, mkDoc, packetArb, specArb, specDoc, type PacketSpec, type RandomSpec } from './helpers';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

function fill(q: Int32Array, ps: PacketSpec): Family {
  loadWords(parseIp(ps.family === 4 ? ps.src4 : ps.src6)!.bytes, q, 0);
  loadWords(parseIp(ps.family === 4 ? ps.dst4 : ps.dst6)!.bytes, q, 4);
  const proto = typeof ps.protocol === 'number' ? ps.protocol : { tcp: 6, udp: 17, icmp: 1 }[ps.protocol]!;
  q[8] = packetKey(proto, ps.port);
  q[9] = ps.sport ?? 0;
  return ps.family;
}

/** Random configurations whose addresses are, one in two, wide: 6 to 24 networks (and groups of them). */
const wideSpecArb: fc.Arbitrary<RandomSpec> = fc
  .tuple(
    specArb({ policies: [100, 600], nat: [0, 0], addresses: 8, services: 10 }, { sports: true, groups: true }),
    fc.array(fc.array(cidrArb, { minLength: 6, maxLength: 24 }), { minLength: 2, maxLength: 8 }),
  )
  .map(([spec, wide]) => {
    // interleaved, so that policies' address indices pick both kinds
    const addresses: string[][] = [];
    for (let i = 0; i < Math.max(spec.addresses.length, wide.length); i++) {
      if (i < spec.addresses.length) addresses.push(spec.addresses[i]);
      if (i < wide.length) addresses.push(wide[i]);
    }
    return { ...spec, addresses };
  });

/** Rule indices of a table that the set stage holds with threshold `wide`. */
function wideRules(t: FamilyTable, wide: number): Set<number> {
  const out = new Set<number>();
  for (let r = 0; r < t.count; r++) if (isWide(t, r, wide)) out.add(t.rule[r]);
  return out;
}

describe('set stage: classifier = linear scan with wide and narrow rules mixed', () => {
  for (const firstOnly of [true, false]) {
    test(`firstOnly ${firstOnly}`, () => {
      const seen = { wide: 0, tree: 0, wideBeforeTree: 0, treeBeforeWide: 0, compared: 0 };
      // rounds of the property until both paths and both orders were seen often enough (with
      // firstOnly false, a random min leaves fewer matches: one round was sometimes short)
      const enough = () => seen.wide > 100 && seen.tree > 100 && seen.wideBeforeTree > 20 && seen.treeBeforeWide > 20;
      for (let round = 0; round < 10 && !enough(); round++) fc.assert(
        fc.property(wideSpecArb, fc.array(packetArb, { minLength: 100, maxLength: 1000, size: 'max' }), fc.constantFrom(2, 4, 8), fc.constantFrom(1, 16), (spec, packets, wide, binth) => {
          const doc = specDoc(spec);
          const specs = policySpecs(doc);
          const zones = doc.zones.size;
          const t = { 4: buildFamilyTable(specs, 4), 6: buildFamilyTable(specs, 6) };
          const params = { ...DEFAULT_BUILD_PARAMS, wide, binth };
          const cls = { 4: new FamilyClassifier(buildClassifier(t[4], zones, params, firstOnly), 4), 6: new FamilyClassifier(buildClassifier(t[6], zones, params, firstOnly), 6) };
          const isW = { 4: wideRules(t[4], wide), 6: wideRules(t[6], wide) };
          const lin = new LinearClassifier(t[4], t[6]);
          for (const ps of packets) {
            const f = fill(lin.q, ps);
            cls[f].q.set(lin.q);
            const sz = ps.sz === null ? 0 : ps.sz % (zones + 1);
            const dz = ps.dz === null ? 0 : ps.dz % (zones + 1);
            const min = firstOnly ? 0 : ps.seed % Math.max(1, doc.policies.length);
            const want = lin.first(f, sz, dz, min);
            const got = cls[f].first(sz, dz, min);
            if (got !== want) expect({ ps, sz, dz, min, got }).toEqual({ ps, sz, dz, min, got: want });
            seen.compared++;
            if (want < 0) continue;
            seen[isW[f].has(want) ? 'wide' : 'tree']++;
            // the next match after the first: when it is on the other path, the answer was
            // decided across both
            const next = lin.first(f, sz, dz, want + 1);
            if (next >= 0 && isW[f].has(want) !== isW[f].has(next)) seen[isW[f].has(want) ? 'wideBeforeTree' : 'treeBeforeWide']++;
          }
        }),
        { numRuns: 10, seed: seed === undefined ? undefined : seed + round },
      );
      // both paths answered, and both orders of a wide and a narrow match occurred
      expect(seen.compared).toBeGreaterThan(2000);
      expect(seen.wide).toBeGreaterThan(100);
      expect(seen.tree).toBeGreaterThan(100);
      expect(seen.wideBeforeTree).toBeGreaterThan(20);
      expect(seen.treeBeforeWide).toBeGreaterThan(20);
    });
  }
});

describe('set stage: first match across the trees and the set stage', () => {
  // "many" holds twelve networks (past the default threshold of 8 prefixes), so its rules are
  // in the set stage; "one" a single network, in the trees; both hold 10.0.0.5
  const many = Array.from({ length: 12 }, (_, i) => `10.0.${i * 2}.0/24`);
  const base = {
    zones: { in: ['10.0.0.0/8'], out: ['192.0.2.0/24'] },
    interfaces: { eth0: { ip: '10.255.0.1/8', zone: 'in' }, eth1: { ip: '192.0.2.1/24', zone: 'out' } },
    addresses: { many, one: ['10.0.0.5/32'], web: ['192.0.2.80/32'], more: Array.from({ length: 12 }, (_, i) => `192.0.2.${i * 8}/30`) },
    services: { http: { protocol: 'tcp', ports: [80] }, ssh: { protocol: 'tcp', ports: [22] } },
  };
  const packet = { 'src-ip': '10.0.0.5', 'dst-ip': '192.0.2.80', protocol: 'tcp', 'dst-port': 80 };
  const cases: Array<[string, Array<[string, string, 'allow' | 'deny', string]>, number]> = [
    ['a wide rule before a narrow one', [['many', 'web', 'deny', 'http'], ['one', 'web', 'allow', 'http']], 1],
    ['a narrow rule before a wide one', [['one', 'web', 'allow', 'http'], ['many', 'more', 'deny', 'http']], 1],
    ['a wide rule that does not match, then a narrow one, then a wide one', [['many', 'many', 'deny', 'http'], ['one', 'web', 'allow', 'http'], ['many', 'more', 'deny', 'http']], 2],
    ['wide on both sides, after a narrow rule of another service', [['one', 'web', 'deny', 'ssh'], ['many', 'more', 'allow', 'http']], 2],
  ];
  for (const [name, rules, id] of cases) {
    test(name, () => {
      const doc = mkDoc({ ...base, policies: rules.map(([srcAddr, dstAddr, action, svc]) => ({ srcAddr, dstAddr, action, services: [svc] })) });
      const p = parsePacket(packet);
      const want = new ReferenceEvaluator(doc).eval(p);
      expect(want.policy?.id).toBe(id);
      const cc = CompiledConfig.compile(doc);
      expect(cc.eval(p)).toEqual(want);
      // the table really has both paths: the wide rules are in the set stage
      const t = buildFamilyTable(policySpecs(doc), 4);
      expect(wideRules(t, DEFAULT_BUILD_PARAMS.wide).size).toBeGreaterThan(0);
      expect(wideRules(t, DEFAULT_BUILD_PARAMS.wide).size).toBeLessThan(t.count);
    });
  }
});
