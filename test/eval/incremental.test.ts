// The incremental analysis (issue 30): random configurations, random sequences of changes
// (policies edited, inserted, deleted and moved, their zones changed; addresses, services,
// their source ports and groups changed), and at each step the analysis made from a memo is
// the whole analysis of that document: the same report, the same stats. The memo is the last
// one recorded (as the worker threads keep it; since issue 44 also a pass the work budget
// left short, whose undecided policies the next one copies only under the same allowance) or,
// now and then, an older one: the memo's space and counts are shared with the next memo's and
// must stay as they were. The quick pass, the quick pass with small budgets (undecided
// policies), and the deep pass. The compile
// worker's task, which keeps the memo between commits, answers like a fresh compile too.
import fc from 'fast-check';
import { serializeDoc, workingCopy } from '../../src/config/document';
import { docDelta } from '../../src/config/doc-delta';
import type { ConfigDoc } from '../../src/config/types';
import { analyze, type AnalysisStats, type AnalyzeOptions } from '../../src/eval/analysis';
import type { AnalysisMemo } from '../../src/eval/analysis-memo';
import { CompiledConfig } from '../../src/eval/compiled';
import { policyUsage, unusedObjects } from '../../src/eval/object-usage';
import { parsePacket } from '../../src/eval/packet';
import compileTask, { NO_BASE } from '../../src/workers/compile-worker';
import { CompilePool } from '../../src/workers/compile-pool';
import { cidrArb, LARGE, packetArb, packetJson, specArb, specDoc, specMembers, type PacketSpec, type RandomSpec } from './helpers';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

/** One change to a document, its numbers wrapped around what the document has. */
type Change =
  | { op: 'action' | 'disable' | 'delete'; at: number }
  | { op: 'addr'; at: number; src: boolean; to: number }
  | { op: 'svc'; at: number; to: number }
  | { op: 'insert'; at: number; from: number }
  | { op: 'move'; at: number; to: number }
  | { op: 'ips'; to: number; ips: string[] }
  | { op: 'ports'; to: number; port: number }
  | { op: 'zone'; at: number; src: boolean; to: number }
  | { op: 'sports'; to: number; port: number | null }
  | { op: 'members'; to: number; from: number };

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ op: fc.constantFrom('action' as const, 'disable' as const, 'delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('addr' as const), at: fc.nat(), src: fc.boolean(), to: fc.nat() }),
  fc.record({ op: fc.constant('svc' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), from: fc.nat() }),
  fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('ips' as const), to: fc.nat(), ips: fc.array(cidrArb, { minLength: 1, maxLength: 2 }) }),
  fc.record({ op: fc.constant('ports' as const), to: fc.nat(), port: fc.constantFrom(22, 80, 443, 8080) }),
  fc.record({ op: fc.constant('zone' as const), at: fc.nat(), src: fc.boolean(), to: fc.nat() }),
  fc.record({ op: fc.constant('sports' as const), to: fc.nat(), port: fc.option(fc.constantFrom(53, 1024, 40000), { nil: null }) }),
  fc.record({ op: fc.constant('members' as const), to: fc.nat(), from: fc.nat() }),
);

/** The document after one change: a working copy sharing the objects it does not change, as
 * a candidate does (what the compile pool's deltas rely on). */
function applyChange(prev: ConfigDoc, c: Change): ConfigDoc {
  const doc = workingCopy(prev);
  const ps = (doc.policies = [...prev.policies]);
  const addrs = [...doc.addresses.keys()];
  const svcs = [...doc.services.keys()];
  const zones = [...doc.zones.keys()];
  const groups = [...doc.addressGroups.keys()];
  const k = ps.length && 'at' in c ? c.at % ps.length : -1;
  const p = k >= 0 ? (ps[k] = { ...ps[k] }) : undefined;
  switch (c.op) {
    case 'action': if (p) p.action = p.action === 'allow' ? 'deny' : 'allow'; break;
    case 'disable': if (p) { if (p.disabled) delete p.disabled; else p.disabled = true; } break;
    case 'delete': if (p) ps.splice(c.at % ps.length, 1); break;
    case 'addr': if (p && addrs.length) p[c.src ? 'srcAddr' : 'dstAddr'] = c.to % (addrs.length + 1) === 0 ? '' : addrs[c.to % addrs.length]; break;
    case 'svc': if (p && svcs.length) p.services = c.to % (svcs.length + 1) === 0 ? [] : [svcs[c.to % svcs.length]]; break;
    case 'insert': if (p) ps.splice(c.at % (ps.length + 1), 0, { ...ps[c.from % ps.length], id: ++doc.counters.policy }); break;
    case 'move': if (p) { const [x] = ps.splice(c.at % ps.length, 1); ps.splice(c.to % (ps.length + 1), 0, x); } break;
    case 'ips': if (addrs.length) doc.addresses.set(addrs[c.to % addrs.length], { name: addrs[c.to % addrs.length], ips: [...new Set(c.ips.map((x) => x.replace(/\/.*/, '/32').includes(':') ? x.replace(/\/.*/, '/128') : x.replace(/\/.*/, '/32')))] }); break;
    case 'ports': if (svcs.length) { const s = doc.services.get(svcs[c.to % svcs.length])!; doc.services.set(s.name, { ...s, ports: s.ports.length ? [c.port] : [] }); } break;
    // '' (any) one time in (zones + 1)
    // one time in seven, two zones (issue 41)
    case 'zone': if (p) p[c.src ? 'srcZone' : 'dstZone'] = zones.length > 1 && c.to % 7 === 6 ? [zones[c.to % zones.length], zones[(c.to + 1) % zones.length]] : c.to % (zones.length + 1) === 0 ? '' : zones[c.to % zones.length]; break;
    case 'sports': if (svcs.length) {
      const s = { ...doc.services.get(svcs[c.to % svcs.length])! };
      if (c.port === null || !s.ports.length) delete s.sourcePorts;
      else s.sourcePorts = [c.port];
      doc.services.set(s.name, s);
    } break;
    // a group's members: one more (an address or an earlier group), or its first one dropped
    case 'members': if (groups.length) {
      const g = doc.addressGroups.get(groups[c.to % groups.length])!;
      const pool = [...addrs.filter((a) => !doc.addressGroups.has(a)), ...groups.slice(0, groups.indexOf(g.name))];
      const m = pool[c.from % pool.length];
      const members = g.members.includes(m) ? (g.members.length > 1 ? g.members.slice(1) : g.members) : [...g.members, m];
      doc.addressGroups.set(g.name, { ...g, members });
    } break;
  }
  return doc;
}

const VARIANTS: Array<[string, AnalyzeOptions]> = [
  ['quick', {}],
  ['quick, small budgets', { budget: 400, totalBudget: 6000 }],
  ['deep', { deep: true }],
];

/** A policy of the counterexamples below: a deny of everything unless said. */
const rule = (p: Partial<RandomSpec['policies'][number]>): RandomSpec['policies'][number] => ({ allow: false, sz: null, dz: null, sa: null, da: null, svcs: null, log: false, off: false, ...p });

/**
 * Cases CI runs found, each variant runs them before its random ones.
 * - A policy inserted before one whose service (two port ranges) an earlier policy names too:
 *   the whole analysis made both regions' service field one object and the painter skipped
 *   clipping it; the incremental one had made the later region again (an equal field, another
 *   object) and spent more, so under a small budget that policy was undecided, not covered.
 */
const FOUND: Array<[RandomSpec, Array<[Change, number]>]> = [
  [
    {
      addrGroups: [], svcGroups: [], zones: [], ifaces: [{ ip: null, zone: null, up: false }], vlans: [], routes: [], nat: [],
      addresses: [['10.0.0.0/30', '2001:db8::0/0']],
      services: [{ protocol: 'tcp', ports: [65534, '1-1024'] }],
      policies: [
        rule({ allow: true, sa: 0 }), rule({ da: 0 }), rule({ off: true }), rule({ svcs: [0] }), rule({}), rule({}), rule({ off: true }),
        rule({}), rule({}), rule({}), rule({}), rule({ allow: true, svcs: [0] }),
      ],
    },
    [[{ op: 'insert', at: 1422252108, from: 0 }, 0]],
  ],
];

describe('incremental analysis = whole analysis', () => {
  for (const [name, base] of VARIANTS) {
    test(`${name}: after every change of random sequences, from the last memo or an older one`, () => {
      let copied = 0;
      let older = 0;
      let keptUndecided = 0; // memos recorded by a pass that left policies undecided
      fc.assert(
        fc.property(specArb({ ...LARGE, policies: [10, 80] }, { disabled: true, sports: true, groups: true, zoneLists: true }), fc.array(fc.tuple(changeArb, fc.nat(3)), { minLength: 1, maxLength: 6 }), (spec, changes) => {
          let doc = specDoc(spec);
          const memo: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: null };
          analyze(doc, undefined, { ...base, memo });
          // the memos recorded so far, newest last
          const memos: AnalysisMemo[] = memo.next ? [memo.next] : [];
          for (const [c, pick] of changes) {
            doc = applyChange(doc, c);
            const cfg = CompiledConfig.compile(doc);
            const whole: AnalysisStats = { reached: 0, painted: 0, undecided: 0, undecidedIds: [] };
            const inc: AnalysisStats = { reached: 0, painted: 0, undecided: 0, undecidedIds: [] };
            const expected = analyze(doc, cfg, { ...base, stats: whole });
            // one time in four the memo before the last (its space and counts were the
            // base of the last one's)
            const from = pick === 0 && memos.length > 1 ? memos[memos.length - 2] : memos[memos.length - 1];
            const slot = { previous: from ?? null } as typeof memo;
            if (slot.previous) copied++;
            if (from && from !== memos[memos.length - 1]) older++;
            const got = analyze(doc, cfg, { ...base, stats: inc, memo: slot });
            expect(got).toEqual(expected);
            expect(inc).toEqual(whole);
            if (slot.next) memos.push(slot.next);
            if (slot.next && inc.undecided > 0) keptUndecided++;
          }
        }),
        { numRuns: name === 'deep' ? 40 : 60, seed, examples: FOUND },
      );
      expect(copied).toBeGreaterThan(50); // the memo was there to be used
      expect(older).toBeGreaterThan(5);
      // a pass the budget left short records its memo, and the next analyses start from it
      if (name === 'quick, small budgets') expect(keptUndecided).toBeGreaterThan(5);
    });
  }

  test('the compile worker keeps its memo and documents between tasks: sent whole or as changes, the same answers and analysis as a fresh compile', () => {
    let key = 1;
    fc.assert(
      fc.property(specArb({ ...LARGE, policies: [10, 60] }), fc.array(fc.tuple(changeArb, fc.boolean()), { minLength: 1, maxLength: 5 }), fc.array(packetArb, { minLength: 10, maxLength: 10 }), (spec, changes, packets: PacketSpec[]) => {
        let doc = specDoc(spec);
        let base = key++;
        compileTask({ key: base, doc: serializeDoc(doc) });
        for (const [c, whole] of changes) {
          const prev = doc;
          doc = applyChange(doc, c);
          const task = whole ? { key, doc: serializeDoc(doc) } : { key, base, delta: structuredClone(docDelta(prev, doc)) };
          base = key++;
          const r = compileTask(task);
          if (!r.ok) throw new Error(r.details);
          const fresh = CompiledConfig.compile(doc);
          expect(r.analysis).toEqual(analyze(doc, fresh));
          const got = CompiledConfig.fromImage({ meta: r.meta, buffer: r.buffer });
          for (const ps of packets) {
            const pkt = parsePacket(packetJson(ps, spec.zones.length, specMembers(spec)));
            expect(answer(got, pkt)).toEqual(answer(fresh, pkt));
          }
        }
      }),
      { numRuns: 40, seed },
    );
  });
});

test('the policies\' reference counts made from those of any earlier table are the fresh counts; the earlier ones stay as they were', () => {
  const sorted = (m: ReadonlyMap<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const fresh = (d: ConfigDoc) => policyUsage(d.policies, null);
  fc.assert(
    fc.property(specArb({ ...LARGE, policies: [5, 40] }, { groups: true }), fc.array(fc.tuple(changeArb, fc.nat()), { minLength: 1, maxLength: 8 }), (spec, changes) => {
      let doc = specDoc(spec);
      const chain = [{ doc, usage: fresh(doc) }];
      for (const [c, from] of changes) {
        doc = applyChange(doc, c);
        const base = chain[from % chain.length];
        const usage = policyUsage(doc.policies, base.usage);
        expect([sorted(usage.addr), sorted(usage.svc)]).toEqual([sorted(fresh(doc).addr), sorted(fresh(doc).svc)]);
        expect(unusedObjects(doc, usage)).toEqual(unusedObjects(doc));
        chain.push({ doc, usage });
      }
      for (const { doc: d, usage } of chain) expect([sorted(usage.addr), sorted(usage.svc)]).toEqual([sorted(fresh(d).addr), sorted(fresh(d).svc)]);
    }),
    { numRuns: 200, seed },
  );
});

test('a set cancel flag ends a deep pass as its deadline does; the memo of the pass before still serves the next one', () => {
  const doc = specDoc(fc.sample(specArb({ ...LARGE, policies: [60, 80] }), { numRuns: 1, seed: 7 })[0]);
  const cfg = CompiledConfig.compile(doc);
  const memo: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: null };
  const whole = analyze(doc, cfg, { deep: true, memo });
  const first = memo.next!;
  const cancel = new Int32Array(new SharedArrayBuffer(4));
  Atomics.store(cancel, 0, 1);
  const cut = { previous: null } as typeof memo;
  const a = analyze(doc, cfg, { deep: true, cancel, memo: cut });
  expect(a.complete).toBe(false);
  expect(cut.next).toBeNull();
  expect(analyze(doc, cfg, { deep: true, memo: { previous: first } })).toEqual(whole);
});

describe('the compile pool sends changes to a thread holding the base document', () => {
  const pool = new CompilePool({ maxThreads: 1 });
  afterAll(() => pool.close());

  test('a delta on a held base, a base never sent, a base the thread no longer holds: each the fresh compile', async () => {
    const r = fc.sample(specArb({ ...LARGE, policies: [30, 60] }), { numRuns: 1, seed: 30 })[0];
    const d0 = specDoc(r);
    const changes = fc.sample(changeArb, { numRuns: 8, seed: 31 });
    const docs = [d0];
    for (const c of changes) docs.push(applyChange(docs[docs.length - 1], c));
    await pool.compile(d0);
    for (let i = 1; i < docs.length; i++) {
      // i % 3 === 2: the base is two versions back, which the thread dropped (it holds two)
      const base = i % 3 === 2 && i >= 3 ? docs[i - 3] : docs[i - 1];
      const got = await pool.compile(docs[i], base);
      expect(got.analysis).toEqual(analyze(docs[i], CompiledConfig.compile(docs[i])));
    }
    const never = specDoc(r);
    const got = await pool.compile(docs[2], never);
    expect(got.analysis).toEqual(analyze(docs[2], CompiledConfig.compile(docs[2])));
  });

  test('a task on a base the thread does not hold answers NO_BASE', () => {
    expect(compileTask({ key: 1e9, base: 1e9 + 1, delta: docDelta(specDoc(fc.sample(specArb(), { numRuns: 1, seed: 1 })[0]), specDoc(fc.sample(specArb(), { numRuns: 1, seed: 1 })[0])) })).toMatchObject({ ok: false, code: NO_BASE });
  });
});

/** An answer, or the refusal of a packet naming something the document lacks. */
function answer(cfg: CompiledConfig, pkt: ReturnType<typeof parsePacket>): unknown {
  try {
    return cfg.eval(pkt);
  } catch (e) {
    return String(e);
  }
}

