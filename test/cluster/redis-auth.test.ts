// A Redis that requires a password: REDIS_URL names the server, REDIS_PASSWORD the password
// (kept out of the URL). Store, pub/sub, commit queue and worker all authenticate; the
// password never appears in the logs.
import { Client, expectMessage, tempDir } from '../helpers/daemon';
import { startChild, kill9, type Child } from '../helpers/process';
import { startRedis, type TestRedis } from '../helpers/redis';

const PASSWORD = `pw-${process.pid}-secret`;
let redis: TestRedis | undefined;
let node: Child | undefined;

afterAll(async () => {
  if (node && node.proc.exitCode === null && node.proc.signalCode === null) await kill9(node);
  await redis?.stop();
});

test('REDIS_PASSWORD: every connection authenticates, a commit goes through the queue, the password is not logged', async () => {
  const dir = tempDir('fwd-redis-auth-');
  redis = await startRedis(`${dir}/redis`, ['--requirepass', PASSWORD]);
  node = await startChild({ REDIS_URL: redis.url, REDIS_PASSWORD: PASSWORD, FW_DATA_DIR: dir, FW_CLUSTER_NAME: `a${process.pid}`, FW_ANALYSIS_TIMEOUT: '0' });
  const c = await new Client(node.url).login();
  await c.begin();
  expect((await c.post('/api/addresses', { name: 'lan', ips: ['10.1.0.0/16'] })).status).toBe(200);
  const commit = await c.post('/api/config/commit', { description: 'through an authenticated queue' });
  expectMessage(commit, 'commit successful');
  expect(Object.keys((await c.get('/api/addresses')).body)).toContain('lan');
  expect(node.stdout()).toMatch(/"redis":"redis:\/\/127\.0\.0\.1:\d+"/);
  expect(node.stdout()).not.toContain(PASSWORD);
});
