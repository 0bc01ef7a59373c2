// The incremental compile (issue 30): random configurations, random sequences of changes
// (policies edited in every field, inserted, deleted, moved, disabled; NAT rules likewise;
// address, address group and service contents; zones added, which renumbers them; links up
// and down), and at each step the build made from the previous step's BuildMemo answers every
// random packet of both families (policy and NAT) exactly as a full build of the same document
// does, under random build parameters (deep trees, one-rule leaves, hash nodes, the memory
// valve, the set stage). Through the compile thread's task too: documents sent whole or as
// deltas on a held base, and a base it does not hold (NO_BASE, then sent whole); and after the
// rehearsals that follow a full build (thrown-away builds that must leave nothing behind).
import fc from 'fast-check';
import { serializeDoc, workingCopy } from '../../src/config/document';
import { docDelta } from '../../src/config/doc-delta';
import type { ConfigDoc, ZoneRef } from '../../src/config/types';
import { BuildMemo, type ReuseStats } from '../../src/eval/build-memo';
import type { BuildParams } from '../../src/eval/classifier';
import { DEFAULT_BUILD_PARAMS } from '../../src/eval/classifier';
import { compileImage, policySpecs } from '../../src/eval/compile';
import { CompiledConfig } from '../../src/eval/compiled';
import { parsePacket } from '../../src/eval/packet';
import compileTask, { NO_BASE, rehearsals, rehearsing, type CompileReply } from '../../src/workers/compile-worker';
import { analyze } from '../../src/eval/analysis';
import { buildParamsArb, cidrArb, LARGE, packetArb, packetJson, specArb, specDoc, specMembers, type PacketSpec, type RandomSpec } from './helpers';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

type Change =
  | { op: 'policy'; at: number; field: number; to: number }
  | { op: 'insert' | 'nat-insert'; at: number; from: number }
  | { op: 'delete' | 'nat-delete'; at: number }
  | { op: 'move' | 'nat-move'; at: number; to: number }
  | { op: 'nat'; at: number; field: number; to: number }
  | { op: 'ips'; to: number; ips: string[] }
  | { op: 'ports'; to: number; port: number }
  | { op: 'group'; to: number; member: number }
  | { op: 'zone-add'; name: string }
  | { op: 'link'; to: number };

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('policy' as const), at: fc.nat(), field: fc.nat(7), to: fc.nat() }) },
  fc.record({ op: fc.constantFrom('insert' as const, 'nat-insert' as const), at: fc.nat(), from: fc.nat() }),
  fc.record({ op: fc.constantFrom('delete' as const, 'nat-delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constantFrom('move' as const, 'nat-move' as const), at: fc.nat(), to: fc.nat() }),
  { weight: 2, arbitrary: fc.record({ op: fc.constant('nat' as const), at: fc.nat(), field: fc.nat(4), to: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('ips' as const), to: fc.nat(), ips: fc.array(cidrArb, { minLength: 1, maxLength: 3 }) }) },
  fc.record({ op: fc.constant('ports' as const), to: fc.nat(), port: fc.constantFrom(22, 80, 443, 8080) }),
  fc.record({ op: fc.constant('group' as const), to: fc.nat(), member: fc.nat() }),
  fc.record({ op: fc.constant('zone-add' as const), name: fc.constantFrom('a', 'y', 'zz') }),
  fc.record({ op: fc.constant('link' as const), to: fc.nat() }),
);

const pick = <T>(list: readonly T[], i: number): T | '' => (list.length === 0 || i % (list.length + 1) === list.length ? '' : list[i % (list.length + 1)]);

/** A zone field: one zone or any (pick), or one time in five two zones (issue 41). */
const zoneOrList = (zones: readonly string[], i: number): ZoneRef =>
  (zones.length > 1 && i % 5 === 4 ? [zones[i % zones.length], zones[(i + 1) % zones.length]] : pick(zones, i));

/** The document after one change: a working copy sharing every object it does not change,
 * as a candidate does. */
function applyChange(prev: ConfigDoc, c: Change): ConfigDoc {
  const doc = workingCopy(prev);
  const ps = (doc.policies = [...prev.policies]);
  const ns = (doc.nat = [...prev.nat]);
  const zones = [...doc.zones.keys()], addrs = [...doc.addresses.keys(), ...doc.addressGroups.keys()], svcs = [...doc.services.keys(), ...doc.serviceGroups.keys()];
  const links = [...doc.interfaces.keys(), ...doc.vlans.keys()];
  switch (c.op) {
    case 'policy': {
      if (ps.length === 0) break;
      const k = c.at % ps.length;
      const p = (ps[k] = { ...ps[k] });
      if (c.field === 0) p.action = p.action === 'allow' ? 'deny' : 'allow';
      else if (c.field === 1) p.srcAddr = pick(addrs, c.to);
      else if (c.field === 2) p.dstAddr = pick(addrs, c.to);
      else if (c.field === 3) p.services = svcs.length === 0 || c.to % 3 === 0 ? [] : [svcs[c.to % svcs.length]];
      else if (c.field === 4) p.srcZone = zoneOrList(zones, c.to);
      else if (c.field === 5) p.dstZone = zoneOrList(zones, c.to);
      else if (c.field === 6) p.disabled = !p.disabled;
      else p.log = !p.log;
      break;
    }
    case 'insert': if (ps.length) ps.splice(c.at % (ps.length + 1), 0, { ...ps[c.from % ps.length], id: ++doc.counters.policy, action: 'deny' }); break;
    case 'delete': if (ps.length) ps.splice(c.at % ps.length, 1); break;
    case 'move': if (ps.length) { const [x] = ps.splice(c.at % ps.length, 1); ps.splice(c.to % (ps.length + 1), 0, x); } break;
    case 'nat-insert': if (ns.length) ns.splice(c.at % (ns.length + 1), 0, { ...ns[c.from % ns.length], id: ++doc.counters.nat }); break;
    case 'nat-delete': if (ns.length) ns.splice(c.at % ns.length, 1); break;
    case 'nat-move': if (ns.length) { const [x] = ns.splice(c.at % ns.length, 1); ns.splice(c.to % (ns.length + 1), 0, x); } break;
    case 'nat': {
      if (ns.length === 0) break;
      const k = c.at % ns.length;
      const r = (ns[k] = { ...ns[k] });
      if (c.field === 0) r.srcAddr = pick(addrs, c.to);
      else if (c.field === 1) r.dstAddr = pick(addrs, c.to);
      else if (c.field === 2) r.disabled = !r.disabled;
      else if (c.field === 3) r.outInterface = c.to % 4 === 0 ? 'eth9' : pick(links, c.to);
      else r.srcZone = zoneOrList(zones, c.to);
      break;
    }
    case 'ips': {
      const names = [...doc.addresses.keys()];
      if (names.length) { const n = names[c.to % names.length]; doc.addresses.set(n, { name: n, ips: [...new Set(c.ips)] }); }
      break;
    }
    case 'ports': {
      const names = [...doc.services.keys()];
      if (names.length) { const s = doc.services.get(names[c.to % names.length])!; doc.services.set(s.name, { ...s, ports: s.ports.length ? [c.port] : [] }); }
      break;
    }
    case 'group': {
      const groups = [...doc.addressGroups.values()], bases = [...doc.addresses.keys()];
      if (groups.length && bases.length) { const g = groups[c.to % groups.length]; doc.addressGroups.set(g.name, { ...g, members: [bases[c.member % bases.length]] }); }
      break;
    }
    case 'zone-add': if (!doc.zones.has(c.name)) doc.zones.set(c.name, { name: c.name, type: 'l3', color: '', networks: [] }); break;
    case 'link': {
      const names = [...doc.interfaces.keys()];
      if (names.length) { const i = doc.interfaces.get(names[c.to % names.length])!; doc.interfaces.set(i.name, { ...i, state: i.state === 'up' ? 'down' : 'up' }); }
      break;
    }
  }
  return doc;
}

const paramsArb: fc.Arbitrary<BuildParams> = fc.oneof(fc.constant(DEFAULT_BUILD_PARAMS), buildParamsArb);

/** An answer, or the refusal of a packet naming something the document lacks. */
function answer(cfg: CompiledConfig, pkt: ReturnType<typeof parsePacket>): unknown {
  try {
    return cfg.eval(pkt);
  } catch (e) {
    return String(e);
  }
}

function expectSameAnswers(got: CompiledConfig, want: CompiledConfig, spec: RandomSpec, packets: PacketSpec[]): void {
  for (const ps of packets) {
    const pkt = parsePacket(packetJson(ps, spec.zones.length + 1, specMembers(spec)));
    const a = answer(got, pkt), b = answer(want, pkt);
    if (JSON.stringify(a) !== JSON.stringify(b)) expect({ packet: ps, got: a }).toEqual({ packet: ps, got: b });
  }
}

const total: ReuseStats = { specsReused: 0, specsMade: 0, treesReused: 0, treesBuilt: 0 };
const add = (s: ReuseStats) => {
  for (const k of Object.keys(total) as Array<keyof ReuseStats>) total[k] += s[k];
};

describe('incremental compile = full compile', () => {
  test('after every change of random sequences, both families, policies and NAT', () => {
    fc.assert(
      fc.property(
        specArb({ ...LARGE, policies: [10, 120], nat: [0, 20] }, { disabled: true, groups: true, sports: true, zoneLists: true }),
        fc.array(changeArb, { minLength: 1, maxLength: 8 }),
        fc.array(packetArb, { minLength: 40, maxLength: 40 }),
        paramsArb,
        // the share of a tree's rules its copy may leave out: the default, or any (so that
        // small trees take the base + delta path too)
        fc.constantFrom(0.25, 1),
        (spec, changes, packets, params, maxDropped) => {
          let doc = specDoc(spec);
          let memo = new BuildMemo(null, maxDropped);
          compileImage(doc, { params, specs: policySpecs(doc, memo), build: memo });
          memo.done();
          for (const c of changes) {
            doc = applyChange(doc, c);
            const next = new BuildMemo(memo, maxDropped);
            const image = compileImage(doc, { params, specs: policySpecs(doc, next), build: next });
            memo = next.done();
            add(memo.stats);
            expectSameAnswers(CompiledConfig.fromImage(image), CompiledConfig.compile(doc, { params }), spec, packets);
          }
        },
      ),
      { numRuns: 120, seed },
    );
    // the reuse was there to be tested: most specs and trees were reused, some rebuilt
    expect(total.treesReused).toBeGreaterThan(total.treesBuilt);
    expect(total.specsReused).toBeGreaterThan(2 * total.specsMade);
    expect(total.treesBuilt).toBeGreaterThan(0);
  });

  test('the specs of a build with a memo are those of a build without, field by field', () => {
    fc.assert(
      fc.property(specArb({ ...LARGE, policies: [10, 60] }, { disabled: true, groups: true }), fc.array(changeArb, { minLength: 1, maxLength: 6 }), (spec, changes) => {
        let doc = specDoc(spec);
        let memo = new BuildMemo(null);
        policySpecs(doc, memo);
        for (const c of changes) {
          doc = applyChange(doc, c);
          const next = new BuildMemo(memo);
          expect(policySpecs(doc, next)).toEqual(policySpecs(doc));
          memo = next.done();
        }
      }),
      { numRuns: 80, seed },
    );
  });
});

describe('the compile thread reuses its last build', () => {
  test('sent whole or as deltas, with a base it does not hold (NO_BASE, then whole): the answers of a fresh compile', () => {
    let key = 1_000_000;
    let reused = 0;
    fc.assert(
      fc.property(specArb({ ...LARGE, policies: [20, 80] }, { disabled: true }), fc.array(fc.tuple(changeArb, fc.nat(3)), { minLength: 1, maxLength: 5 }), fc.array(packetArb, { minLength: 20, maxLength: 20 }), (spec, changes, packets) => {
        let doc = specDoc(spec);
        let base = key++;
        unwrapOk(compileTask({ key: base, doc: serializeDoc(doc) }));
        for (const [c, how] of changes) {
          const prev = doc;
          doc = applyChange(doc, c);
          let r: CompileReply;
          if (how === 0) r = compileTask({ key, doc: serializeDoc(doc) });
          else if (how === 1) {
            // a base the thread never held: NO_BASE, and the pool then sends the document whole
            expect(compileTask({ key, base: -key, delta: structuredClone(docDelta(prev, doc)) })).toMatchObject({ ok: false, code: NO_BASE });
            r = compileTask({ key, doc: serializeDoc(doc) });
          } else r = compileTask({ key, base, delta: structuredClone(docDelta(prev, doc)) });
          base = key++;
          const ok = unwrapOk(r);
          reused += ok.reuse.treesReused;
          expectSameAnswers(CompiledConfig.fromImage({ meta: ok.meta, buffer: ok.buffer }), CompiledConfig.compile(doc), spec, packets);
        }
      }),
      { numRuns: 40, seed },
    );
    expect(reused).toBeGreaterThan(0);
  });
});

describe('the rehearsals after a full build', () => {
  const defaults = { ...rehearsals };
  afterAll(() => {
    Object.assign(rehearsals, { fromPolicies: defaults.fromPolicies, afterMs: defaults.afterMs });
  });

  test('run while the thread is idle, stop for a task, and leave the next build a full build\'s answers', async () => {
    rehearsals.fromPolicies = 1; // any size rehearses here, at once
    rehearsals.afterMs = 0;
    const [spec, other] = fc.sample(specArb({ ...LARGE, policies: [60, 80] }), { numRuns: 2, seed: 21 });
    const packets = fc.sample(packetArb, { numRuns: 300, seed: 22 });
    let key = 2_000_000;
    // the thread's last build is of another document: this one's build reuses little
    unwrapOk(compileTask({ key: key++, doc: serializeDoc(specDoc(other)) }));
    const before = rehearsals.run;
    const doc = specDoc(spec);
    const base = key++;
    unwrapOk(compileTask({ key: base, doc: serializeDoc(doc) }));
    expect(rehearsing()).toBe(true);
    for (let i = 0; i < 100 && rehearsing(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(rehearsals.run - before).toBe(rehearsals.count);
    const next = applyChange(doc, { op: 'policy', at: 5, field: 7, to: 1 });
    const r = unwrapOk(compileTask({ key: key++, base, delta: structuredClone(docDelta(doc, next)) }));
    expectSameAnswers(CompiledConfig.fromImage({ meta: r.meta, buffer: r.buffer }), CompiledConfig.compile(next), spec, packets);
    expect(r.analysis).toEqual(analyze(next));
    // a task cancels the rehearsals still to come
    unwrapOk(compileTask({ key: key++, doc: serializeDoc(specDoc(other)) }));
    const again = key++;
    unwrapOk(compileTask({ key: again, doc: serializeDoc(doc) }));
    expect(rehearsing()).toBe(true);
    unwrapOk(compileTask({ key: key++, base: again, delta: structuredClone(docDelta(doc, next)) }));
    expect(rehearsing()).toBe(false);
  });
});

/** The reply of a compile that must succeed. */
function unwrapOk(r: CompileReply): Extract<CompileReply, { ok: true }> {
  if (!r.ok) throw new Error(`${r.code}: ${r.details}`);
  return r;
}
