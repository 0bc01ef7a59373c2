// A whole configuration of several MB on Redis (issue 30: at 100,000 policies, ~13 MB of
// JSON, the load and the commit answered 503 ERR_SYS_4002 "Command timed out"). The store's
// commands fail after a second without an answer; a journal entry or version record that
// takes longer than that to reach Redis (a busy server, a slow link) timed out, and so did
// every small command queued behind it. Here Redis sits behind a proxy passing 1.5 MB/s, so
// the ~2.7 MB configuration takes over a second each way, whatever the machine's load: the
// load, the commit, a second instance reading the journal and the version must all answer.
import { Client, expectMessage, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { startRedis, type TestRedis } from '../helpers/redis';
import { startThrottleProxy, type ThrottleProxy } from '../helpers/throttle-proxy';
import { exportDoc } from '../../src/config/export';
import { loadable } from '../../bench/automation';
import { scaleConfig } from '../../bench/scale-config';

const POLICIES = 20_000;
const RATE = 1.5 * 1024 * 1024;

let redis: TestRedis | undefined;
let proxy: ThrottleProxy | undefined;
const daemons: TestDaemon[] = [];

afterAll(async () => {
  for (const d of daemons) await d.close();
  await proxy?.stop();
  await redis?.stop();
});

async function instance(name: string): Promise<Client> {
  const d = await startTestDaemon({
    REDIS_URL: `redis://127.0.0.1:${proxy!.port}`, FW_NODE_ID: name, FW_DATAPLANE: 'none',
    FW_ANALYSIS_TIMEOUT: '0', FW_COMMIT_TIMEOUT: '300', FW_MAX_LOAD_BODY: String(64 * 1024 * 1024),
  });
  daemons.push(d);
  return new Client(d.url).login();
}

test('a configuration of several MB loads and commits on Redis behind a slow link, and other instances read it', async () => {
  redis = await startRedis(tempDir());
  proxy = await startThrottleProxy(redis.port, RATE);
  const a = await instance('big-a');
  const b = await instance('big-b');
  const body = loadable(JSON.stringify(exportDoc(scaleConfig({ policies: POLICIES }), 0)));
  expect(body.length).toBeGreaterThan(1.5 * RATE); // more than a second through the proxy

  await a.begin();
  await ok(a.raw('PUT', '/api/config/candidate', body)); // a failure shows its error
  // the other instance catches up from the journal: the whole entry, read on its bulk lane
  const diff = await ok(b.get('/api/config/diff'));
  expect(diff.body.added.length).toBeGreaterThan(POLICIES);

  expectMessage(await a.post('/api/config/commit', { description: 'large' }), 'commit successful');
  // a new instance reads the running version whole at start-up
  const c = await instance('big-c');
  for (const x of [b, c]) {
    const status = (await ok(x.get('/api/status'))).body;
    expect(status.version).toBe(1);
  }
  const version = (await ok(c.get('/api/config/versions/1'))).body;
  expect(version.config.policies).toHaveLength(POLICIES);
}, 600_000);
