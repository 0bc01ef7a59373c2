// A daemon on Redis whose main thread is busy for longer than the store's one-second command
// timeout (a big configuration applied or compiled; here, as in the tests, another piece of
// work in the same process) answers the requests that were waiting on Redis meanwhile: Redis
// answered them at once, so none may fail with 503 "Command timed out" (the reproduction of a
// CI failure: a 20,000-policy load answered 503 while a second in-process daemon applied it).
import { Client, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { startRedis, type TestRedis } from '../helpers/redis';
import Redis from 'ioredis';
import { COMMAND_TIMEOUT_MS } from '../../src/store/redis/connection';

let redis: TestRedis | undefined;
let daemon: TestDaemon | undefined;

afterAll(async () => {
  await daemon?.close();
  await redis?.stop();
});

test('requests waiting on Redis while the main thread is busy past the timeout get their answers', async () => {
  redis = await startRedis(tempDir());
  daemon = await startTestDaemon({ REDIS_URL: redis.url, FW_NODE_ID: 'busy', FW_DATAPLANE: 'none' });
  const client = await new Client(daemon.url).login();
  const admin = new Redis(redis.port, '127.0.0.1');
  try {
    // Redis holds every command for a second: the requests' reads are sent, then answered
    // while the thread is taken, and their timeouts fall due while it is still taken
    await admin.call('CLIENT', 'PAUSE', String(COMMAND_TIMEOUT_MS), 'ALL');
    const requests = Array.from({ length: 10 }, () => client.get('/api/config/versions'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // from the loop's check phase, as work that a socket read started: the next turn of the
    // loop runs its due timers before it reads the sockets (from a timer callback it would not)
    await new Promise((resolve) => setImmediate(resolve));
    const until = Date.now() + COMMAND_TIMEOUT_MS + 300;
    while (Date.now() < until) { /* the thread is taken; Redis answers meanwhile */ }
    const answers = await Promise.all(requests.map(ok)); // each 200, or the error it got
    expect(answers.map((a) => a.body[0].version)).toEqual(answers.map(() => 0));
  } finally {
    admin.disconnect();
  }
}, 60_000);
