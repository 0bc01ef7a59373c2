// External lists in a cluster (issue 40): one instance fetches a list (the lease of the
// cluster's shared work, held for a refresh period) and publishes it; every instance enforces
// and evaluates the same prefixes, and follows a change without a commit. The list server of
// the test counts its requests: three instances fetching each on their own would triple them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ok } from '../helpers/daemon';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';
import { lanWan } from '../helpers/lan-wan';

let cluster: TestCluster | undefined;
let body = '198.51.100.7\n198.51.100.0/30\n';
let requests = 0;
const server = http.createServer((_req, res) => {
  requests++;
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(body);
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await cluster?.close();
  server.closeAllConnections();
  server.close();
});

test('one instance fetches, every instance enforces the same list and follows its change', async () => {
  cluster = await startCluster(3, { FW_ANALYSIS_TIMEOUT: '0', FW_LIST_REFRESH_MIN: '1' });
  const [a] = cluster.clients;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/list.txt`;
  await a.begin();
  await lanWan(a);
  await ok(a.post('/api/addresses', { name: 'blocklist', url, refresh: 2 }));
  await ok(a.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'blocklist' }));
  await ok(a.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await a.commit();
  const views = async () => Promise.all(cluster!.clients.map(async (c) => (await ok(c.get('/api/addresses/blocklist'))).body));
  expect(await eventually(async () => (await views()).every((v) => v.entries === 2), 20_000)).toBe(true);
  // the same fetch everywhere
  expect(new Set((await views()).map((v) => v.fetchedAt)).size).toBe(1);
  // over 6 s of a 2 s refresh: about 3 fetches by the one instance (3 instances on their own: about 9)
  const before = requests;
  await new Promise((r) => setTimeout(r, 6000));
  expect(requests - before).toBeGreaterThanOrEqual(1);
  expect(requests - before).toBeLessThanOrEqual(5);
  // a change reaches every instance's eval without a commit
  const evals = async (dst: string) => Promise.all(cluster!.clients.map(async (c) => (await ok(c.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': dst, protocol: 'tcp', 'dst-port': 443 }))).body));
  const version = (await evals('198.51.100.7'))[0].version;
  body = '198.51.100.9\n';
  expect(await eventually(async () => (await evals('198.51.100.9')).every((e) => e.action === 'deny'), 20_000)).toBe(true);
  for (const e of await evals('198.51.100.9')) expect(e).toMatchObject({ version, lists: [{ list: 'blocklist', entry: '198.51.100.9/32' }] });
  for (const e of await evals('198.51.100.7')) expect(e.action).toBe('allow');
}, 120_000);
