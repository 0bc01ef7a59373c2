// Commit confirmed over HTTP: a commit with confirm_timeout is running at once and shown as
// pending; POST /api/config/confirm or a later plain commit keeps it; left alone, the daemon
// restores the previous version by itself (a new version saying so, audited, streamed); a
// session open at that moment is ended; a restart after the deadline reverts at start.
import { Client, expectError, expectMessage, ok, startTestDaemon, tempDir, TEST_STORE, useDaemon } from '../helpers/daemon';
import { openEvents, type SseStream } from '../helpers/sse';
import { startRedis } from '../helpers/redis';

const d = useDaemon();
const streams: SseStream[] = [];
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

async function events(c: Client = d.client): Promise<SseStream> {
  const s = await openEvents(c.url, '/api/events?types=confirm,commit,session', { Authorization: `Bearer ${c.token}` });
  streams.push(s);
  return s;
}

/** Begins, adds an address and commits with `body`; answers the commit's answer. */
async function commitAddress(c: Client, name: string, body: Record<string, unknown>) {
  await c.begin();
  await ok(c.post('/api/addresses', { name, ips: ['198.51.100.7'] }));
  return expectMessage(await c.post('/api/config/commit', body), 'commit successful');
}

async function runningHas(c: Client, name: string): Promise<boolean> {
  return (await c.get(`/api/addresses/${name}`)).status === 200;
}

/** Polls until `check` holds (the revert runs on the daemon's one-second sweep). */
async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a confirm with nothing pending is 409 ERR_SYS_3004; bad confirm_timeout values are refused', async () => {
  expect(expectError(await d.client.post('/api/config/confirm'), 409, 'ERR_SYS_3004').body.details).toMatch(/no commit confirmed is pending/);
  await d.client.begin();
  expectError(await d.client.post('/api/config/commit', { confirm_timeout: 0 }), 400, 'ERR_NET_1008');
  expectError(await d.client.post('/api/config/commit', { confirm_timeout: 86_401 }), 400, 'ERR_NET_1008');
  expectError(await d.client.post('/api/config/commit', { confirm_timeout: 'soon' }), 400, 'ERR_NET_1004');
  expectError(await d.client.post('/api/config/commit', { confirm_timeout: 1.5 }), 400, 'ERR_NET_1004');
  expect((await d.client.get('/api/config/session')).body).toEqual(expect.objectContaining({ active: true, pending_confirm: null }));
  await ok(d.client.post('/api/config/discard'));
});

test('confirmed in time: running stays, pending is shown until the confirm, a second confirm is 409', async () => {
  const ev = await events();
  const r = await commitAddress(d.client, 'cc-kept', { description: 'risky', confirm_timeout: 600 });
  const version = Number(r.body.version);
  const deadline = Date.parse(r.body.confirm_by);
  expect(deadline).toBeGreaterThan(Date.now() + 590_000);
  expect(await runningHas(d.client, 'cc-kept')).toBe(true);
  const s = (await ok(d.client.get('/api/config/session'))).body;
  expect(s.pending_confirm).toEqual({ version, author: 'admin', deadline: r.body.confirm_by });
  expect((await ok(d.client.get('/api/status'))).body.session.pending_confirm).toEqual(s.pending_confirm);
  expect(expectMessage(await d.client.post('/api/config/confirm'), 'commit confirmed').body.version).toBe(String(version));
  expect((await ok(d.client.get('/api/config/session'))).body.pending_confirm).toBeNull();
  expectError(await d.client.post('/api/config/confirm'), 409, 'ERR_SYS_3004');
  expect(await runningHas(d.client, 'cc-kept')).toBe(true);
  const pending = await ev.next((m) => m.event === 'confirm' && m.data.state === 'pending', 'confirm pending');
  expect(pending.data).toEqual(expect.objectContaining({ version, user: 'admin', deadline: r.body.confirm_by }));
  await ev.next((m) => m.event === 'confirm' && m.data.state === 'confirmed' && m.data.version === version, 'confirm confirmed');
  const entries = (await ok(d.client.get('/api/audit?action=config.confirm'))).body.entries;
  expect(entries[0]).toEqual(expect.objectContaining({ user: 'admin', details: `version ${version}` }));
});

test('only the author or an admin may confirm: another operator is 403 ERR_SEC_5008, with a login JWT or an API token', async () => {
  const operator = async (username: string) => {
    await ok(d.client.post('/api/users', { username, password: 'operator-password-1', role: 'operator' }));
    const login = await new Client(d.url).login(username, 'operator-password-1');
    const api = new Client(d.url);
    api.token = (await ok(login.post('/api/tokens', { name: 'pipeline', role: 'operator' }))).body.token;
    return { login, api };
  };
  const author = await operator('cc-author');
  const other = await operator('cc-other');
  const version = (await commitAddress(author.login, 'cc-owned', { confirm_timeout: 600 })).body.version;
  for (const c of [other.login, other.api]) {
    const r = expectError(await c.post('/api/config/confirm'), 403, 'ERR_SEC_5008');
    expect(r.body.details).toBe('confirming another user\'s commit needs role admin; your role: operator' + (c === other.api ? ' (API token "pipeline")' : ''));
  }
  expect((await ok(d.client.get('/api/config/session'))).body.pending_confirm).toMatchObject({ version: Number(version), author: 'cc-author' });
  // the author, with any of its credentials
  expect(expectMessage(await author.api.post('/api/config/confirm'), 'commit confirmed').body.version).toBe(version);
  // an admin may confirm anyone's
  const next = (await commitAddress(author.login, 'cc-owned-2', { confirm_timeout: 600 })).body.version;
  expectError(await other.api.post('/api/config/confirm'), 403, 'ERR_SEC_5008');
  expect(expectMessage(await d.client.post('/api/config/confirm'), 'commit confirmed').body.version).toBe(next);
});

test('a later plain commit confirms the pending one (Junos semantics)', async () => {
  const ev = await events();
  const first = Number((await commitAddress(d.client, 'cc-first', { confirm_timeout: 600 })).body.version);
  // a session may begin while a confirmation is pending
  const second = await commitAddress(d.client, 'cc-second', { description: 'plain' });
  expect(second.body.confirm_by).toBeUndefined();
  expect((await ok(d.client.get('/api/config/session'))).body.pending_confirm).toBeNull();
  expectError(await d.client.post('/api/config/confirm'), 409, 'ERR_SYS_3004');
  const e = await ev.next((m) => m.event === 'confirm' && m.data.state === 'confirmed' && m.data.version === first, 'confirmed by commit');
  expect(e.data.user).toBe('admin');
  const audit = (await ok(d.client.get('/api/audit?action=config.confirm'))).body.entries[0];
  expect(audit.details).toBe(`version ${first}, by the commit of version ${second.body.version}`);
});

test('not confirmed: the daemon restores the previous version as a new version, audited and streamed; an open session is ended', async () => {
  const ev = await events();
  const before = (await ok(d.client.get('/api/config/versions'))).body.length - 1;
  const r = await commitAddress(d.client, 'cc-lost', { description: 'cuts access', confirm_timeout: 1 });
  const version = Number(r.body.version);
  expect(version).toBe(before + 1);
  await d.client.begin(); // begun on the version that is going away
  await until('the revert', async () => !(await runningHas(d.client, 'cc-lost')));
  const versions = (await ok(d.client.get('/api/config/versions'))).body;
  const last = versions[versions.length - 1];
  expect(last).toEqual(expect.objectContaining({ version: version + 1, author: 'system' }));
  expect(last.description).toMatch(new RegExp(`^automatic rollback: version ${version} \\(commit confirmed by admin\\) was not confirmed by .*; restores version ${before}$`));
  expect(last.summary).toMatch(/1 deleted/);
  const session = (await ok(d.client.get('/api/config/session'))).body;
  expect(session).toEqual(expect.objectContaining({ active: false, pending_confirm: null }));
  expectError(await d.client.post('/api/config/confirm'), 409, 'ERR_SYS_3004');
  const reverted = await ev.next((m) => m.event === 'confirm' && m.data.state === 'reverted', 'confirm reverted');
  expect(reverted.data).toEqual(expect.objectContaining({ version, user: 'system', restored_version: before, new_version: version + 1 }));
  const discarded = await ev.next((m) => m.event === 'session' && m.data.state === 'discarded' && m.data.owner === 'admin', 'session discarded');
  expect(discarded.data.user).toBe('system');
  const audit = (await ok(d.client.get('/api/audit?action=config.revert'))).body.entries[0];
  expect(audit).toEqual(expect.objectContaining({ user: 'system', details: expect.stringMatching(new RegExp(`as version ${version + 1}$`)) }));
  // the configuration is usable afterwards: a new session commits on top of the restored version
  await commitAddress(d.client, 'cc-after', {});
  expect(await runningHas(d.client, 'cc-after')).toBe(true);
});

test('a deadline that passes while the daemon is stopped is acted on at start', async () => {
  const dir = tempDir();
  // on Redis, the same redis-server outlives both daemons
  const redis = TEST_STORE === 'redis' ? await startRedis(dir + '/redis') : null;
  const env: Record<string, string> = redis ? { REDIS_URL: redis.url } : {};
  try {
    const first = await startTestDaemon(env, dir);
    let version: number;
    try {
      const c = await new Client(first.url).login();
      version = Number((await commitAddress(c, 'cc-offline', { confirm_timeout: 1 })).body.version);
    } finally {
      await first.close();
    }
    await new Promise((r) => setTimeout(r, 1500)); // past the deadline, nothing running
    const second = await startTestDaemon(env, dir);
    try {
      const c = await new Client(second.url).login();
      // reverted before the daemon answered its first request
      const versions = (await ok(c.get('/api/config/versions'))).body;
      expect(versions[versions.length - 1]).toEqual(expect.objectContaining({ version: version + 1, author: 'system' }));
      expect(await runningHas(c, 'cc-offline')).toBe(false);
    } finally {
      await second.close();
    }
  } finally {
    await redis?.stop();
  }
});
