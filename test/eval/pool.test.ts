// The piscina compile pool: the compiled JavaScript worker (dist/src/workers/compile-worker.js)
// compiles in another thread, the tables come back in shared memory, and the answers equal the
// reference evaluator's. A full queue is refused at once with ERR_SYS_4002. The pool's first
// thread outlives its idle timeout, so a commit long after the one before still sends only
// its changes.
import fc from 'fast-check';
import { analyze } from '../../src/eval/analysis';
import { CompiledConfig } from '../../src/eval/compiled';
import { parsePacket } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { workingCopy } from '../../src/config/document';
import { CompilePool } from '../../src/workers/compile-pool';
import { LARGE, packetArb, packetJson, specArb, specDoc, specMembers } from './helpers';

describe('CompilePool', () => {
  const pool = new CompilePool({ maxThreads: 1 });
  afterAll(() => pool.close());

  test('compiles in a worker; its answers equal the reference evaluator', async () => {
    const specs = fc.sample(specArb({ ...LARGE, policies: [60, 120] }), { numRuns: 3, seed: 42 });
    const packets = fc.sample(packetArb, { numRuns: 3000, seed: 43 });
    for (const spec of specs) {
      const doc = specDoc(spec);
      const cc = await pool.compile(doc);
      expect(cc).toBeInstanceOf(CompiledConfig);
      expect(cc.image.buffer.byteLength).toBeGreaterThan(0);
      expect(cc.analysis).toEqual(analyze(doc));
      const ref = new ReferenceEvaluator(doc);
      const members = specMembers(spec);
      for (const ps of packets) {
        const p = parsePacket(packetJson(ps, spec.zones.length, members));
        let want: unknown, got: unknown;
        try { want = ref.eval(p); } catch (e) { want = (e as { code: string }).code; }
        try { got = cc.eval(p); } catch (e) { got = (e as { code: string }).code; }
        if (JSON.stringify(want) !== JSON.stringify(got)) expect(got).toEqual(want);
      }
    }
  });

  test('a full queue is refused with ERR_SYS_4002', async () => {
    const small = new CompilePool({ maxThreads: 1, maxQueue: 1 });
    try {
      const doc = specDoc(fc.sample(specArb({ ...LARGE, policies: [120, 120] }), { numRuns: 1, seed: 7 })[0]);
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => small.compile(doc)));
      const refused = results.filter((r) => r.status === 'rejected');
      expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'ERR_SYS_4002', status: 503 });
    } finally {
      await small.close();
    }
  });

  test('a compile long after the one before (past the idle timeout) still goes as the changes to a thread that holds the base', async () => {
    const quick = new CompilePool({ maxThreads: 1, idleTimeout: 50 });
    try {
      const a = specDoc(fc.sample(specArb({ ...LARGE, policies: [60, 60] }), { numRuns: 1, seed: 9 })[0]);
      await quick.compile(a);
      await new Promise((r) => setTimeout(r, 400)); // eight idle timeouts
      const b = workingCopy(a);
      b.policies = a.policies.map((p, i) => (i === 3 ? { ...p, action: p.action === 'allow' ? 'deny' : 'allow' } : p));
      const cc = await quick.compile(b, a);
      expect(cc.analysis).toEqual(analyze(b));
      expect(Object.prototype.toString.call(cc.image.buffer)).toBe('[object SharedArrayBuffer]'); // another realm's class
      // the first whole, the second as changes the thread could apply (no NO_BASE, no resend)
      expect(quick.sends).toEqual({ whole: 1, delta: 1 });
    } finally {
      await quick.close();
    }
  });
});
