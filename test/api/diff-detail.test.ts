// The rule-level diff over HTTP: GET /api/config/diff?detail=true (changed fields old and new,
// the moved rule with its old and new positions and neighbours), the same between two
// committed versions (?from=&to=, no session), the commit's change summary naming the move,
// and the audit saying where a moved rule went. (The catch-all moved to position 1 showed as
// "Reordered - policies" and `change.move policy 2001`, without a position; issue 29.)
import { expectError, ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();
const c = d.client;
let v1 = 0;

beforeAll(async () => {
  await c.begin();
  await ok(c.post('/api/addresses', { name: 'web', ips: ['10.0.0.10'] }));
  for (let i = 0; i < 5; i++) await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': 'web', log: i === 0 }));
  await ok(c.post('/api/policies', { action: 'deny' }));
  await c.commit();
  v1 = (await ok(c.get('/api/status'))).body.version;
});

const MOVE = { kind: 'policy', key: '6', from: 6, to: 1, old_neighbours: { above: '5', below: null }, new_neighbours: { above: null, below: '1' } };

test('the catch-all moved to the top: one move with positions and neighbours, the changed field old and new', async () => {
  await c.begin();
  await ok(c.post('/api/policies/6/move', { position: 'top' }));
  await ok(c.put('/api/policies/1', { log: false }));
  // the plain diff keeps its shape
  expect((await ok(c.get('/api/config/diff'))).body).toEqual({ base_version: v1, added: [], changed: [{ kind: 'policy', key: '1' }], deleted: [], reordered: ['policies'] });
  const detail = (await ok(c.get('/api/config/diff?detail=true'))).body;
  expect(detail).toEqual({
    base_version: v1, added: [], deleted: [], reordered: ['policies'],
    changed: [{ kind: 'policy', key: '1', position: 2, fields: [{ field: 'log', old: true, new: false }] }],
    moved: [MOVE],
  });
  const moves = (await ok(c.get('/api/audit?action=change.move'))).body.entries;
  expect(moves[0].details).toBe('policy 6 to position 1 of 6');
  await c.commit();
});

test('the version\'s summary names the move; two versions compare rule by rule without a session', async () => {
  const versions = (await ok(c.get('/api/config/versions'))).body;
  const v2 = versions[versions.length - 1];
  expect(v2.summary).toBe('0 added, 1 changed, 0 deleted, reordered policies; moved policy 6 from 6 to 1');
  expect((await ok(c.get('/api/config/session'))).body.active).toBe(false);
  const compared = (await ok(c.get(`/api/config/diff?from=${v1}&to=${v2.version}`))).body;
  expect(compared).toEqual(expect.objectContaining({ base_version: v1, moved: [MOVE], changed: [{ kind: 'policy', key: '1', position: 2, fields: [{ field: 'log', old: true, new: false }] }] }));
  const back = (await ok(c.get(`/api/config/diff?from=${v2.version}&to=${v1}`))).body;
  expect(back.moved).toEqual([{ ...MOVE, from: 1, to: 6, old_neighbours: MOVE.new_neighbours, new_neighbours: MOVE.old_neighbours }]);
});

test('?analysis=true: the rules whose analysis the change alters, grouped by new status and cause', async () => {
  await c.begin();
  await ok(c.post('/api/policies/6/move', { position: 'bottom' })); // the deny back below the allows
  const r = (await ok(c.get('/api/config/diff?detail=true&analysis=true'))).body;
  expect(r.moved).toEqual([{ ...MOVE, from: 1, to: 6, old_neighbours: MOVE.new_neighbours, new_neighbours: MOVE.old_neighbours }]);
  expect(r.analysis_changes).toEqual([
    { kind: 'policy', status: 'redundant', by: [1], rules: [2, 3, 4, 5].map((id) => ({ id, was: 'shadowed' })) },
    { kind: 'policy', status: 'ok', by: [], rules: [{ id: 1, was: 'shadowed' }] },
  ]);
  await ok(c.post('/api/config/discard'));
});

test('rules are named by their name and their position, in the session\'s diff, a version compare and the summary (issue 43: ids alone did not say which rule)', async () => {
  await c.begin();
  await ok(c.put('/api/policies/2', { name: 'web-in' }));
  await ok(c.put('/api/policies/3', { name: 'web-old' }));
  await c.commit();
  const before = (await ok(c.get('/api/status'))).body.version;
  await c.begin();
  await ok(c.put('/api/policies/2', { log: true }));
  await ok(c.del('/api/policies/3'));
  await ok(c.post('/api/policies/2/move', { position: 'top' }));
  const added = (await ok(c.post('/api/policies', { action: 'deny', name: 'last-word' }))).body.id;
  // the plain diff names them (no positions: it is the cheap answer)
  const plain = (await ok(c.get('/api/config/diff'))).body;
  expect(plain.changed).toEqual([{ kind: 'policy', key: '2', name: 'web-in' }]);
  expect(plain.deleted).toEqual([{ kind: 'policy', key: '3', name: 'web-old' }]);
  const detail = (await ok(c.get('/api/config/diff?detail=true'))).body;
  expect(detail.changed).toEqual([{ kind: 'policy', key: '2', name: 'web-in', position: 1, fields: [{ field: 'log', old: false, new: true }] }]);
  expect(detail.deleted).toEqual([{ kind: 'policy', key: '3', name: 'web-old', position: 4 }]); // where it was
  expect(detail.added).toEqual([{ kind: 'policy', key: added, name: 'last-word', position: 6 }]);
  expect(detail.moved).toEqual([expect.objectContaining({ kind: 'policy', key: '2', name: 'web-in', from: 3, to: 1 })]);
  await c.commit();
  const version = (await ok(c.get('/api/status'))).body.version;
  const compared = (await ok(c.get(`/api/config/diff?from=${before}&to=${version}`))).body;
  expect(compared.deleted).toEqual(detail.deleted);
  expect(compared.moved).toEqual(detail.moved);
  const summary = (await ok(c.get('/api/config/versions'))).body.find((v: { version: number }) => v.version === version).summary;
  expect(summary).toMatch(/moved policy 2 \(web-in\) from 3 to 1/);
});

test('bad queries: 400 with the contract\'s codes; an unknown version 404', async () => {
  expectError(await c.get('/api/config/diff?detail=maybe'), 400, 'ERR_NET_1005');
  expectError(await c.get('/api/config/diff?detail=true&analysis=yes'), 400, 'ERR_NET_1005');
  expectError(await c.get(`/api/config/diff?from=${v1}`), 400, 'ERR_NET_1005');
  expectError(await c.get(`/api/config/diff?from=x&to=${v1}`), 400, 'ERR_NET_1002');
  expectError(await c.get(`/api/config/diff?from=${v1}&to=999`), 404, 'ERR_NET_1003');
  expectError(await c.get('/api/config/diff?detail=true'), 409, 'ERR_SYS_3001'); // the candidate's diff needs a session
});
