// Login names from anyone: a name no account can have (too long, control or bidi characters,
// JSON) is refused before anything is counted, logged or recorded; failed logins reach the
// audit trail bounded and aggregated per (name, address) and window, so that a flood of them
// does not push account and configuration changes out of a trail of FW_AUDIT_KEEP entries;
// nothing recorded keeps a control or bidi character.
import { Writable } from 'node:stream';
import pino from 'pino';
import { Client, expectError, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';

interface Entry { id: number; user: string; action: string; details: string; requestId: string; payload?: unknown }

const lines: string[] = [];
const sink = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
// a window longer than this file runs: what is counted is recorded when the daemon stops
const ENV = { FW_AUDIT_KEEP: '100', FW_LOGIN_MAX_FAILURES: '1000', FW_LOGIN_WINDOW: '600', FW_TRUSTED_PROXIES: '127.0.0.1', FW_LOG_LEVEL: 'info' };
const dir = tempDir();
let t: TestDaemon | undefined;
const admin = new Client('');

async function start(): Promise<void> {
  t = await startTestDaemon(ENV, dir, pino({ level: 'info' }, sink));
  admin.url = t.url;
  await admin.login();
}

beforeAll(start);
afterAll(async () => {
  await t?.close();
});

async function trail(): Promise<Entry[]> {
  return (await ok(admin.get('/api/audit?limit=1000'))).body.entries;
}

function failLogin(username: string, from: string): Promise<void> {
  return new Client(admin.url).raw('POST', '/api/login', JSON.stringify({ username, password: 'not-the-password' }), { 'X-Forwarded-For': from })
    .then((r) => void expectError(r, 401, 'ERR_SEC_5005'));
}

/** How many failed logins the failed-login entries of `user` stand for ("from A" is one, "from A: N more ..." N). */
function failuresOf(entries: Entry[], user: string): number {
  return entries.filter((e) => e.action === 'auth.login-failed' && e.user === user)
    .reduce((n, e) => n + (/: (\d+) more within /.exec(e.details) ? Number(/: (\d+) more within /.exec(e.details)![1]) : 1), 0);
}

test('a name no account can have is refused before anything is counted, logged or recorded', async () => {
  const before = (await trail())[0].id;
  const logged = lines.length;
  const a = new Client(admin.url);
  // 512 KiB: under FW_MAX_BODY, over the login's own bound
  const big = await a.raw('POST', '/api/login', JSON.stringify({ username: 'x'.repeat(512 * 1024), password: 'not-the-password' }));
  expect(expectError(big, 413, 'ERR_NET_1010').body.details).toBe('body is over 8192 bytes');
  for (const username of ['y'.repeat(65), '\u202Eadmin', 'ad\nmin', '{"user":"admin","role":"admin"}', 'admin\u0000', '']) {
    const r = expectError(await a.post('/api/login', { username, password: 'not-the-password' }), 400, 'ERR_NET_1004');
    // a NUL is refused by the body check, before the name rule sees it
    expect(r.body.details).toMatch(username.includes('\u0000') ? /^field "username": contains a NUL character$/ : /^field "username": a name is 1-64 characters/);
  }
  expect((await trail())[0].id).toBe(before);
  const since = lines.slice(logged).join('');
  expect(since).not.toContain('login failed');
  expect(since).not.toContain('yyyyyyyy');
  expect(since).not.toContain('\\u202e');
});

test('120 failed logins of one name from one address do not push the admin\'s user.create out of a trail of 100', async () => {
  await ok(admin.post('/api/users', { username: 'keeper', password: 'keeper-password-1' }));
  for (let i = 0; i < 12; i++) await Promise.all(Array.from({ length: 10 }, () => failLogin('ghost', '198.51.100.1')));
  const entries = await trail();
  expect(entries.find((e) => e.action === 'user.create' && e.details === 'keeper')).toBeDefined();
  // the first failure, with its request id; the other 119 counted for the window's end
  expect(entries.filter((e) => e.user === 'ghost').map((e) => e.details)).toEqual(['from 198.51.100.1']);
});

test('past 20 (name, address) pairs in a window, failures are only counted, into one entry', async () => {
  const before = (await trail()).filter((e) => e.action === 'auth.login-failed').length;
  await Promise.all(Array.from({ length: 25 }, (_, i) => failLogin(`spray${i}`, `203.0.113.${i + 1}`)));
  const itemized = (await trail()).filter((e) => e.action === 'auth.login-failed').length - before;
  // ghost's pair is one of this window's 20: 19 more are itemized
  expect(itemized).toBe(19);
});

test('the counted failures are recorded as one entry per pair and one for the rest when the window ends (here: the stop)', async () => {
  await t!.close();
  t = undefined;
  await start();
  const entries = await trail();
  expect(entries.filter((e) => e.user === 'ghost').map((e) => e.details)).toEqual(['from 198.51.100.1: 119 more within 600 s', 'from 198.51.100.1']);
  expect(failuresOf(entries, 'ghost')).toBe(120);
  const rest = entries.filter((e) => e.action === 'auth.login-failed' && e.user === '');
  expect(rest.map((e) => e.details)).toEqual(['6 failed logins of other names or addresses within 600 s (more than 20 pairs failed)']);
  expect(entries.find((e) => e.action === 'user.create' && e.details === 'keeper')).toBeDefined();
});

test('control and bidi characters never reach the trail: a change\'s payload is recorded without them', async () => {
  await admin.begin();
  await ok(admin.post('/api/routes', { destination: '10.99.0.0/16', interface: 'eth3', description: 'safe\u202Etxt.exe\nforged line' }));
  const change = (await trail()).find((e) => e.action === 'change.create' && e.details.startsWith('route'))!;
  expect(change.payload).toEqual({ destination: '10.99.0.0/16', interface: 'eth3', description: 'safetxt.exeforged line' });
  await ok(admin.post('/api/config/discard'));
});
