// GET /api/audit: every login, failed login, session begin / discard / force / expiry, change
// with its payload, commit and rollback; newest first, paged, filtered; each entry carries the
// X-Request-Id of its request, which is also in that request's log line.
import { Writable } from 'node:stream';
import pino from 'pino';
import { ADMIN, ADMIN_PASSWORD, Client, expectError, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';

interface Entry { id: number; time: string; user: string; action: string; details: string; requestId: string; payload?: unknown }

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); cb(); } });
const dir = tempDir();
let t: TestDaemon;
const admin = new Client('');
const other = new Client('');

async function audit(c: Client, query = ''): Promise<{ entries: Entry[]; next: number | null }> {
  return (await ok(c.get(`/api/audit${query}`))).body;
}

beforeAll(async () => {
  t = await startTestDaemon({ FW_LOG_LEVEL: 'info' }, dir, pino({ level: 'info' }, sink));
  admin.url = other.url = t.url;
  await admin.login();
  await ok(admin.post('/api/users', { username: 'ops', password: 'ops-password-123', role: 'admin' }));
  await other.login('ops', 'ops-password-123');
});

afterAll(async () => {
  await t?.close();
});

test('logins, failed logins, a session with a change, a commit, a rollback and discards are recorded with their request ids', async () => {
  expectError(await new Client(t.url).post('/api/login', { username: ADMIN, password: 'not-the-password' }), 401, 'ERR_SEC_5005');
  await admin.begin();
  const created = await admin.raw('POST', '/api/addresses', JSON.stringify({ name: 'web', ips: ['10.0.0.10/32'] }), { 'X-Request-Id': 'create-web-1' });
  expect(created.status).toBe(200);
  await ok(admin.post('/api/config/commit', { description: 'web server' }));
  await admin.begin();
  await ok(admin.post('/api/config/rollback', { version: 0 }));
  await ok(admin.post('/api/config/discard'));
  await other.begin();
  await ok(admin.post('/api/config/discard?force=true'));

  const { entries } = await audit(admin);
  const actions = entries.map((e) => `${e.user} ${e.action}`);
  // newest first
  expect(actions.slice(0, 10)).toEqual([
    'admin session.force-discard',
    'ops session.begin',
    'admin session.discard',
    'admin config.rollback',
    'admin session.begin',
    'admin config.commit',
    'admin change.create',
    'admin session.begin',
    'admin auth.login-failed',
    'ops auth.login',
  ]);
  const change = entries.find((e) => e.action === 'change.create')!;
  expect(change).toEqual(expect.objectContaining({ details: 'address web', requestId: 'create-web-1', payload: { name: 'web', ips: ['10.0.0.10/32'] } }));
  expect(entries.find((e) => e.action === 'session.force-discard')!.details).toBe('owner: ops');
  expect(entries.find((e) => e.action === 'config.commit')!.details).toBe('version 1');
  expect(entries.find((e) => e.action === 'config.rollback')!.payload).toEqual({ version: 0 });
  expect(entries.find((e) => e.action === 'user.create')!.details).toBe('ops');
  // ids go down, times are ISO, every request id is set
  for (let i = 1; i < entries.length; i++) expect(entries[i].id).toBeLessThan(entries[i - 1].id);
  for (const e of entries) {
    expect(new Date(e.time).toISOString()).toBe(e.time);
    expect(e.requestId).not.toBe('');
  }
  // the same id is in the log line of the request, and in the answer's header
  expect(lines.some((l) => l.msg === 'request' && l.reqId === 'create-web-1' && l.path === '/api/addresses')).toBe(true);
  const failed = entries.find((e) => e.action === 'auth.login-failed')!;
  expect(lines.some((l) => l.msg === 'login failed' && l.reqId === failed.requestId)).toBe(true);
  // no secrets: neither password reached the audit trail
  const all = JSON.stringify(entries);
  expect(all).not.toContain(ADMIN_PASSWORD);
  expect(all).not.toContain('ops-password-123');
  expect(all).not.toContain('not-the-password');
});

test('pages: ?limit= and ?before= walk the trail newest first without gaps; filters by user and action', async () => {
  const whole = (await audit(admin, '?limit=1000')).entries;
  expect(whole.length).toBeGreaterThan(8);
  const walked: Entry[] = [];
  let next: number | null = null;
  do {
    const page: { entries: Entry[]; next: number | null } = await audit(admin, `?limit=3${next === null ? '' : `&before=${next}`}`);
    expect(page.entries.length).toBeLessThanOrEqual(3);
    walked.push(...page.entries);
    next = page.next;
  } while (next !== null);
  expect(walked.map((e) => e.id)).toEqual(whole.map((e) => e.id));

  const ops = (await audit(admin, '?user=ops')).entries;
  expect(ops.length).toBeGreaterThan(0);
  expect(ops.every((e) => e.user === 'ops')).toBe(true);
  const sessions = (await audit(admin, '?action=session')).entries;
  expect(new Set(sessions.map((e) => e.action))).toEqual(new Set(['session.begin', 'session.discard', 'session.force-discard']));
  const begins = (await audit(admin, '?action=session.begin&user=admin')).entries;
  expect(begins.length).toBe(2);
});

test('bad paging parameters are 400 with the parameter named', async () => {
  expect(expectError(await admin.get('/api/audit?limit=0'), 400, 'ERR_NET_1008').body.details).toMatch(/limit/);
  expect(expectError(await admin.get('/api/audit?limit=abc'), 400, 'ERR_NET_1005').body.details).toMatch(/limit/);
  expect(expectError(await admin.get('/api/audit?before=-1'), 400, 'ERR_NET_1005').body.details).toMatch(/before/);
  expectError(await new Client(t.url).get('/api/audit'), 401, 'ERR_SEC_5001');
});

test('the trail survives a restart with the same ids', async () => {
  const before = (await audit(admin, '?limit=1000')).entries;
  await t.close();
  t = await startTestDaemon({ FW_LOG_LEVEL: 'info' }, dir, pino({ level: 'info' }, sink));
  admin.url = t.url;
  await admin.login();
  const after = (await audit(admin, '?limit=1000')).entries;
  expect(after.slice(1)).toEqual(before); // the newest is the login just made
  expect(after[0]).toEqual(expect.objectContaining({ action: 'auth.login', id: before[0].id + 1 }));
});

// on Redis the session's lease outlives the timeout by a few seconds, so an instance's sweep
// ends it (and records it) first; the lease is the backstop when no instance runs
test('an idle session that expires is recorded', async () => {
  const s = await startTestDaemon({ FW_SESSION_TIMEOUT: '1' });
  try {
    const c = await new Client(s.url).login();
    await c.begin();
    // the expiry sweep runs every second; wait for the entry, however long the machine takes
    let expired: Entry | undefined;
    while (!expired) {
      await new Promise((r) => setTimeout(r, 200));
      expired = (await audit(c, '?action=session.expire')).entries[0];
    }
    expect(expired).toEqual(expect.objectContaining({ user: ADMIN, requestId: '' }));
  } finally {
    await s.close();
  }
});
