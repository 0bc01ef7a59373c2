// Committed versions stored as deltas with a keyframe every KEYFRAME_EVERY (issue 30), over
// HTTP on both stores: after many commits of every kind of change, each version, each
// comparison of two versions and each rollback answers exactly what it answered when the
// version was the running one in memory, also after a restart, when every read rebuilds the
// version from the store's keyframe and deltas.
import { KEYFRAME_EVERY } from '../../src/store/version-deltas';
import { Client, expectMessage, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';

let t: TestDaemon | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(dir: string): Promise<Client> {
  t = await startTestDaemon({ FW_VERSIONS_KEEP: '0' }, dir);
  return new Client(t.url).login();
}

/** The change of commit i: addresses added, changed, deleted; policies added, changed, moved. */
async function change(c: Client, i: number): Promise<void> {
  switch (i % 5) {
    case 0:
      await ok(c.post('/api/addresses', { name: `h${i}`, ips: [`10.0.${i}.1`] }));
      await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': `h${i}` }));
      break;
    case 1:
      await ok(c.put(`/api/addresses/h${i - 1}`, { ips: [`10.1.${i}.0/24`] }));
      break;
    case 2:
      await ok(c.post('/api/policies', { action: 'deny', log: true }));
      break;
    case 3:
      await ok(c.post(`/api/policies/${(await ok(c.get('/api/policies'))).body[0].id}/move`, { position: 'bottom' }));
      break;
    default:
      await ok(c.post('/api/addresses', { name: `tmp${i}`, ips: ['192.168.0.1'] }));
      if (i > 5) await ok(c.req('DELETE', `/api/addresses/tmp${i - 5}`));
  }
}

test('every version, comparison and rollback answers the same after many delta commits, also rebuilt from the store after a restart', async () => {
  const dir = tempDir();
  let c = await start(dir);
  const commits = KEYFRAME_EVERY + 6; // past a keyframe
  const answers = new Map<number, string>();
  for (let i = 0; i < commits; i++) {
    await c.begin();
    await change(c, i);
    expectMessage(await c.post('/api/config/commit', { description: `commit ${i}` }), 'commit successful');
    const v = (await ok(c.get('/api/status'))).body.version as number;
    answers.set(v, (await ok(c.get(`/api/config/versions/${v}`))).text); // the running version, from memory
  }
  const versions = [...answers.keys()];
  const pairs = versions.slice(1).map((v, i) => [versions[i], v]).concat([[versions[0], versions[versions.length - 1]]]);
  const diffs = new Map<string, string>();
  for (const [a, b] of pairs) diffs.set(`${a}-${b}`, (await ok(c.get(`/api/config/diff?from=${a}&to=${b}`))).text);

  await t!.close();
  c = await start(dir); // every version is read from the store now: a keyframe and deltas
  for (const [v, text] of answers) expect((await ok(c.get(`/api/config/versions/${v}`))).text).toBe(text);
  for (const [a, b] of pairs) expect((await ok(c.get(`/api/config/diff?from=${a}&to=${b}`))).text).toBe(diffs.get(`${a}-${b}`));
  // a rollback loads exactly the version: committed, it is the same document
  for (const v of [versions[3], versions[KEYFRAME_EVERY]]) {
    await c.begin();
    expectMessage(await c.post('/api/config/rollback', { version: v }), `version ${v} loaded into candidate`);
    const config = JSON.parse(answers.get(v)!).config;
    expectMessage(await c.post('/api/config/commit', { description: `back to ${v}` }), 'commit successful');
    const now = (await ok(c.get('/api/status'))).body.version as number;
    const back = JSON.parse((await ok(c.get(`/api/config/versions/${now}`))).text).config;
    expect({ ...back, counters: null }).toEqual({ ...config, counters: null }); // ids are never reused: the counters stay
  }
});
