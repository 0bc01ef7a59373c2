// Accounts with roles and API tokens, tried the way an attacker or a careless script would:
// privilege escalation through users, tokens and sessions, tokens that outlive their owner's
// role or account, and the audit trail of it all.
import fs from 'node:fs';
import path from 'node:path';
import { Client, TEST_STORE, expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();
const admin = d.client;
const PASSWORD = 'access-password-12';

async function account(username: string, role?: string): Promise<Client> {
  await ok(admin.post('/api/users', role ? { username, password: PASSWORD, role } : { username, password: PASSWORD }));
  return new Client(d.url).login(username, PASSWORD);
}

function withToken(token: string): Client {
  const c = new Client(d.url);
  c.token = token;
  return c;
}

async function auditOf(action: string): Promise<any[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return (await ok(admin.get(`/api/audit?action=${action}&limit=1000`))).body.entries;
}

test('a new account is a viewer unless a role is given; GET /api/users lists roles; bad roles are 400', async () => {
  const v = await account('plain');
  expect((await v.get('/api/me')).body).toEqual({ username: 'plain', role: 'viewer', expires: expect.any(Number) });
  const list = (await ok(admin.get('/api/users'))).body;
  expect(list.find((u: { username: string }) => u.username === 'plain')).toEqual({ username: 'plain', role: 'viewer', created_at: expect.any(String) });
  expect(list.find((u: { username: string }) => u.username === 'admin').role).toBe('admin');
  expectError(await admin.post('/api/users', { username: 'x1', password: PASSWORD, role: 'root' }), 400, 'ERR_NET_1005');
  expectError(await admin.put('/api/users/plain', { role: 'superuser' }), 400, 'ERR_NET_1005');
  expectError(await admin.put('/api/users/plain', {}), 400, 'ERR_NET_1004');
});

test('a failed login names the account tried, with no role; an empty name (the fuzzer found it) is no name: 400, not recorded', async () => {
  expectError(await new Client(d.url).post('/api/login', { username: 'nobody-here', password: 'whatever' }), 401, 'ERR_SEC_5005');
  const failed = (await auditOf('auth.login-failed'))[0];
  expect(failed).toMatchObject({ user: 'nobody-here' });
  expect(failed.role).toBeUndefined();
  expectError(await new Client(d.url).post('/api/login', { username: '', password: 'whatever' }), 400, 'ERR_NET_1004');
  expect((await auditOf('auth.login-failed'))[0].id).toBe(failed.id);
});

test('an operator cannot make an admin: not an account, not a role change, not a token above its role', async () => {
  const op = await account('op1', 'operator');
  const r = expectError(await op.post('/api/users', { username: 'evil', password: PASSWORD, role: 'admin' }), 403, 'ERR_SEC_5008');
  expect(r.body.details).toBe('needs role admin; your role: operator');
  expectError(await op.put('/api/users/op1', { role: 'admin' }), 403, 'ERR_SEC_5008');
  const t = expectError(await op.post('/api/tokens', { name: 'up', role: 'admin' }), 403, 'ERR_SEC_5008');
  expect(t.body.details).toBe('a token\'s role cannot exceed yours: asked admin; your role: operator');
  // auditor is not within operator either (it reads the audit trail)
  expectError(await op.post('/api/tokens', { name: 'aud', role: 'auditor' }), 403, 'ERR_SEC_5008');
  expect((await ok(op.post('/api/tokens', { name: 'ok', role: 'viewer' }))).body.role).toBe('viewer');
  expect((await admin.get('/api/users')).body.map((u: { username: string }) => u.username)).not.toContain('evil');
  expect((await op.get('/api/me')).body.role).toBe('operator');
});

test('a role change applies to the very next request of tokens already held (cached JWT and API token)', async () => {
  const u = await account('mover', 'admin');
  const api = withToken((await ok(u.post('/api/tokens', { name: 'auto', role: 'admin' }))).body.token);
  for (let i = 0; i < 3; i++) expect((await api.get('/api/me')).body.role).toBe('admin'); // cached
  expect((await u.get('/api/users')).status).toBe(200);
  expectMessage(await admin.put('/api/users/mover', { role: 'viewer' }), 'user updated');
  expectError(await u.get('/api/users'), 403, 'ERR_SEC_5008');
  expect((await u.get('/api/me')).body.role).toBe('viewer');
  expect((await api.get('/api/me')).body).toEqual({ username: 'mover', role: 'viewer', expires: null, token: 'auto' });
  expectError(await api.post('/api/users', { username: 'y', password: PASSWORD }), 403, 'ERR_SEC_5008');
  // promoted to operator: the admin token acts as an operator, never above its owner
  expectMessage(await admin.put('/api/users/mover', { role: 'operator' }), 'user updated');
  expect((await api.get('/api/me')).body.role).toBe('operator');
  // an auditor token of an operator acts as what both allow: a viewer
  const aud = withToken((await ok(admin.post('/api/tokens', { name: 'aud-of-admin', role: 'auditor' }))).body.token);
  expect((await aud.get('/api/me')).body.role).toBe('auditor');
  expect((await ok(admin.get('/api/audit?limit=1'))).body.entries.length).toBe(1);
  const roles = (await auditOf('user.role')).filter((e) => e.details.startsWith('mover'));
  expect(roles.map((e) => e.details)).toEqual(['mover: viewer -> operator', 'mover: admin -> viewer']);
  expect(roles[0]).toMatchObject({ user: 'admin', role: 'admin' });
});

test('the last admin can be neither demoted nor deleted; with a second admin it can', async () => {
  for (const u of (await ok(admin.get('/api/users'))).body) {
    if (u.role === 'admin' && u.username !== 'admin') await ok(admin.put(`/api/users/${u.username}`, { role: 'viewer' }));
  }
  const demote = expectError(await admin.put('/api/users/admin', { role: 'operator' }), 409, 'ERR_NET_2007');
  expect(demote.body.details).toContain('last admin');
  expectError(await admin.del('/api/users/admin'), 409, 'ERR_NET_2007');
  expect((await admin.get('/api/me')).body.role).toBe('admin');
  const second = await account('second-admin', 'admin');
  expectMessage(await second.put('/api/users/admin', { role: 'operator' }), 'user updated');
  expectError(await admin.get('/api/users'), 403, 'ERR_SEC_5008');
  expectError(await second.put('/api/users/second-admin', { role: 'viewer' }), 409, 'ERR_NET_2007');
  expectMessage(await second.put('/api/users/admin', { role: 'admin' }), 'user updated');
  expect((await admin.get('/api/users')).status).toBe(200);
  expectMessage(await admin.del('/api/users/second-admin'), 'user deleted');
});

test('deleting a user revokes its tokens for good, even when the name is created again', async () => {
  const u = await account('leaver', 'operator');
  const token = (await ok(u.post('/api/tokens', { name: 'ci', role: 'operator' }))).body.token;
  const api = withToken(token);
  expect((await api.get('/api/me')).status).toBe(200);
  expectMessage(await admin.del('/api/users/leaver'), 'user deleted');
  expectError(await api.get('/api/me'), 401, 'ERR_SEC_5003');
  expectError(await u.get('/api/me'), 401, 'ERR_SEC_5003');
  await account('leaver', 'operator');
  expectError(await api.get('/api/me'), 401, 'ERR_SEC_5003');
  expect((await ok(admin.get('/api/tokens'))).body.filter((t: { owner: string }) => t.owner === 'leaver')).toEqual([]);
});

test('API tokens: shown once, stored as a hash, listed by role, unique per owner, revoked at once', async () => {
  const op = await account('tok-op', 'operator');
  const made = await ok(op.post('/api/tokens', { name: 'deploy', role: 'operator', expires_in: 3600 }));
  expect(made.body).toEqual({ name: 'deploy', role: 'operator', token: expect.stringMatching(/^fwd_[A-Za-z0-9_-]{43}$/), expires_at: expect.any(String) });
  expect(Math.abs(Date.parse(made.body.expires_at) - (Date.now() + 3600_000))).toBeLessThan(60_000);
  expectError(await op.post('/api/tokens', { name: 'deploy', role: 'viewer' }), 409, 'ERR_NET_2006');
  await ok(admin.post('/api/tokens', { name: 'deploy', role: 'viewer' })); // another owner: fine
  expectError(await op.post('/api/tokens', { name: 'short', role: 'viewer', expires_in: 5 }), 400, 'ERR_NET_1008');
  expectError(await op.post('/api/tokens', { name: 'x', role: 'viewer', extra: 1 }), 400, 'ERR_NET_1004');

  const api = withToken(made.body.token);
  expect((await api.get('/api/me')).body).toEqual({ username: 'tok-op', role: 'operator', expires: Math.floor(Date.parse(made.body.expires_at) / 1000), token: 'deploy' });
  const mine = (await ok(op.get('/api/tokens'))).body;
  expect(mine).toEqual([{ name: 'deploy', owner: 'tok-op', role: 'operator', created_at: expect.any(String), expires_at: made.body.expires_at, last_used_at: expect.any(String) }]);
  const all = (await ok(admin.get('/api/tokens'))).body;
  expect(all.filter((t: { name: string }) => t.name === 'deploy').map((t: { owner: string }) => t.owner)).toEqual(['admin', 'tok-op']);
  const auditor = await account('tok-aud', 'auditor');
  expect((await ok(auditor.get('/api/tokens'))).body.length).toBe(all.length);
  expectError(await auditor.post('/api/tokens', { name: 'a', role: 'auditor' }), 403, 'ERR_SEC_5008');

  // the secret is nowhere in the store: only its SHA-256
  const stored = JSON.stringify(await d.daemon.daemon.ctx.store.listApiTokens());
  expect(stored).not.toContain(made.body.token);
  expect(stored).not.toContain(made.body.token.slice(4));
  if (TEST_STORE === 'embedded') expect(fs.readFileSync(path.join(d.daemon.dir, 'meta.json'), 'utf8')).not.toContain(made.body.token.slice(4));

  // an operator may not revoke another's token; an admin may, with ?owner=
  expectError(await op.del('/api/tokens/deploy?owner=admin'), 403, 'ERR_SEC_5008');
  expectError(await op.del('/api/tokens/nothing'), 404, 'ERR_NET_1003');
  expectMessage(await admin.del('/api/tokens/deploy?owner=tok-op'), 'token revoked');
  expectError(await api.get('/api/me'), 401, 'ERR_SEC_5003');
  expectMessage(await admin.del('/api/tokens/deploy'), 'token revoked');
});

test('a token made with an API token expires no later than it; logout with an API token revokes it', async () => {
  const op = await account('chain', 'operator');
  const parent = (await ok(op.post('/api/tokens', { name: 'parent', role: 'operator', expires_in: 600 }))).body;
  const child = (await ok(withToken(parent.token).post('/api/tokens', { name: 'child', role: 'viewer' }))).body;
  expect(child.expires_at).toBe(parent.expires_at);
  const api = withToken(child.token);
  expectMessage(await api.post('/api/logout'), 'logged out');
  expectError(await api.get('/api/me'), 401, 'ERR_SEC_5003');
  expect((await ok(op.get('/api/tokens'))).body.map((t: { name: string }) => t.name)).toEqual(['parent']);
});

test('force-discarding another user\'s session takes admin; an operator discards only its own', async () => {
  const op = await account('forcer', 'operator');
  await admin.begin();
  const r = expectError(await op.post('/api/config/discard?force=true'), 403, 'ERR_SEC_5008');
  expect(r.body.details).toBe('discarding another user\'s session needs role admin; your role: operator');
  expectError(await op.post('/api/config/discard'), 409, 'ERR_SYS_3002');
  expect((await ok(admin.get('/api/config/session'))).body.owner).toBe('admin');
  expectMessage(await admin.post('/api/config/discard'), 'config session discarded');
  expectMessage(await op.post('/api/config/begin'), 'config session started');
  expectMessage(await op.post('/api/config/discard?force=true'), 'config session discarded'); // its own
});

test('/metrics takes a token with the audit permission (admin, auditor); a viewer or operator gets 403', async () => {
  const aud = await account('scraper', 'auditor');
  expect((await aud.get('/metrics')).status).toBe(200);
  const view = await account('peeker', 'viewer');
  expectError(await view.get('/metrics'), 403, 'ERR_SEC_5008');
  expectError(await new Client(d.url).get('/metrics'), 401, 'ERR_SEC_5001');
});

test('every audit entry names its actor: user, role, and token; refusals are recorded at most once a second per actor and route', async () => {
  const op = await account('auditee', 'operator');
  const api = withToken((await ok(op.post('/api/tokens', { name: 'robot', role: 'operator' }))).body.token);
  await ok(api.post('/api/config/begin'));
  await ok(api.post('/api/config/discard'));
  const begin = (await auditOf('session.begin')).find((e) => e.user === 'auditee');
  expect(begin).toMatchObject({ user: 'auditee', role: 'operator', token: 'robot' });
  const login = (await auditOf('auth.login')).find((e) => e.user === 'auditee');
  expect(login).toMatchObject({ role: 'operator' });
  expect(login.token).toBeUndefined();
  const created = (await auditOf('token.create')).find((e) => e.details === 'auditee/robot (operator)');
  expect(created).toMatchObject({ user: 'auditee', role: 'operator' });

  const started = Date.now();
  for (let i = 0; i < 20; i++) expectError(await api.get('/api/audit'), 403, 'ERR_SEC_5008');
  const seconds = (Date.now() - started) / 1000;
  const refused = (await auditOf('auth.forbidden')).filter((e) => e.user === 'auditee' && e.token === 'robot');
  expect(refused.length).toBeGreaterThanOrEqual(1);
  expect(refused.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
  expect(refused[0]).toMatchObject({ details: 'GET /api/audit: needs role admin or auditor; your role: operator (API token "robot")', role: 'operator' });
  // a refusal decided in a handler is recorded the same way
  expectError(await api.post('/api/tokens', { name: 'up', role: 'admin' }), 403, 'ERR_SEC_5008');
  const up = (await auditOf('auth.forbidden')).find((e) => e.token === 'robot' && e.details.startsWith('POST /api/tokens'));
  expect(up.details).toBe('POST /api/tokens: a token\'s role cannot exceed yours: asked admin; your role: operator');
});
