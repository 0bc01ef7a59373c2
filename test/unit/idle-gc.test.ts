// The idle collector (src/idle-gc.ts): V8's full collection once a thread has been
// quiet for the delay after big work, without node's --expose-gc (jest runs without it).
// Garbage is seen through a WeakRef: its target goes only when a full collection runs.
import { IdleCollector } from '../../src/idle-gc';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A WeakRef to a big object nothing else holds (made in a function of its own, so no local keeps it). */
function garbage(): WeakRef<object> {
  return new WeakRef({ rows: Array.from({ length: 50_000 }, (_, i) => ({ i, text: `row ${i}` })) });
}

test('a touch collects once the delay has passed; work in between defers it', async () => {
  const idle = new IdleCollector(50);
  const ref = garbage();
  idle.touch();
  idle.busy(); // more work came: nothing yet
  await sleep(120);
  expect(idle.count).toBe(0);
  idle.touch();
  idle.touch(); // a burst is collected once, after it
  for (let waited = 0; idle.count === 0 && waited < 10_000; waited += 20) await sleep(20);
  await sleep(100);
  expect(idle.count).toBe(1);
  expect(ref.deref()).toBeUndefined();
});
