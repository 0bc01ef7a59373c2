// Safe retries over HTTP: a changing request with an Idempotency-Key runs once per credential,
// role and key; a retry gets the stored answer (Idempotent-Replayed: true), another request
// with the key 422 ERR_NET_1012, a retry while the first still runs 409 ERR_NET_1013. An answer
// with a secret (a new API token) is never kept: its retry is 409 ERR_NET_2006.
import fs from 'node:fs';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { fingerprint, idempotencyScope } from '../../src/api/idempotency';
import type { AuthUser } from '../../src/auth/user';
import { RedisStore } from '../../src/store/redis/redis-store';
import { Client, expectError, expectMessage, ok, startTestDaemon, tempDir, useDaemon, type Res } from '../helpers/daemon';

const d = useDaemon();
const c = d.client;
let bob: Client;

beforeAll(async () => {
  await ok(c.post('/api/users', { username: 'bob', password: 'bob-password-12', role: 'operator' }));
  bob = await new Client(d.url).login('bob', 'bob-password-12');
});

afterEach(async () => {
  await c.post('/api/config/discard?force=true');
});

const send = (client: Client, method: string, path: string, key: string, body?: unknown): Promise<Res> =>
  client.raw(method, path, body === undefined ? undefined : JSON.stringify(body), { 'Idempotency-Key': key });

const changes = async () => (await c.get('/api/config/session')).body.changes as number;

test('a retried create runs once and answers the first answer again, marked as replayed', async () => {
  await c.begin();
  const body = { action: 'allow' };
  const first = await send(c, 'POST', '/api/policies', 'create-1', body);
  expect(first.status).toBe(200);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const again = await send(c, 'POST', '/api/policies', 'create-1', body);
  expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: first.body });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect((await ok(c.get('/api/policies?config=candidate'))).body).toHaveLength(1);
  expect(await changes()).toBe(1);
  // another key is another request
  expect((await send(c, 'POST', '/api/policies', 'create-2', body)).body.id).not.toBe(first.body.id);
});

test('the same key with another request is 422 ERR_NET_1012: body, path, method or query', async () => {
  await c.begin();
  await ok(send(c, 'POST', '/api/addresses', 'k-422', { name: 'a1', ips: ['10.0.0.0/8'] }));
  expectError(await send(c, 'POST', '/api/addresses', 'k-422', { name: 'a2', ips: ['10.0.0.0/8'] }), 422, 'ERR_NET_1012');
  expectError(await send(c, 'POST', '/api/services', 'k-422', { name: 'a1', ips: ['10.0.0.0/8'] }), 422, 'ERR_NET_1012');
  expectError(await send(c, 'PUT', '/api/addresses/a1', 'k-422', { name: 'a1', ips: ['10.0.0.0/8'] }), 422, 'ERR_NET_1012');
  expectError(await send(c, 'POST', '/api/config/discard?force=true', 'k-422'), 422, 'ERR_NET_1012');
  expect(await changes()).toBe(1);
});

/** Everything the store keeps for Idempotency-Keys, as text: idempotency.log, or Redis's keys. */
async function storedAnswers(): Promise<string> {
  const store = d.daemon.daemon.ctx.store;
  if (store instanceof RedisStore) {
    const keys = await store.redis.keys(store.keys.idempotency('*'));
    return keys.length ? (await store.redis.mget(...keys)).join('\n') : '';
  }
  const file = path.join(d.daemon.dir, 'idempotency.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

/** A client with an API token of admin's, of `role`. */
async function adminToken(name: string, role: string): Promise<Client> {
  const t = new Client(d.url);
  t.token = (await ok(c.post('/api/tokens', { name, role }))).body.token;
  return t;
}

/** The credentials a test acts with: a login's JWT, or an API token (here admin's, of role admin). */
const KINDS = {
  login: () => new Client(d.url).login(),
  'API token': () => adminToken(`maker-${Date.now()}`, 'admin'),
};

describe.each(Object.entries(KINDS))('made with a %s', (kind, credential) => {
  test('a new API token\'s answer is not kept: the retry is 409 ERR_NET_2006 without the secret, and no other credential gets it', async () => {
    const maker = await credential();
    const key = `deploy-${kind.replace(' ', '-')}`;
    const body = { name: key, role: 'admin' };
    const made = await ok(send(maker, 'POST', '/api/tokens', key, body));
    const secret: string = made.body.token;
    expect(secret).toMatch(/^fwd_/);
    // the maker's retry: refused, marked as replayed, no secret
    const retry = expectError(await send(maker, 'POST', '/api/tokens', key, body), 409, 'ERR_NET_2006');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).not.toContain(secret.slice(4));
    // an operator-role token of the same user: its own request, refused for its role
    const operatorToken = await adminToken(`op-${key}`, 'operator');
    const op = expectError(await send(operatorToken, 'POST', '/api/tokens', key, body), 403, 'ERR_SEC_5008');
    expect(op.headers.get('idempotent-replayed')).toBeNull();
    // another login of the same user runs its own request (the name is taken by then)
    const other = expectError(await send(await new Client(d.url).login(), 'POST', '/api/tokens', key, body), 409, 'ERR_NET_2006');
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body.details).toContain('already have a token');
    // the secret is in neither store: idempotency.log, Redis
    const stored = await storedAnswers();
    expect(stored).toContain('ERR_NET_2006');
    expect(stored).not.toContain(secret.slice(4));
    // revoked, the credential gets no answer at all
    expectMessage(await maker.post('/api/logout'), 'logged out');
    expectError(await send(maker, 'POST', '/api/tokens', key, body), 401, 'ERR_SEC_5003');
  });

  test('a credential whose role no longer allows the route gets 403, not the kept answer', async () => {
    const name = `mover-${kind.replace(' ', '-')}`;
    await ok(c.post('/api/users', { username: name, password: 'mover-password-12', role: 'admin' }));
    const login = await new Client(d.url).login(name, 'mover-password-12');
    let mover = login;
    if (kind === 'API token') {
      mover = new Client(d.url);
      mover.token = (await ok(login.post('/api/tokens', { name: 'auto', role: 'admin' }))).body.token;
    }
    const body = { username: `${name}-made`, password: 'made-password-12' };
    await ok(send(mover, 'POST', '/api/users', 'make-user', body));
    expect((await send(mover, 'POST', '/api/users', 'make-user', body)).headers.get('idempotent-replayed')).toBe('true');
    await ok(c.put(`/api/users/${name}`, { role: 'operator' }));
    const r = expectError(await send(mover, 'POST', '/api/users', 'make-user', body), 403, 'ERR_SEC_5008');
    expect(r.headers.get('idempotent-replayed')).toBeNull();
  });
});

test('keys are per user: the same key of another user is a request of its own', async () => {
  const mine = await send(c, 'POST', '/api/config/begin', 'begin-key');
  expect(mine.status).toBe(200);
  const theirs = expectError(await send(bob, 'POST', '/api/config/begin', 'begin-key'), 409, 'ERR_SYS_3002');
  expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  // the owner's retry of begin is answered as before, not refused as "already active"
  const retry = await send(c, 'POST', '/api/config/begin', 'begin-key');
  expect({ status: retry.status, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ status: 200, replayed: 'true' });
});

test('a refusal (4xx) is kept and replayed too', async () => {
  const first = expectError(await send(c, 'POST', '/api/addresses', 'no-session', { name: 'x', ips: ['10.0.0.0/8'] }), 409, 'ERR_SYS_3001');
  await c.begin();
  const again = expectError(await send(c, 'POST', '/api/addresses', 'no-session', { name: 'x', ips: ['10.0.0.0/8'] }), 409, 'ERR_SYS_3001');
  expect(again.body).toEqual(first.body);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await changes()).toBe(0);
});

test('load, batch and commit with keys: a lost answer retried changes nothing more', async () => {
  await c.begin();
  const doc = { addresses: [{ name: 'l1', ips: ['10.1.0.0/16'] }] };
  const load = await send(c, 'PUT', '/api/config/candidate?mode=merge', 'load-1', doc);
  expect(load.status).toBe(200);
  expect((await send(c, 'PUT', '/api/config/candidate?mode=merge', 'load-1', doc)).body).toEqual(load.body);
  const ops = { operations: [{ method: 'POST', path: '/api/policies', body: { action: 'deny', 'src-addr': 'l1' } }] };
  const batch = await send(c, 'POST', '/api/config/batch', 'batch-1', ops);
  expect(batch.status).toBe(200);
  expect((await send(c, 'POST', '/api/config/batch', 'batch-1', ops)).body).toEqual(batch.body);
  expect(await changes()).toBe(2);
  const commit = await send(c, 'POST', '/api/config/commit', 'commit-1', { description: 'keyed' });
  expect(commit.status).toBe(200);
  const retry = await send(c, 'POST', '/api/config/commit', 'commit-1', { description: 'keyed' });
  expect({ status: retry.status, body: retry.body, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ status: 200, body: commit.body, replayed: 'true' });
  const versions = (await ok(c.get('/api/config/versions'))).body;
  expect(versions.filter((v: { description: string }) => v.description === 'keyed')).toHaveLength(1);
});

test('while the first request with the key still runs: 409 ERR_NET_1013 with Retry-After', async () => {
  await c.begin();
  const body = JSON.stringify({ name: 'busy', ips: ['10.2.0.0/16'] });
  // the first request, as far as the store knows, has claimed the key and not answered yet
  const print = fingerprint('POST', '/api/addresses?', 'application/json', Buffer.from(body));
  const user = { username: 'admin', role: 'admin', jti: (jwt.decode(c.token) as jwt.JwtPayload).jti } as AuthUser;
  const scope = idempotencyScope(user, 'running-key');
  expect(await d.daemon.daemon.ctx.store.claimIdempotencyKey(scope, print, 60_000)).toBeNull();
  const r = expectError(await c.raw('POST', '/api/addresses', body, { 'Idempotency-Key': 'running-key' }), 409, 'ERR_NET_1013');
  expect(r.headers.get('retry-after')).toBe('1');
  expect(await changes()).toBe(0);
  // once it is released (it failed with a 5xx), a retry runs
  await d.daemon.daemon.ctx.store.releaseIdempotencyKey(scope, print);
  expect((await c.raw('POST', '/api/addresses', body, { 'Idempotency-Key': 'running-key' })).status).toBe(200);
});

test('a malformed key is 400 ERR_NET_1004; a quoted key is the key; reads ignore the header', async () => {
  await c.begin();
  expectError(await send(c, 'POST', '/api/addresses', 'has space', { name: 'q', ips: ['10.3.0.0/16'] }), 400, 'ERR_NET_1004');
  expectError(await send(c, 'POST', '/api/addresses', 'x'.repeat(256), { name: 'q', ips: ['10.3.0.0/16'] }), 400, 'ERR_NET_1004');
  await ok(send(c, 'POST', '/api/addresses', '"quoted"', { name: 'q', ips: ['10.3.0.0/16'] }));
  expect((await send(c, 'POST', '/api/addresses', 'quoted', { name: 'q', ips: ['10.3.0.0/16'] })).headers.get('idempotent-replayed')).toBe('true');
  const read = await send(c, 'GET', '/api/addresses?config=candidate', 'quoted');
  expect(read.status).toBe(200);
  expect(read.headers.get('idempotent-replayed')).toBeNull();
});

test('the answers are kept in the store: a restarted daemon replays them', async () => {
  const dir = tempDir();
  let daemon = await startTestDaemon({}, dir);
  try {
    const a = await new Client(daemon.url).login();
    const first = await send(a, 'POST', '/api/config/begin', 'kept');
    expect(first.status).toBe(200);
    await daemon.close();
    daemon = await startTestDaemon({}, dir);
    const b = new Client(daemon.url);
    b.token = a.token; // the same credential: keys are per credential
    const again = await send(b, 'POST', '/api/config/begin', 'kept');
    expect({ status: again.status, body: again.body, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 200, body: first.body, replayed: 'true' });
  } finally {
    await daemon.close();
  }
});

test('FW_IDEMPOTENCY_TTL bounds how long an answer is kept', async () => {
  const short = await startTestDaemon({ FW_IDEMPOTENCY_TTL: '1' });
  try {
    const a = await new Client(short.url).login();
    expect((await send(a, 'POST', '/api/config/begin', 'ttl')).status).toBe(200);
    expect((await send(a, 'POST', '/api/config/discard', 'ttl')).status).toBe(422);
    await new Promise((r) => setTimeout(r, 1100));
    // the key is free again: this is a new request
    expect((await send(a, 'POST', '/api/config/discard', 'ttl')).status).toBe(200);
  } finally {
    await short.close();
  }
});
