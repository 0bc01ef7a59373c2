// A Redis command times out when Redis does not answer within its timeout, not when the
// answer is already waiting in the socket. ioredis rejects a command from a timer, and Node
// runs due timers before it reads the sockets: a main thread busy for longer than the timeout
// (a big configuration applied or compiled, another daemon in the same process as in the
// tests) made every command in flight fail with "Command timed out" although Redis had
// answered at once: 503 ERR_SYS_4002 for requests that had done nothing wrong (a load on
// Redis failed in CI this way).
import type Redis from 'ioredis';
import { connect, COMMAND_TIMEOUT_MS, failFastOptions } from '../../src/store/redis/connection';
import { startRedis, type TestRedis } from '../helpers/redis';
import { tempDir } from '../helpers/daemon';

let redis: TestRedis;
const conns: Redis[] = [];

beforeAll(async () => {
  redis = await startRedis(tempDir());
});
afterAll(async () => {
  for (const c of conns) c.disconnect();
  await redis?.stop();
});

async function connection(): Promise<Redis> {
  const c = connect(failFastOptions({ url: redis.url }));
  conns.push(c);
  await c.connect();
  return c;
}

const settled = (p: Promise<unknown>) => p.then((v) => ({ answer: v }), (e: Error) => ({ error: e.message }));

/** Keeps the main thread busy for `ms` (no timer, no socket read meanwhile). */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) { /* the thread is taken */ }
}

test('a command answered while the main thread was busy past the timeout gets its answer', async () => {
  const c = await connection();
  const pending = [settled(c.ping()), settled(c.set('k', 'v')), settled(c.get('k'))];
  busy(COMMAND_TIMEOUT_MS + 500);
  expect(await Promise.all(pending)).toEqual([{ answer: 'PONG' }, { answer: 'OK' }, { answer: 'v' }]);
});

/** Redis answers no client for `ms` from now (CLIENT PAUSE); resolves when it answers again. */
async function silence(ms: number): Promise<() => Promise<void>> {
  const admin = await connection();
  await admin.call('CLIENT', 'PAUSE', String(ms), 'ALL');
  const ends = Date.now() + ms;
  return () => new Promise((resolve) => setTimeout(resolve, Math.max(0, ends - Date.now()) + 50));
}

test('a command Redis does not answer still fails after the timeout', async () => {
  const c = await connection();
  const over = await silence(COMMAND_TIMEOUT_MS + 500);
  const started = Date.now();
  expect(await settled(c.ping())).toEqual({ error: 'Command timed out' });
  const waited = Date.now() - started;
  expect(waited).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 5);
  expect(waited).toBeLessThan(COMMAND_TIMEOUT_MS + 500);
  await over();
});

test('a busy thread does not hide a silent server: the command fails once the thread is free', async () => {
  const c = await connection();
  const over = await silence(COMMAND_TIMEOUT_MS + 1000);
  const pending = settled(c.ping());
  busy(COMMAND_TIMEOUT_MS + 200);
  expect(await pending).toEqual({ error: 'Command timed out' });
  await over();
});
