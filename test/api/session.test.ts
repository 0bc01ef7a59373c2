// The configuration session over HTTP with two admins: begin, ownership, expiry, discard,
// diff, validate, commit history, version documents and rollback.
import { Client, TEST_STORE, expectError, expectMessage, startTestDaemon, useDaemon } from '../helpers/daemon';

const d = useDaemon();
let alice: Client;
let bob: Client;

beforeAll(async () => {
  const admin = d.client;
  await admin.post('/api/users', { username: 'alice', password: 'alice-password-1', role: 'admin' });
  await admin.post('/api/users', { username: 'bob', password: 'bob-password-12', role: 'admin' });
  alice = await new Client(d.url).login('alice', 'alice-password-1');
  bob = await new Client(d.url).login('bob', 'bob-password-12');
});

afterEach(async () => {
  // leave no session behind for the next test
  await alice.post('/api/config/discard?force=true');
});

const net = (name: string, cidr: string) => ({ name, ips: [cidr] });

test('a change without a session is 409 ERR_SYS_3001, and so is reading the candidate', async () => {
  expectError(await alice.post('/api/addresses', net('a1', '10.0.0.0/8')), 409, 'ERR_SYS_3001');
  expectError(await alice.get('/api/addresses?config=candidate'), 409, 'ERR_SYS_3001');
  expectError(await alice.post('/api/config/commit'), 409, 'ERR_SYS_3001');
  expectError(await alice.post('/api/config/discard'), 409, 'ERR_SYS_3001');
  expectError(await alice.get('/api/config/diff'), 409, 'ERR_SYS_3001');
  expectError(await alice.post('/api/config/validate'), 409, 'ERR_SYS_3001');
  expectError(await alice.get('/api/addresses?config=other'), 400, 'ERR_NET_1005');
});

test('begin: one session at a time; the other admin gets 409 ERR_SYS_3002 naming the owner', async () => {
  expectMessage(await alice.post('/api/config/begin'), 'config session started');
  const again = expectError(await alice.post('/api/config/begin'), 409, 'ERR_SYS_3002');
  expect(again.body.details).toBe('owner: alice');
  const other = expectError(await bob.post('/api/config/begin'), 409, 'ERR_SYS_3002');
  expect(other.body.details).toBe('owner: alice');
});

test('a non-owner cannot change, commit or discard without force', async () => {
  await alice.post('/api/config/begin');
  const r = expectError(await bob.post('/api/addresses', net('b1', '10.1.0.0/16')), 409, 'ERR_SYS_3002');
  expect(r.body.details).toBe('owner: alice');
  expectError(await bob.post('/api/config/commit'), 409, 'ERR_SYS_3002');
  expectError(await bob.post('/api/config/discard'), 409, 'ERR_SYS_3002');
  expectError(await bob.post('/api/config/discard?force=maybe'), 400, 'ERR_NET_1005');
  // reading the candidate is open to every admin
  expect((await bob.get('/api/addresses?config=candidate')).status).toBe(200);
});

test('force discard by another admin breaks the lock and drops the candidate', async () => {
  await alice.post('/api/config/begin');
  await alice.post('/api/addresses', net('gone', '10.2.0.0/16'));
  expectMessage(await bob.post('/api/config/discard?force=true'), 'config session discarded');
  expect((await bob.get('/api/config/session')).body.active).toBe(false);
  expectError(await alice.post('/api/addresses', net('gone2', '10.2.0.0/16')), 409, 'ERR_SYS_3001');
  expectMessage(await bob.post('/api/config/begin'), 'config session started');
  expect((await bob.get('/api/addresses?config=candidate')).body).toEqual({});
  expectMessage(await bob.post('/api/config/discard'), 'config session discarded');
});

test('session status reports owner, times and the number of changes', async () => {
  expect((await alice.get('/api/config/session')).body).toEqual({ active: false, owner: null, started_at: null, expires_at: null, changes: 0, pending_confirm: null });
  await alice.post('/api/config/begin');
  await alice.post('/api/addresses', net('s1', '10.3.0.0/16'));
  await alice.post('/api/addresses', net('s2', '10.4.0.0/16'));
  const s = (await bob.get('/api/config/session')).body;
  expect(s.active).toBe(true);
  expect(s.owner).toBe('alice');
  expect(s.changes).toBe(2);
  const started = Date.parse(s.started_at);
  const expires = Date.parse(s.expires_at);
  expect(expires - Date.now()).toBeGreaterThan(800 * 1000);
  expect(expires - started).toBeLessThanOrEqual(900 * 1000 + 5000);
});

test('a failed change leaves nothing behind and is not counted', async () => {
  await alice.post('/api/config/begin');
  expectError(await alice.post('/api/addresses', { name: 'bad', ips: ['10.0.0.0/8', 'nonsense'] }), 400, 'ERR_NET_1001');
  expect((await alice.get('/api/addresses?config=candidate')).body).toEqual({});
  expect((await alice.get('/api/config/session')).body.changes).toBe(0);
});

test('diff, validate, commit with description, versions and version documents', async () => {
  await alice.post('/api/config/begin');
  await alice.post('/api/addresses', net('d1', '10.5.0.0/16'));
  const diff = (await alice.get('/api/config/diff')).body;
  expect(diff.added).toEqual([{ kind: 'address', key: 'd1' }]);
  expect(diff.changed).toEqual([]);
  expect(diff.deleted).toEqual([]);
  expectMessage(await alice.post('/api/config/validate'), 'validation passed');
  const before = (await alice.get('/api/config/versions')).body.length;
  const commit = expectMessage(await alice.post('/api/config/commit', { description: 'add d1' }), 'commit successful');
  expect(Number(commit.body.version)).toBe(before); // versions start at 0
  expect((await alice.get('/api/config/session')).body.active).toBe(false);
  const versions = (await alice.get('/api/config/versions')).body;
  const last = versions[versions.length - 1];
  expect(last).toEqual({ version: Number(commit.body.version), author: 'alice', time: expect.any(String), description: 'add d1', summary: '1 added, 0 changed, 0 deleted' });
  const doc = (await alice.get(`/api/config/versions/${commit.body.version}`)).body;
  expect(doc.config.addresses).toEqual([{ name: 'd1', ips: ['10.5.0.0/16'] }]);
  expectError(await alice.get('/api/config/versions/999'), 404, 'ERR_NET_1003');
  expectError(await alice.get('/api/config/versions/abc'), 400, 'ERR_NET_1002');
  const status = (await bob.get('/api/status')).body;
  expect(status.version).toBe(Number(commit.body.version));
  expect(status.lastCommit.author).toBe('alice');
  expect(status.store).toBe(TEST_STORE);
  expect(status.store_reachable).toBe(true);
  expect(status.session.active).toBe(false);
  expect(typeof status.uptime).toBe('number');
});

test('rollback loads an older version into the candidate; a commit applies it', async () => {
  await alice.post('/api/config/begin');
  await alice.post('/api/addresses', net('r1', '10.6.0.0/16'));
  const v1 = Number((await alice.post('/api/config/commit')).body.version);
  await alice.post('/api/config/begin');
  await alice.post('/api/addresses', net('r2', '10.7.0.0/16'));
  const v2 = Number((await alice.post('/api/config/commit')).body.version);
  expect(Object.keys((await alice.get('/api/addresses')).body)).toContain('r2');
  await alice.post('/api/config/begin');
  expectMessage(await alice.post('/api/config/rollback', { version: v1 }), `version ${v1} loaded into candidate`);
  expect(Object.keys((await alice.get('/api/addresses?config=candidate')).body)).not.toContain('r2');
  expect(Object.keys((await alice.get('/api/addresses')).body)).toContain('r2'); // running unchanged
  expectError(await alice.post('/api/config/rollback', { version: 999 }), 404, 'ERR_NET_1003');
  expectError(await alice.post('/api/config/rollback', { version: 'one' }), 400, 'ERR_NET_1004');
  const v3 = Number((await alice.post('/api/config/commit')).body.version);
  expect(v3).toBe(v2 + 1);
  expect(Object.keys((await alice.get('/api/addresses')).body)).not.toContain('r2');
});

test('commit rejects unknown fields in its optional body', async () => {
  await alice.post('/api/config/begin');
  expectError(await alice.post('/api/config/commit', { descr: 'x' }), 400, 'ERR_NET_1004');
  expect((await alice.get('/api/config/session')).body.active).toBe(true);
});

test('an idle session expires and releases the lock', async () => {
  const short = await startTestDaemon({ FW_SESSION_TIMEOUT: '1' });
  try {
    const a = await new Client(short.url).login();
    await a.post('/api/config/begin');
    await a.post('/api/addresses', net('x', '10.8.0.0/16'));
    await new Promise((r) => setTimeout(r, 2200));
    expect((await a.get('/api/config/session')).body.active).toBe(false);
    expectError(await a.post('/api/addresses', net('y', '10.9.0.0/16')), 409, 'ERR_SYS_3001');
    expectMessage(await a.post('/api/config/begin'), 'config session started');
    expect((await a.get('/api/addresses?config=candidate')).body).toEqual({});
  } finally {
    await short.close();
  }
});
