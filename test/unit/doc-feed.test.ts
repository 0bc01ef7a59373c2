// The document feed of the worker threads (src/workers/doc-feed.ts), with the thread's side
// (HeldDocs) run in this thread: a document goes whole the first time, then as the changes
// from one the thread holds; a thread that does not hold the base (ended when idle, or another
// thread) answers NO_BASE and gets it whole; whatever way it travelled, the thread's document
// is the sender's.
import fc from 'fast-check';
import { serializeDoc, workingCopy } from '../../src/config/document';
import type { ConfigDoc } from '../../src/config/types';
import { DocFeed, HeldDocs, NO_BASE, noBaseReply, type DocTask } from '../../src/workers/doc-feed';
import { LARGE, specArb, specDoc } from '../eval/helpers';

/** A thread: its held documents, and what it was sent. */
function thread(max: number) {
  let held = new HeldDocs(max);
  const kinds: string[] = [];
  let last: ConfigDoc | null = null;
  const run = (task: DocTask) => {
    // a message between threads is a structured clone
    const got = held.take(structuredClone(task));
    kinds.push('doc' in task ? 'whole' : got ? 'delta' : 'no-base');
    last = got;
    return Promise.resolve(got ? { ok: true as const } : noBaseReply);
  };
  return { run, kinds, doc: () => last, restart: () => (held = new HeldDocs(max)) };
}

/** The document with one policy's action flipped and the last one removed, as a candidate shares the rest. */
function changed(prev: ConfigDoc, k: number): ConfigDoc {
  const doc = workingCopy(prev);
  doc.policies = prev.policies.slice(0, -1).map((p, i) => (i === k % Math.max(1, prev.policies.length - 1) ? { ...p, action: p.action === 'allow' ? 'deny' : 'allow' } : p));
  return doc;
}

test('whole first, then deltas on the last document; the thread holds the sender\'s document', async () => {
  const [spec] = fc.sample(specArb(LARGE), { numRuns: 1, seed: 11 });
  const feed = new DocFeed();
  const t = thread(1);
  let doc = specDoc(spec);
  await feed.send(doc, undefined, t.run);
  for (let k = 0; k < 4; k++) {
    const prev = doc;
    doc = changed(prev, k);
    await feed.send(doc, prev, t.run);
    expect(serializeDoc(t.doc()!)).toEqual(serializeDoc(doc));
  }
  expect(t.kinds).toEqual(['whole', 'delta', 'delta', 'delta', 'delta']);
});

test('a thread that lost its documents answers NO_BASE and is sent the document whole', async () => {
  const [spec] = fc.sample(specArb(LARGE), { numRuns: 1, seed: 12 });
  const feed = new DocFeed();
  const t = thread(1);
  const a = specDoc(spec);
  await feed.send(a, undefined, t.run);
  t.restart(); // the thread was ended when idle: a new one holds nothing
  const b = changed(a, 3);
  const reply = await feed.send(b, a, t.run);
  expect(reply).toEqual({ ok: true });
  expect(t.kinds).toEqual(['whole', 'no-base', 'whole']);
  expect(serializeDoc(t.doc()!)).toEqual(serializeDoc(b));
  // a base never sent goes whole at once
  const c = changed(b, 5);
  await feed.send(c, changed(a, 1), t.run);
  expect(t.kinds.at(-1)).toBe('whole');
  expect(NO_BASE).toBe(noBaseReply.code);
});
