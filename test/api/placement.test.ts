// Placement at creation over HTTP: a policy or NAT rule created with `position` and
// `reference_id` lands where a move would put it; without them it goes to the bottom and the
// answer is the seed's; refused placements change nothing and hand out no id. (A new rule
// always landed at the bottom, below a deny-all; issue 29.)
import { expectError, ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();
const c = d.client;

beforeAll(async () => {
  await c.begin();
  await ok(c.post('/api/addresses', { name: 'web', ips: ['10.0.0.10'] }));
});

const order = async (path: string) => (await ok(c.get(`${path}?config=candidate`))).body.map((r: { id: number }) => r.id);

test.each([
  ['/api/policies', { action: 'allow', 'dst-addr': 'web' }, 'policy created in candidate'],
  ['/api/nat', { type: 'snat', 'src-addr': 'web' }, 'NAT rule added in candidate'],
])('%s: created at the top, before and after a rule, at the bottom by default', async (path, body, message) => {
  const first = await ok(c.post(path, body));
  expect(first.body).toEqual({ message, id: expect.any(String) }); // the seed's answer, unchanged
  const a = Number(first.body.id);
  const b = Number((await ok(c.post(path, body))).body.id);
  expect(await order(path)).toEqual([a, b]);
  const top = Number((await ok(c.post(path, { ...body, position: 'top' }))).body.id);
  expect(await order(path)).toEqual([top, a, b]);
  const before = Number((await ok(c.post(path, { ...body, position: 'before', reference_id: b }))).body.id);
  expect(await order(path)).toEqual([top, a, before, b]);
  const after = Number((await ok(c.post(path, { ...body, position: 'after', reference_id: top }))).body.id);
  expect(await order(path)).toEqual([top, after, a, before, b]);
  const bottom = Number((await ok(c.post(path, { ...body, position: 'bottom', reference_id: 999 }))).body.id); // ignored, as in a move
  expect(await order(path)).toEqual([top, after, a, before, b, bottom]);

  const was = await order(path);
  expectError(await c.post(path, { ...body, position: 'middle' }), 400, 'ERR_NET_1005');
  expect(expectError(await c.post(path, { ...body, position: 'after' }), 400, 'ERR_NET_1004').body.details).toMatch(/reference_id/);
  expect(expectError(await c.post(path, { ...body, position: 'before', reference_id: 999 }), 400, 'ERR_NET_2003').body.details).toMatch(/999 does not exist/);
  expect(expectError(await c.post(path, { ...body, reference_id: a }), 400, 'ERR_NET_1004').body.details).toMatch(/position/);
  expectError(await c.post(path, { ...body, position: 1 }), 400, 'ERR_NET_1004');
  expectError(await c.post(path, { ...body, position: 'top', reference_id: 'x' }), 400, 'ERR_NET_1004');
  expect(await order(path)).toEqual(was);
  // the refusals handed out no id
  expect(Number((await ok(c.post(path, body))).body.id)).toBe(bottom + 1);
});

test('a placed create in a batch, and the diff shows where it lands', async () => {
  const ids = await order('/api/policies');
  const r = await ok(c.post('/api/config/batch', { operations: [{ method: 'POST', path: '/api/policies', body: { action: 'deny', position: 'before', reference_id: ids[1] } }] }));
  const id = Number(r.body.results[0].id);
  expect((await order('/api/policies')).indexOf(id)).toBe(1);
  await c.commit();
  await c.begin();
  const doc = (await ok(c.get('/api/config/export'))).body;
  doc.policies.splice(0, 0, { action: 'allow', 'src-addr': 'web' });
  const plan = (await ok(c.post('/api/config/plan', doc))).body;
  expect(plan.added).toEqual([{ kind: 'policy', key: expect.any(String), position: 1 }]);
});
