// TickBatch: what is added within one turn of the event loop goes in one call (at most 512
// items a call), in order; each item settles with its call.
import { TickBatch } from '../../src/store/redis/tick-batch';

const tick = () => new Promise((r) => setImmediate(r));

test('items of one turn go in one call, in order; a later turn makes another call', async () => {
  const calls: number[][] = [];
  const b = new TickBatch<number>(async (items) => { calls.push(items); });
  const first = [1, 2, 3].map((n) => b.add(n));
  await Promise.all(first);
  await b.add(4);
  expect(calls).toEqual([[1, 2, 3], [4]]);
});

test('a failed call rejects exactly its own items; more than 512 in a turn are split', async () => {
  const calls: number[][] = [];
  const b = new TickBatch<number>(async (items) => {
    calls.push(items);
    if (items[0] === 0) throw new Error('store down');
  });
  const outcomes = await Promise.allSettled(Array.from({ length: 600 }, (_, i) => b.add(i)));
  expect(calls.map((c) => c.length)).toEqual([512, 88]);
  expect(outcomes.slice(0, 512).every((o) => o.status === 'rejected')).toBe(true);
  expect(outcomes.slice(512).every((o) => o.status === 'fulfilled')).toBe(true);
  await tick();
});
