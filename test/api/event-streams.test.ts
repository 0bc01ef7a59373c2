// GET /api/events streams held to their credential and capped (issue 25, items 4 and 5), on
// the real server: a stream whose token is revoked, logged out, or whose account is deleted
// is ended (the others stay); a revocation the instance was never told of is found by the
// periodic check; FW_EVENT_STREAMS_PER_USER and FW_EVENT_STREAMS_MAX answer 429; a token in
// the URL (?access_token=) is refused; the descriptor limit is raised by Node, logged, and
// lowers the total cap (a real process under prlimit).
import { Client, expectError, ok, startTestDaemon, useDaemon, type TestDaemon } from '../helpers/daemon';
import { eventually } from '../helpers/cluster';
import { startChild, kill9, type Child } from '../helpers/process';
import { openEvents, type SseStream } from '../helpers/sse';
import { tempDir } from '../helpers/temp-dirs';

const d = useDaemon();
const streams: SseStream[] = [];
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

async function open(url: string, token: string, path = '/api/events'): Promise<SseStream> {
  const s = await openEvents(url, path, { Authorization: `Bearer ${token}` });
  streams.push(s);
  return s;
}

/** Whether the server ends the stream (bounded: a stream left open fails the test, not hangs it). */
function ends(s: SseStream, ms = 15_000): Promise<boolean> {
  return Promise.race([s.ended.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
}

let n = 0;
/** A new account of `role`, logged in (its name and password on the client). */
async function account(role: string, on: Client = d.client): Promise<Client & { username: string; password: string }> {
  const username = `es-${role}-${++n}`;
  const password = `${username}-password`;
  await ok(on.post('/api/users', { username, password, role }));
  return Object.assign(await new Client(on.url).login(username, password), { username, password });
}

async function apiToken(c: Client, name: string): Promise<string> {
  return (await ok(c.post('/api/tokens', { name, role: 'viewer' }))).body.token;
}

/** A stream that must stay open: it still gets the events of a session begun and discarded. */
async function stillStreams(s: SseStream): Promise<void> {
  await d.client.begin();
  await ok(d.client.post('/api/config/discard'));
  await s.next((m) => m.event === 'session' && m.data.state === 'discarded', 'session discarded');
}

async function reopenRefused(url: string, token: string): Promise<void> {
  const again = await open(url, token);
  expect({ status: again.status, code: again.error?.code }).toEqual({ status: 401, code: 'ERR_SEC_5003' });
}

test('a logged-out token\'s streams end; other credentials\' streams, the same user\'s included, go on', async () => {
  const viewer = await account('viewer');
  const other = await new Client(d.url).login(viewer.username, viewer.password); // a second login
  const s1 = await open(d.url, viewer.token);
  const s2 = await open(d.url, viewer.token, '/api/events?types=commit');
  const kept = await open(d.url, other.token);
  const admins = await open(d.url, d.client.token);
  expect([s1.status, s2.status, kept.status, admins.status]).toEqual([200, 200, 200, 200]);
  await ok(viewer.post('/api/logout'));
  expect(await ends(s1)).toBe(true);
  expect(await ends(s2)).toBe(true);
  await reopenRefused(d.url, viewer.token);
  await stillStreams(kept);
  await stillStreams(admins);
});

test('a revoked API token\'s stream ends (revoked by its owner or by an admin)', async () => {
  const op = await account('operator');
  const own = await apiToken(op, 'watch-own');
  const byAdmin = await apiToken(op, 'watch-admin');
  const s1 = await open(d.url, own);
  const s2 = await open(d.url, byAdmin);
  expect([s1.status, s2.status]).toEqual([200, 200]);
  await ok(op.del('/api/tokens/watch-own'));
  expect(await ends(s1)).toBe(true);
  await ok(d.client.del(`/api/tokens/watch-admin?owner=${op.username}`));
  expect(await ends(s2)).toBe(true);
  await reopenRefused(d.url, own);
  await reopenRefused(d.url, byAdmin);
});

test('a deleted user\'s streams end, of its login and of its API tokens; a user made again with the name gets no stream back', async () => {
  const viewer = await account('viewer');
  const op = await account('operator');
  const token = await apiToken(op, 'watch');
  const login = await open(d.url, viewer.token);
  const api = await open(d.url, token);
  expect([login.status, api.status]).toEqual([200, 200]);
  await ok(d.client.del(`/api/users/${viewer.username}`));
  await ok(d.client.del(`/api/users/${op.username}`));
  expect(await ends(login)).toBe(true);
  expect(await ends(api)).toBe(true);
  await reopenRefused(d.url, token);
  // the name given to a new admin account: the old token opens nothing
  await ok(d.client.post('/api/users', { username: op.username, password: 'another-password-1', role: 'admin' }));
  await reopenRefused(d.url, token);
});

test('a user whose password is reset by an admin has its streams ended, of its login and of its API tokens', async () => {
  const op = await account('operator');
  const token = await apiToken(op, 'watch-reset');
  const login = await open(d.url, op.token);
  const api = await open(d.url, token);
  expect([login.status, api.status]).toEqual([200, 200]);
  await ok(d.client.put(`/api/users/${op.username}`, { password: 'a-new-password-99' }));
  expect(await ends(login)).toBe(true);
  expect(await ends(api)).toBe(true);
  await reopenRefused(d.url, op.token);
});

test('a user whose role is changed keeps its stream (every role may read)', async () => {
  const viewer = await account('viewer');
  const s = await open(d.url, viewer.token);
  await ok(d.client.put(`/api/users/${viewer.username}`, { role: 'auditor' }));
  await stillStreams(s);
  expect(s.messages.length).toBeGreaterThan(0);
});

test('a token in the URL is refused with 400 ERR_NET_1004 saying what to send instead, with or without the header', async () => {
  const alone = expectError(await new Client(d.url).get(`/api/events?access_token=${d.client.token}`), 400, 'ERR_NET_1004');
  expect(alone.body.details).toMatch(/access_token.*Authorization: Bearer/);
  expect(alone.body.details).not.toContain(d.client.token);
  expectError(await d.client.get(`/api/events?access_token=${d.client.token}`), 400, 'ERR_NET_1004');
  // the document no longer offers it
  const doc = (await ok(d.client.get('/api/openapi.json'))).body;
  const params = (doc.paths['/api/events'].get.parameters ?? []).map((p: { name: string }) => p.name);
  expect(params).not.toContain('access_token');
  expect(Object.keys(doc.paths['/api/events'].get.responses)).toContain('429');
});

/** Runs `fn` with a daemon of its own (settings the shared one must not have), closed afterwards. */
async function withOwnDaemon(env: Record<string, string>, fn: (t: TestDaemon, admin: Client) => Promise<void>): Promise<void> {
  const t = await startTestDaemon(env);
  try {
    await fn(t, await new Client(t.url).login());
  } finally {
    for (const s of streams.splice(0)) s.close();
    await t.close();
  }
}

test('a revocation this instance was never told of (a lost cluster message) ends the stream at the next check (FW_EVENT_STREAMS_RECHECK)', async () => {
  await withOwnDaemon({ FW_EVENT_STREAMS_RECHECK: '1' }, async (t, admin) => {
    const viewer = await account('viewer', admin);
    const s = await open(t.url, viewer.token);
    expect(s.status).toBe(200);
    // revoked in the store behind the TokenService's back: its cache still holds the token
    const claims = JSON.parse(Buffer.from(viewer.token.split('.')[1], 'base64url').toString()) as { jti: string; exp: number };
    await t.daemon.ctx.store.revokeToken(claims.jti, claims.exp * 1000);
    expect(await ends(s)).toBe(true);
  });
});

test('caps: FW_EVENT_STREAMS_PER_USER per account, FW_EVENT_STREAMS_MAX in all, 429 ERR_SEC_5007 with Retry-After; a closed stream frees its slot', async () => {
  await withOwnDaemon({ FW_EVENT_STREAMS_PER_USER: '2', FW_EVENT_STREAMS_MAX: '3' }, async (t, admin) => {
    const viewer = await account('operator', admin);
    const token = await apiToken(viewer, 'cap'); // the same account: counted together
    const first = await open(t.url, viewer.token);
    await open(t.url, token);
    const third = expectError(await viewer.get('/api/events'), 429, 'ERR_SEC_5007');
    expect(third.body.details).toMatch(/2 event streams open.*FW_EVENT_STREAMS_PER_USER/);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    await open(t.url, admin.token); // another account: 3 in all
    const other = await account('viewer', admin);
    const full = expectError(await other.get('/api/events'), 429, 'ERR_SEC_5007');
    expect(full.body.details).toMatch(/3 event streams open.*FW_EVENT_STREAMS_MAX/);
    // the other requests of a capped account are served as ever
    await ok(viewer.get('/api/status'));
    first.close();
    expect(await eventually(async () => t.daemon.ctx.eventStreams.size === 2, 10_000)).toBe(true);
    expect((await open(t.url, viewer.token)).status).toBe(200);
  });
});

describe('the open file limit (a real process under prlimit)', () => {
  let child: Child | undefined;
  afterAll(async () => {
    if (child) await kill9(child);
  });

  test('the soft limit is raised to the hard one, logged at start, and FW_EVENT_STREAMS_MAX lowered to half of it', async () => {
    // soft 200, hard 300: Node raises the soft limit at start; 150 streams at most
    child = await startChild({ FW_DATA_DIR: tempDir(), FW_EVENT_STREAMS_PER_USER: '1000' }, undefined, undefined, [], ['prlimit', '--nofile=200:300', '--']);
    const line = child.stdout().split('\n').find((l) => l.includes('FW_EVENT_STREAMS_MAX lowered'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 40, nofile: { soft: 300, hard: 300 }, eventStreamsMax: 150, configured: 1000 });
    const c = await new Client(child.url).login();
    const opened = await Promise.all(Array.from({ length: 150 }, () => open(child!.url, c.token)));
    expect(opened.every((s) => s.status === 200)).toBe(true);
    const beyond = expectError(await c.get('/api/events'), 429, 'ERR_SEC_5007');
    expect(beyond.body.details).toMatch(/150 event streams open/);
    // the descriptors left still serve a login
    await new Client(child.url).login();
  });
});
