// Automation in a cluster: a load sent to one instance and a batch to another are journal
// entries every instance replays (the commit job too, wherever it runs), and an
// Idempotency-Key's answer is honoured by every instance.
import { Client, expectMessage } from '../helpers/daemon';
import { startCluster, type TestCluster } from '../helpers/cluster';

let cluster: TestCluster;
let a: Client, b: Client, c: Client;

beforeAll(async () => {
  cluster = await startCluster(3);
  [a, b, c] = cluster.clients;
});
afterAll(async () => {
  await cluster?.close();
});

/** A request with an Idempotency-Key sent to instance `x` with `as`'s credential (a key is the
 * credential's own: a client retrying through the load balancer sends its one token anywhere). */
const keyed = (x: Client, method: string, path: string, key: string, body?: unknown, as: Client = x) =>
  x.raw(method, path, body === undefined ? undefined : JSON.stringify(body), { 'Idempotency-Key': key, Authorization: `Bearer ${as.token}` });

test('load on one instance, batch on another, commit on a third with a key: every instance agrees, a retry anywhere is replayed', async () => {
  expectMessage(await a.post('/api/config/begin'), 'config session started');
  const load = await b.put('/api/config/candidate?mode=merge', {
    zones: [{ name: 'lan', type: 'l3' }],
    addresses: [{ name: 'web', ips: ['10.0.0.10'] }],
    policies: [{ id: 40, action: 'allow', 'src-zone': 'lan', 'dst-addr': 'web' }],
  });
  expect(load.status).toBe(200);
  expect(load.body.added).toEqual([{ kind: 'address', key: 'web' }, { kind: 'zone', key: 'lan' }, { kind: 'policy', key: '40' }]);
  const batch = await c.post('/api/config/batch', { operations: [
    { method: 'POST', path: '/api/policies', body: { action: 'deny' } },
    { method: 'POST', path: '/api/policies/41/move', body: { position: 'top' } },
  ] });
  expect(batch.body.results).toEqual([{ message: 'policy created in candidate', id: '41' }, { message: 'policy moved successfully' }]);
  const expected = (await a.get('/api/config/export?config=candidate')).body;
  expect(expected.policies.map((p: { id: number }) => p.id)).toEqual([41, 40]);
  for (const x of [b, c]) expect((await x.get('/api/config/export?config=candidate')).body).toEqual(expected);

  const commit = await keyed(b, 'POST', '/api/config/commit', 'cluster-commit', { description: 'keyed' });
  expectMessage(commit, 'commit successful');
  for (const x of [a, c]) {
    const retry = await keyed(x, 'POST', '/api/config/commit', 'cluster-commit', { description: 'keyed' }, b);
    expect({ status: retry.status, body: retry.body, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ status: 200, body: commit.body, replayed: 'true' });
    expect((await x.get('/api/config/export')).body).toEqual({ ...expected, version: Number(commit.body.version) });
  }
  expect((await a.get('/api/config/versions')).body.filter((v: { description: string }) => v.description === 'keyed')).toHaveLength(1);
  // another request with the key, on yet another instance
  expect((await keyed(c, 'POST', '/api/config/commit', 'cluster-commit', { description: 'other' }, b)).status).toBe(422);
});
