// FW_REDIS_MIN_REPLICAS without sentinels: one primary (REDIS_URL), one replica. With the
// replica gone, a commit, a change, a user write and a logout answer 503 ERR_SYS_4006 saying
// how many replicas confirmed; what was made on the primary is kept (the commit is the
// running version, the change is in the candidate) and is not applied twice; with the replica
// back everything is acknowledged again.
import { Client, expectError, expectMessage, tempDir } from '../helpers/daemon';
import { startChild, kill9, type Child } from '../helpers/process';
import { startRedis, type TestRedis } from '../helpers/redis';
import Redis from 'ioredis';
import { until } from '../helpers/sentinel';

/** Resolves once the replica on `port` has finished its sync with the primary. */
async function synced(port: number): Promise<void> {
  const r = new Redis({ port, host: '127.0.0.1' });
  try {
    await until(async () => /master_link_status:up/.test(await r.info('replication')), 15_000, 'the replica did not sync');
  } finally {
    r.disconnect();
  }
}

let primary: TestRedis | undefined;
let replica: TestRedis | undefined;
let node: Child | undefined;

afterAll(async () => {
  if (node && node.proc.exitCode === null && node.proc.signalCode === null) await kill9(node);
  await replica?.kill().catch(() => undefined);
  await primary?.stop();
});

test('no replica: acknowledged writes become 503 ERR_SYS_4006, kept on the primary, never applied twice', async () => {
  const dir = tempDir('fwd-replicas-');
  primary = await startRedis(`${dir}/primary`);
  const follow = ['--replicaof', '127.0.0.1', String(primary.port)];
  replica = await startRedis(`${dir}/replica`, follow);
  await synced(replica.port); // the first start writes the admin account: it waits for a replica too
  node = await startChild({ REDIS_URL: primary.url, FW_REDIS_MIN_REPLICAS: '1', FW_DATA_DIR: dir, FW_CLUSTER_NAME: `r${process.pid}`, FW_ANALYSIS_TIMEOUT: '0' });
  const c = await new Client(node.url).login();
  await c.begin();
  expect((await c.post('/api/addresses', { name: 'lan', ips: ['10.1.0.0/16'] })).status).toBe(200);

  await replica.kill();
  const commit = expectError(await c.post('/api/config/commit', { description: 'unconfirmed' }), 503, 'ERR_SYS_4006');
  expect(commit.body.details).toMatch(/^0 of the 1 replicas required \(FW_REDIS_MIN_REPLICAS=1\) confirmed the write/);
  // made on the primary: the running version, once
  expect((await c.get('/api/status')).body.version).toBe(1);
  expect((await c.get('/api/config/versions')).body.map((v: { version: number }) => v.version)).toEqual([0, 1]);
  expectError(await c.post('/api/config/commit', { description: 'unconfirmed' }), 409, 'ERR_SYS_3001');

  expectError(await c.post('/api/config/begin'), 503, 'ERR_SYS_4006'); // unconfirmed, but made
  expect((await c.get('/api/config/session')).body.active).toBe(true);
  expectError(await c.post('/api/addresses', { name: 'dmz', ips: ['10.2.0.0/16'] }), 503, 'ERR_SYS_4006');
  expect(Object.keys((await c.get('/api/addresses?config=candidate')).body)).toContain('dmz');
  expectError(await c.post('/api/users', { username: 'ops', password: 'a-long-password-1' }), 503, 'ERR_SYS_4006');
  expect((await c.get('/api/users')).body.map((u: { username: string }) => u.username)).toContain('ops');

  await replica.restart(follow);
  let n = 0; // a fresh name each time: an attempt answered 4006 was made
  await until(async () => (await c.post('/api/addresses', { name: `wan${n++}`, ips: [`10.3.${n}.0/24`] })).status === 200, 15_000, 'writes were not acknowledged with the replica back');
  const names = Object.keys((await c.get('/api/addresses?config=candidate')).body);
  expect(names.filter((n) => n === 'dmz')).toEqual(['dmz']);
  expectMessage(await c.post('/api/config/commit', { description: 'confirmed' }), 'commit successful');
  expect((await c.get('/api/status')).body.version).toBe(2);
});
