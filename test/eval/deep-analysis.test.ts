// The deep-analysis runner with its real piscina worker (dist/src/workers/analysis-worker.js):
// every running version it is shown gets a deep pass equal to analyze(deep) in this thread; a
// newer version cancels the pass of an older one, whose result never shows; a stopped runner
// starts nothing; versions made by changes, which go to the thread as deltas (doc-feed.ts)
// with the version's tables in shared memory, get the passes of their whole documents.
import fc from 'fast-check';
import pino from 'pino';
import { Writable } from 'node:stream';
import { analyze } from '../../src/eval/analysis';
import { CompiledConfig } from '../../src/eval/compiled';
import { RunningState } from '../../src/session/running';
import { workingCopy } from '../../src/config/document';
import type { ConfigDoc } from '../../src/config/types';
import { DeepAnalysis } from '../../src/workers/deep-analysis';
import { LARGE, specArb, specDoc } from './helpers';

function stateOf(version: number, doc: ConfigDoc): RunningState<CompiledConfig> {
  const meta = { version, author: 'test', time: Date.now(), description: '', summary: '' };
  return new RunningState(meta, doc, Promise.resolve({ compiled: CompiledConfig.compile(doc), warnings: [] }));
}

function capture(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  return { logger: pino({ level: 'info' }, stream), lines };
}

test('a pass per version, equal to analyze(deep); a newer version cancels the older pass', async () => {
  const [a, b] = fc.sample(specArb({ ...LARGE, policies: [40, 80] }), { numRuns: 2, seed: 7 }).map(specDoc);
  const { logger, lines } = capture();
  const runner = new DeepAnalysis({ timeoutMs: 60_000, logger });
  try {
    // version 1's pass waits for its compile: version 2 arrives first and cancels it
    runner.watch(stateOf(1, a));
    runner.watch(stateOf(2, b));
    await runner.idle();
    expect(runner.result(1)).toBeNull();
    const got = runner.result(2);
    expect(got).toEqual(analyze(b, undefined, { deep: true }));
    expect(got!.complete).toBe(true);
    expect(lines.some((l) => l.msg === 'deep analysis cancelled by a newer version' && l.version === 1)).toBe(true);
    expect(lines.some((l) => l.msg === 'deep analysis done' && l.version === 2 && l.complete === true)).toBe(true);
    // a version shown again later gets its pass too
    runner.watch(stateOf(3, a));
    await runner.idle();
    expect(runner.result(3)).toEqual(analyze(a, undefined, { deep: true }));
    expect(runner.result(2)).toBeNull(); // only the running version's result is kept
  } finally {
    await runner.close();
  }
  runner.watch(stateOf(4, a)); // closed: nothing starts
  await runner.idle();
  expect(runner.result(4)).toBeNull();
});

test('a version whose compile failed gets no pass', async () => {
  const { logger } = capture();
  const runner = new DeepAnalysis({ timeoutMs: 60_000, logger });
  try {
    const failed = Promise.reject(new Error('compile failed'));
    const doc = specDoc(fc.sample(specArb(LARGE), { numRuns: 1, seed: 3 })[0]);
    runner.watch(new RunningState({ version: 5, author: 't', time: 0, description: '', summary: '' }, doc, failed));
    await runner.idle();
    expect(runner.result(5)).toBeNull();
  } finally {
    await runner.close();
  }
});

test('versions made by changes (sent as deltas, tables shared): each pass equals analyze(deep) of the whole document', async () => {
  const { logger, lines } = capture();
  const runner = new DeepAnalysis({ timeoutMs: 60_000, logger });
  try {
    let doc = specDoc(fc.sample(specArb({ ...LARGE, policies: [60, 80] }), { numRuns: 1, seed: 5 })[0]);
    for (let v = 1; v <= 4; v++) {
      const state = stateOf(v, doc);
      expect((await state.compiled).compiled.image.buffer).toBeInstanceOf(SharedArrayBuffer);
      runner.watch(state);
      await runner.idle();
      expect(runner.result(v)).toEqual(analyze(doc, undefined, { deep: true }));
      // the next version: a candidate's working copy, one policy flipped and one removed
      const prev = doc;
      doc = workingCopy(prev);
      doc.policies = prev.policies.slice(1).map((p, i) => (i === v ? { ...p, action: p.action === 'allow' ? 'deny' : 'allow' } : p));
    }
    expect(lines.filter((l) => l.msg === 'deep analysis done')).toHaveLength(4);
  } finally {
    await runner.close();
  }
});

test('a version mostly new (a load) waits before its pass; a version of a few changes does not; a newer version ends the wait', async () => {
  const { logger, lines } = capture();
  // as at 5,000 policies and 1.5 s (DEFER), scaled down
  const runner = new DeepAnalysis({ timeoutMs: 60_000, logger, defer: { from: 20, ms: 400 } });
  try {
    const [a, b] = fc.sample(specArb({ ...LARGE, policies: [40, 60] }), { numRuns: 2, seed: 11 }).map(specDoc);
    runner.watch(stateOf(1, a));
    await runner.idle();
    expect(runner.passes).toMatchObject({ run: 1, waited: 1 });
    expect(runner.result(1)).toEqual(analyze(a, undefined, { deep: true }));
    // one policy changed: the others are the same objects, the pass starts at once
    const c = workingCopy(a);
    c.policies = a.policies.map((p, i) => (i === 3 ? { ...p, action: p.action === 'allow' ? 'deny' : 'allow' } : p));
    runner.watch(stateOf(2, c));
    await runner.idle();
    expect(runner.passes).toMatchObject({ run: 2, waited: 1 });
    expect(runner.result(2)).toEqual(analyze(c, undefined, { deep: true }));
    // one policy inserted at the top moves every other: still a few changes
    const d = workingCopy(c);
    d.policies = [{ ...c.policies[0], id: ++d.counters.policy }, ...c.policies];
    runner.watch(stateOf(3, d));
    await runner.idle();
    expect(runner.passes).toMatchObject({ run: 3, waited: 1 });
    // a load, then another version before its wait is over: the first pass never runs (the
    // second is new to the first one too, and waits in turn)
    runner.watch(stateOf(4, b));
    runner.watch(stateOf(5, c));
    await runner.idle();
    expect(runner.result(4)).toBeNull();
    expect(runner.result(5)).toEqual(analyze(c, undefined, { deep: true }));
    expect(lines.some((l) => l.msg === 'deep analysis cancelled by a newer version' && l.version === 4)).toBe(true);
    expect(runner.passes).toMatchObject({ run: 4, waited: 3 });
  } finally {
    await runner.close();
  }
});
