// Authentication over HTTP: login, bearer errors, logout, /api/me, rate limit, admin accounts,
// and credentials (login JWTs and API tokens) that end with their account's password or life.
import jwt from 'jsonwebtoken';
import { ADMIN, ADMIN_PASSWORD, Client, expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';

/** FW_JWT_SECRET of this file's daemon: 32 bytes or more and hard to guess, or the daemon refuses to start. */
const SECRET = 'auth-test: kestrel 4 marble pylon 93 drift, 7 quince owls';
const d = useDaemon({ FW_LOGIN_MAX_FAILURES: '3', FW_LOGIN_WINDOW: '60', FW_TOKEN_TTL: '120', FW_JWT_SECRET: SECRET });
const c = d.client;

describe('login', () => {
  test('issues an HS256 token with the contract claims and expires_in in seconds', async () => {
    const r = await new Client(d.url).post('/api/login', { username: ADMIN, password: ADMIN_PASSWORD });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['expires_in', 'token']);
    expect(r.body.expires_in).toBe(120);
    const claims = jwt.verify(r.body.token, SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims.sub).toBe(ADMIN);
    expect(claims.role).toBe('admin');
    expect(typeof claims.jti).toBe('string');
    expect(claims.exp! - claims.iat!).toBe(120);
  });

  test('wrong password and unknown user are the same 401 ERR_SEC_5005', async () => {
    const a = new Client(d.url);
    const wrong = expectError(await a.post('/api/login', { username: ADMIN, password: 'nope-nope-nope' }), 401, 'ERR_SEC_5005');
    const unknown = expectError(await a.post('/api/login', { username: 'ghost', password: 'nope-nope-nope' }), 401, 'ERR_SEC_5005');
    expect(wrong.body.message).toBe(unknown.body.message);
    expect(wrong.body.details).toBe(unknown.body.details);
  });

  test('missing field, wrong type, malformed JSON and unknown field are 400 ERR_NET_1004', async () => {
    const a = new Client(d.url);
    expectError(await a.post('/api/login', { username: ADMIN }), 400, 'ERR_NET_1004');
    expectError(await a.post('/api/login', { username: ADMIN, password: 5 }), 400, 'ERR_NET_1004');
    expectError(await a.raw('POST', '/api/login', '{"username": "admin",'), 400, 'ERR_NET_1004');
    const r = expectError(await a.post('/api/login', { username: ADMIN, password: 'x', extra: 1 }), 400, 'ERR_NET_1004');
    expect(r.body.details).toContain('extra');
    expectError(await a.post('/api/login'), 400, 'ERR_NET_1004');
  });

  test('other methods are 405 ERR_NET_1009 with Allow: POST, even without a token', async () => {
    for (const m of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const r = expectError(await new Client(d.url).raw(m, '/api/login'), 405, 'ERR_NET_1009');
      expect(r.headers.get('allow')).toBe('POST');
    }
  });

  test('repeated failures for one user give 429 ERR_SEC_5007 with Retry-After', async () => {
    const a = new Client(d.url);
    await a.post('/api/users', {}); // unauthenticated: 401, does not count as a login failure
    for (let i = 0; i < 3; i++) {
      expectError(await a.post('/api/login', { username: 'victim', password: `guess-${i}-xxxxxx` }), 401, 'ERR_SEC_5005');
    }
    const r = expectError(await a.post('/api/login', { username: 'victim', password: 'another-guess' }), 429, 'ERR_SEC_5007');
    const retry = Number(r.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
  });
});

describe('bearer token', () => {
  test('missing, malformed and invalid tokens: 5001, 5002, 5003 with WWW-Authenticate', async () => {
    const a = new Client(d.url);
    const missing = expectError(await a.get('/api/me'), 401, 'ERR_SEC_5001');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const malformed = expectError(await a.raw('GET', '/api/me', undefined, { Authorization: 'Token abc' }), 401, 'ERR_SEC_5002');
    expect(malformed.headers.get('www-authenticate')).toBe('Bearer');
    expectError(await a.raw('GET', '/api/me', undefined, { Authorization: 'Bearer' }), 401, 'ERR_SEC_5002');
    const invalid = expectError(await a.raw('GET', '/api/me', undefined, { Authorization: 'Bearer abc.def.ghi' }), 401, 'ERR_SEC_5003');
    expect(invalid.headers.get('www-authenticate')).toBe('Bearer');
    const forged = jwt.sign({ sub: ADMIN, role: 'admin', jti: 'x' }, 'another-secret', { algorithm: 'HS256', expiresIn: 60 });
    expectError(await a.raw('GET', '/api/me', undefined, { Authorization: `Bearer ${forged}` }), 401, 'ERR_SEC_5003');
  });

  test('an expired token is 401 ERR_SEC_5003', async () => {
    const old = jwt.sign({ sub: ADMIN, role: 'admin', jti: 'old', iat: 1000, exp: 2000 }, SECRET, { algorithm: 'HS256' });
    const r = expectError(await new Client(d.url).raw('GET', '/api/me', undefined, { Authorization: `Bearer ${old}` }), 401, 'ERR_SEC_5003');
    expect(r.body.details).toContain('expired');
  });

  test('/api/me answers username, role and expires', async () => {
    const r = await c.get('/api/me');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: ADMIN, role: 'admin', expires: expect.any(Number) });
    expect(r.body.expires).toBeGreaterThan(Date.now() / 1000);
  });

  test('logout revokes the presented token only', async () => {
    const a = await new Client(d.url).login();
    const b = await new Client(d.url).login();
    expect((await a.get('/api/me')).status).toBe(200); // now cached as verified
    expectMessage(await a.post('/api/logout'), 'logged out');
    expectError(await a.get('/api/me'), 401, 'ERR_SEC_5003');
    expect((await b.get('/api/me')).status).toBe(200);
  });
});

describe('admin accounts', () => {
  test('create, list (no hashes), log in, change password, delete; tokens of a deleted user stop working', async () => {
    expectMessage(await c.post('/api/users', { username: 'ops', password: 'ops-password-123' }), 'user created');
    const list = await c.get('/api/users');
    expect(list.status).toBe(200);
    expect(list.body.map((u: { username: string }) => u.username)).toEqual(['admin', 'ops']);
    expect(JSON.stringify(list.body)).not.toContain('scrypt');
    const ops = await new Client(d.url).login('ops', 'ops-password-123');
    // twice: verified, then found among the recently seen headers (src/auth/tokens.ts)
    expect((await ops.get('/api/me')).body.username).toBe('ops');
    expect((await ops.get('/api/me')).body.username).toBe('ops');
    expectMessage(await c.put('/api/users/ops', { password: 'new-password-456' }), 'user updated');
    expectError(await new Client(d.url).post('/api/login', { username: 'ops', password: 'ops-password-123' }), 401, 'ERR_SEC_5005');
    await new Client(d.url).login('ops', 'new-password-456');
    expectMessage(await c.del('/api/users/ops'), 'user deleted');
    expectError(await ops.get('/api/me'), 401, 'ERR_SEC_5003');
  });

  test('errors: duplicate 409, short password 400, bad name 400, unknown 404, last account 409', async () => {
    expectError(await c.post('/api/users', { username: ADMIN, password: 'long-enough-password' }), 409, 'ERR_NET_2006');
    expectError(await c.post('/api/users', { username: 'short', password: 'short' }), 400, 'ERR_NET_1004');
    expectError(await c.post('/api/users', { username: '__proto__', password: 'long-enough-password' }), 400, 'ERR_NET_1004');
    expectError(await c.put('/api/users/nobody', { password: 'long-enough-password' }), 404, 'ERR_NET_1003');
    expectError(await c.del('/api/users/nobody'), 404, 'ERR_NET_1003');
    const last = expectError(await c.del(`/api/users/${ADMIN}`), 409, 'ERR_NET_2007');
    expect(last.body.details).toContain('last');
    expect((await c.get('/api/me')).status).toBe(200);
  });
});

/** An account of `role` with a login JWT and an API token (made by its login, or by the admin
 * for roles that may not make tokens), both used once so that they are cached as verified. */
async function credentials(username: string, role: string): Promise<{ login: Client; api: Client }> {
  await ok(c.post('/api/users', { username, password: 'first-password-1', role }));
  const login = await new Client(d.url).login(username, 'first-password-1');
  const api = new Client(d.url);
  api.token = (await ok(login.post('/api/tokens', { name: 'auto', role }))).body.token;
  for (const x of [login, api]) expect((await x.get('/api/me')).body.username).toBe(username);
  return { login, api };
}

describe('credentials end with their account', () => {
  test('a password reset ends the account\'s login tokens and API tokens; a new login works', async () => {
    const { login, api } = await credentials('reset-me', 'operator');
    expectMessage(await c.put('/api/users/reset-me', { password: 'second-password-2' }), 'user updated');
    for (const x of [login, api]) {
      const r = expectError(await x.get('/api/me'), 401, 'ERR_SEC_5003');
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect((await ok(c.get('/api/tokens'))).body.filter((t: { owner: string }) => t.owner === 'reset-me')).toEqual([]);
    const again = await new Client(d.url).login('reset-me', 'second-password-2');
    expect((await ok(again.get('/api/me'))).body.role).toBe('operator');
    // a role change is no reset: it applies to the tokens held (their next request)
    expectMessage(await c.put('/api/users/reset-me', { role: 'viewer' }), 'user updated');
    expect((await ok(again.get('/api/me'))).body.role).toBe('viewer');
  });

  test('an account deleted and created again with its name, as admin: the old tokens stay refused', async () => {
    const { login, api } = await credentials('reborn', 'operator');
    expectMessage(await c.del('/api/users/reborn'), 'user deleted');
    await ok(c.post('/api/users', { username: 'reborn', password: 'other-password-3', role: 'admin' }));
    for (const x of [login, api]) {
      expectError(await x.get('/api/me'), 401, 'ERR_SEC_5003');
      expectError(await x.get('/api/users'), 401, 'ERR_SEC_5003');
    }
    const fresh = await new Client(d.url).login('reborn', 'other-password-3');
    expect((await ok(fresh.get('/api/me'))).body.role).toBe('admin');
  });

  test('deleting an account ends its configuration session at once, not after the idle timeout', async () => {
    const { login } = await credentials('holder', 'operator');
    await login.begin();
    expect((await ok(c.get('/api/config/session'))).body).toMatchObject({ active: true, owner: 'holder' });
    expectMessage(await c.del('/api/users/holder'), 'user deleted');
    expect((await ok(c.get('/api/config/session'))).body.active).toBe(false);
    expectMessage(await c.post('/api/config/begin'), 'config session started');
    const ended = (await ok(c.get('/api/audit?action=session.force-discard&limit=1'))).body.entries[0];
    expect(ended).toMatchObject({ user: ADMIN, details: 'owner: holder (account deleted)' });
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });
});

test('a user write never brings back an account deleted, or created again, since it was read (both stores)', async () => {
  const store = d.daemon.daemon.ctx.store;
  await ok(c.post('/api/users', { username: 'twice', password: 'first-password-1', role: 'operator' }));
  const old = (await store.getUser('twice'))!;
  expectMessage(await c.del('/api/users/twice'), 'user deleted');
  await expect(store.putUser({ ...old, role: 'admin' }, old)).rejects.toMatchObject({ code: 'ERR_NET_1003' });
  await ok(c.post('/api/users', { username: 'twice', password: 'other-password-2', role: 'viewer' }));
  await expect(store.putUser({ ...old, role: 'admin' }, old)).rejects.toMatchObject({ code: 'ERR_NET_1003' });
  await expect(store.putUser({ ...old, role: 'admin' }, null)).rejects.toMatchObject({ code: 'ERR_NET_2006' });
  const now = (await store.getUser('twice'))!;
  expect(now).toMatchObject({ role: 'viewer', epoch: 0 });
  expect(now.id).not.toBe(old.id);
  expect(await store.putUser({ ...now, role: 'auditor' }, now)).toBe(true);
  expect((await ok(c.get('/api/users'))).body.find((u: { username: string }) => u.username === 'twice').role).toBe('auditor');
});

test('the Bearer scheme is case-insensitive (RFC 7235 2.1), for a login JWT and an API token', async () => {
  const api = (await ok(c.post('/api/tokens', { name: 'scheme', role: 'viewer' }))).body.token;
  for (const token of [c.token, api]) {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR', 'Bearer ']) {
      const r = await new Client(d.url).raw('GET', '/api/me', undefined, { Authorization: `${scheme} ${token}` });
      expect({ scheme, status: r.status }).toEqual({ scheme, status: 200 });
    }
  }
  expectError(await new Client(d.url).raw('GET', '/api/me', undefined, { Authorization: `Bearer\t${c.token}` }), 401, 'ERR_SEC_5002');
});
