// GET /api/analysis over HTTP: the commit's quick result and the deep pass that follows it
// (shadowed policies with minimal covers, a partial shadow with an example packet that
// POST /api/eval confirms, a NAT rule that can never match), a newer commit's pass, and a
// daemon whose deep pass is turned off (FW_ANALYSIS_TIMEOUT=0).
import { expectMessage, ok, startTestDaemon, Client, useDaemon } from '../helpers/daemon';
import { deepResult } from '../helpers/eval-checks';
import { lanWan } from '../helpers/lan-wan';

const used = useDaemon();
const c = used.client;

beforeAll(async () => {
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/addresses', { name: 'a', ips: ['198.51.100.0/25'] }));
  await ok(c.post('/api/addresses', { name: 'b', ips: ['198.51.100.128/25'] }));
  await ok(c.post('/api/addresses', { name: 'ab', ips: ['198.51.100.0/24'] }));
  await ok(c.post('/api/addresses', { name: 'host', ips: ['10.0.0.7/32'] }));
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
  // 1 denies https to a; 2 allows everything to b; 3 (https to a and b) is taken by both: shadowed
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'a', services: ['https'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'b' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'ab', services: ['https'] }));
  // 4 still matches most of its packets, but 1 denies https to a: a partial shadow
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  // NAT 2 lies inside NAT 1: it can never match
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'translated-ip': '203.0.113.2' }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'src-addr': 'host', 'translated-ip': '203.0.113.3' }));
  const r = expectMessage(await c.post('/api/config/commit'), 'commit successful');
  expect(r.body.warnings).toMatch(/policy 3 is shadowed by policies 1, 2/);
});

test('the deep pass: covers, a partial shadow with a packet /api/eval confirms, a NAT rule that never matches', async () => {
  const r = await deepResult(c, 1);
  expect(r.body).toEqual({
    version: 1,
    pass: 'deep',
    complete: true,
    shadowed: [{ id: 3, coveredBy: [1, 2] }],
    redundant: [],
    undecided: [],
    partiallyShadowed: [{ id: 4, by: 1, example: expect.any(Object) }],
    unreachableNat: [{ id: 2, coveredBy: [1] }],
    unusedAddresses: [],
    unusedServices: [],
    neverHit: null, // no kernel counters with FW_DATAPLANE=none (docs/dataplane.md)
  });
  const example = r.body.partiallyShadowed[0].example;
  expect(example).toMatchObject({ protocol: 'tcp', 'dst-port': 443, 'src-zone': 'lan', 'dst-zone': 'wan' });
  expect(example['dst-ip']).toMatch(/^198\.51\.100\./);
  const e = await c.post('/api/eval', example);
  expect(e.status).toBe(200);
  expect(e.body).toMatchObject({ action: 'deny', reason: 'policy', policy: { id: 1, action: 'deny' } });
});

test('?config=candidate answers with the quick pass, never complete', async () => {
  await c.begin();
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'a' }));
  const r = await c.get('/api/analysis?config=candidate');
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ version: 1, pass: 'quick', complete: false, undecided: [], partiallyShadowed: [], unreachableNat: [] });
  // the quick pass decides covers: 5 lies inside 4, and 1 denies part of it; the cover names
  // the policy of the other action with a minimal set around it
  expect(r.body.shadowed).toEqual([{ id: 3, coveredBy: [1, 2] }, { id: 5, coveredBy: [1, 4] }]);
  await ok(c.post('/api/config/discard'));
});

test('a newer commit gets its own deep pass', async () => {
  await c.begin();
  await ok(c.del('/api/policies/2'));
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  const r = await deepResult(c, 2);
  // without 2, policy 3 keeps the https packets to b: only partly shadowed by 1, like 4
  expect(r.body).toMatchObject({ complete: true, shadowed: [], redundant: [], undecided: [] });
  expect(r.body.partiallyShadowed.map((p: { id: number; by: number }) => [p.id, p.by])).toEqual([[3, 1], [4, 1]]);
});

test('FW_ANALYSIS_TIMEOUT=0: no deep pass, the quick result stays', async () => {
  const d = await startTestDaemon({ FW_ANALYSIS_TIMEOUT: '0' });
  try {
    const client = await new Client(d.url).login();
    const r = await client.get('/api/analysis');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: 0, pass: 'quick', complete: false });
  } finally {
    await d.close();
  }
});
