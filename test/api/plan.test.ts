// POST /api/config/plan over HTTP: a document compared with the running configuration without
// a session (read-only, not audited as a change, usable while someone else holds the session),
// field by field, moves with their positions and neighbours, and rules written without ids
// matched to the running ones by content instead of being planned as delete and re-create.
import YAML from 'yaml';
import { Client, expectError, ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();
const c = d.client;
let running: any; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  await c.begin();
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3' }));
  await ok(c.post('/api/addresses', { name: 'web', ips: ['10.0.0.10'] }));
  await ok(c.post('/api/addresses', { name: 'db', ips: ['10.0.0.20'] }));
  for (let i = 1; i <= 5; i++) await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': i % 2 ? 'web' : 'db', 'src-zone': 'lan', log: i === 1 }));
  await ok(c.post('/api/policies', { action: 'deny' }));
  await c.commit();
  running = (await ok(c.get('/api/config/export'))).body;
});

const plan = (doc: unknown, query = '') => c.post(`/api/config/plan${query}`, doc);
const copy = () => structuredClone(running);

test('the running document plans as no change, in JSON and in YAML, with no session begun and nothing audited', async () => {
  const auditBefore = (await ok(c.get('/api/audit?limit=1000'))).body.entries.length;
  const r = await ok(plan(running));
  expect(r.body).toEqual({ base_version: running.version, added: [], changed: [], deleted: [], reordered: [], moved: [] });
  const y = await ok(c.raw('POST', '/api/config/plan', YAML.stringify(running), { 'Content-Type': 'application/yaml' }));
  expect(y.body.changed).toEqual([]);
  expect((await ok(c.get('/api/config/session'))).body.active).toBe(false);
  expect((await ok(c.get('/api/audit?limit=1000'))).body.entries.length).toBe(auditBefore);
});

test('changed objects come with their fields, old and new; added rules with where they land', async () => {
  const doc = copy();
  doc.addresses.find((a: { name: string }) => a.name === 'db').ips = ['10.0.0.21/32'];
  doc.policies[0]['dst-addr'] = 'db';
  doc.policies[0].log = false;
  doc.policies.splice(1, 0, { action: 'deny', 'src-zone': 'lan' });
  const r = await ok(plan(doc));
  expect(r.body.changed).toEqual([
    { kind: 'address', key: 'db', fields: [{ field: 'ips', old: ['10.0.0.20/32'], new: ['10.0.0.21/32'] }] },
    { kind: 'policy', key: String(doc.policies[0].id), position: 1, fields: [{ field: 'dst-addr', old: 'web', new: 'db' }, { field: 'log', old: true, new: false }] },
  ]);
  expect(r.body.added).toEqual([{ kind: 'policy', key: String(running.policies.length + 1), position: 2 }]);
  expect(r.body.moved).toEqual([]); // an insertion moves no rule
  // nothing was stored
  expect((await ok(c.get('/api/config/export'))).body).toEqual(running);
});

test('the catch-all moved to the top is one move, with its old and new positions and neighbours', async () => {
  const doc = copy();
  const ids = running.policies.map((p: { id: number }) => String(p.id));
  doc.policies.unshift(doc.policies.pop());
  const r = await ok(plan(doc));
  expect(r.body.reordered).toEqual(['policies']);
  expect(r.body.moved).toEqual([{
    kind: 'policy', key: ids[5], from: 6, to: 1,
    old_neighbours: { above: ids[4], below: null }, new_neighbours: { above: null, below: ids[0] },
  }]);
});

test('rules written without ids are matched to the running rules of the same content: no change, then one real change', async () => {
  const doc = copy();
  for (const p of doc.policies) delete p.id;
  expect((await ok(plan(doc))).body).toEqual(expect.objectContaining({ added: [], changed: [], deleted: [], moved: [] }));
  doc.policies.splice(3, 1); // one rule dropped: exactly that rule is deleted
  const r = await ok(plan(doc));
  expect(r.body).toEqual(expect.objectContaining({ added: [], deleted: [{ kind: 'policy', key: String(running.policies[3].id), position: 4 }], moved: [] }));
  // the load of PUT /api/config/candidate matches the same way, so apply does what plan said
  await c.begin();
  const loaded = await ok(c.put('/api/config/candidate', doc));
  expect(loaded.body.deleted).toEqual(r.body.deleted.map(({ position, ...item }: { position: number }) => item)); // the plain diff: no positions
  expect(loaded.body.added).toEqual([]);
  await ok(c.post('/api/config/discard'));
});

test('a viewer may plan while another user holds the session; that session is untouched', async () => {
  await ok(c.post('/api/users', { username: 'plan-viewer', password: 'viewer-password-123', role: 'viewer' }));
  const viewer = await new Client(d.url).login('plan-viewer', 'viewer-password-123');
  await c.begin();
  await ok(c.post('/api/addresses', { name: 'pending', ips: ['10.9.9.9'] }));
  const doc = copy();
  doc.addresses.push({ name: 'new', ips: ['10.1.1.1'] });
  const r = await ok(viewer.post('/api/config/plan?mode=merge', doc));
  expect(r.body.added).toEqual([{ kind: 'address', key: 'new' }]); // against running, not the candidate
  const session = (await ok(c.get('/api/config/session'))).body;
  expect({ owner: session.owner, changes: session.changes }).toEqual({ owner: 'admin', changes: 1 });
  await ok(c.post('/api/config/discard'));
});

test('a bad document: 400 with every problem placed; a bad mode: 400 ERR_NET_1005; no token: 401', async () => {
  const doc = copy();
  doc.policies.push({ action: 'deny', 'dst-addr': 'nowhere' });
  const r = expectError(await plan(doc), 400, 'ERR_NET_2003');
  expect(r.body.details).toMatch(/^policies\[6\]\.dst-addr: .*nowhere/);
  expectError(await plan(running, '?mode=sideways'), 400, 'ERR_NET_1005');
  expectError(await c.raw('POST', '/api/config/plan', 'not json'), 400, 'ERR_NET_1004');
  expectError(await new Client(d.url).post('/api/config/plan', running), 401, 'ERR_SEC_5001');
});

test('YAML loads the same through the fast reader (the export\'s own text) and the library (comments, flow lists)', async () => {
  const doc = copy();
  doc.addresses.push({ name: 'yaml-only', ips: ['10.7.0.0/16', '2001:db8::/32'] });
  const exportStyle = YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
  const libraryStyle = `# written by hand\n${YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0, collectionStyle: 'flow' })}`;
  const json = (await ok(plan(doc))).body;
  for (const text of [exportStyle, libraryStyle]) {
    const r = await ok(c.raw('POST', '/api/config/plan', text, { 'Content-Type': 'application/yaml' }));
    expect(r.body).toEqual(json);
  }
  expect(json.added).toEqual([{ kind: 'address', key: 'yaml-only' }]);
  expectError(await c.raw('POST', '/api/config/plan', 'a: 1\na: 2', { 'Content-Type': 'application/yaml' }), 400, 'ERR_NET_1004'); // duplicate key: the library's refusal
});
