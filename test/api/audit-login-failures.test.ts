// Failed logins have a budget of their own in the audit trail (FW_AUDIT_LOGIN_FAILURES_KEEP)
// and never count against FW_AUDIT_KEEP: a spray from many names and addresses, window after
// window, cannot push the admin's account and configuration changes out of a trail of 100
// (issue 25, item 6). Aggregation alone (test/api/login-names.test.ts) only slowed this: each
// window adds up to 41 failed-login entries, so three windows pushed a user.create out. The
// spray here is the one that writes most per failure: every failed login becomes an entry.
import fs from 'node:fs';
import path from 'node:path';
import IORedis from 'ioredis';
import { Client, expectError, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';

interface Entry { id: number; user: string; action: string; details: string }

// a window longer than this file runs: each restart ends one (its counts are recorded at the stop)
const ENV = {
  FW_AUDIT_KEEP: '100', FW_AUDIT_LOGIN_FAILURES_KEEP: '50', FW_LOGIN_MAX_FAILURES: '1000', FW_LOGIN_WINDOW: '600', FW_TRUSTED_PROXIES: '127.0.0.1',
};
const dir = tempDir();
let t: TestDaemon | undefined;
const admin = new Client('');

async function start(): Promise<void> {
  t = await startTestDaemon(ENV, dir);
  admin.url = t.url;
  await admin.login();
}

async function restart(): Promise<void> {
  await t!.close();
  t = undefined;
  await start();
}

beforeAll(start);
afterAll(async () => {
  await t?.close();
});

async function page(query: string): Promise<{ entries: Entry[]; next: number | null }> {
  return (await ok(admin.get(`/api/audit?${query}`))).body;
}

function failLogin(username: string, from: string): Promise<void> {
  return new Client(admin.url).raw('POST', '/api/login', JSON.stringify({ username, password: 'not-the-password' }), { 'X-Forwarded-For': from })
    .then((r) => void expectError(r, 401, 'ERR_SEC_5005'));
}

/** 41 failed logins: 20 (name, address) pairs twice, one more pair once; 41 entries once the window ends
 * (20 first failures, 20 "1 more", one for the pair past 20). */
async function spray(round: number): Promise<void> {
  const pairs = Array.from({ length: 20 }, (_, i) => [`r${round}-n${i}`, `203.0.113.${i + 1}`] as const);
  await Promise.all(pairs.map(([name, from]) => failLogin(name, from)));
  await failLogin(`r${round}-n20`, '203.0.113.21'); // after the 20: the one counted apart
  await Promise.all(pairs.map(([name, from]) => failLogin(name, from)));
}

const isFailure = (e: Entry) => e.action === 'auth.login-failed';

test('123 failed logins over three windows keep the admin\'s user.create in a trail of 100; the failures keep their newest 50', async () => {
  await ok(admin.post('/api/users', { username: 'keeper', password: 'keeper-password-1' }));
  for (let round = 0; round < 3; round++) {
    await spray(round);
    await restart();
  }
  const { entries } = await page('limit=1000');
  expect(entries.find((e) => e.action === 'user.create' && e.details === 'keeper')).toBeDefined();
  // 123 entries recorded: the newest 50, the last window's 41 among them; none of the first window's
  const failures = entries.filter(isFailure);
  expect(failures).toHaveLength(50);
  expect(failures.filter((e) => e.user.startsWith('r2-')).length).toBe(40);
  expect(failures.filter((e) => e.user.startsWith('r0-'))).toEqual([]);
  // one order for both kinds: ids unique and decreasing
  const ids = entries.map((e) => e.id);
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
  expect(new Set(ids).size).toBe(ids.length);
  // the other entries (the admin's four logins, user.create) are all there
  expect(entries.filter((e) => !isFailure(e)).map((e) => e.action)).toEqual(['auth.login', 'auth.login', 'auth.login', 'user.create', 'auth.login']);
}, 180_000); // 123 scrypt verifications and three restarts on a shared machine

test('pages and filters see both kinds merged, newest first', async () => {
  const { entries } = await page('limit=1000');
  const paged: Entry[] = [];
  for (let before: number | null | undefined; before !== null;) {
    const p = await page(`limit=7${before === undefined ? '' : `&before=${before}`}`);
    paged.push(...p.entries);
    before = p.next;
  }
  expect(paged).toEqual(entries);
  expect((await page('limit=1000&action=auth.login-failed')).entries).toEqual(entries.filter(isFailure));
  expect((await page('limit=1000&action=auth')).entries).toEqual(entries.filter((e) => e.action.startsWith('auth.')));
  expect((await page('limit=1000&action=user')).entries.map((e) => e.details)).toEqual(['keeper']);
  const ghost = entries.find((e) => e.user.startsWith('r2-'))!;
  expect((await page(`limit=1000&user=${ghost.user}`)).entries).toEqual(entries.filter((e) => e.user === ghost.user));
  const middle = entries.find((e) => e.action === 'user.create')!.id;
  expect((await page(`limit=3&before=${middle}`)).entries).toEqual(entries.filter((e) => e.id < middle).slice(0, 3));
});

test('the store holds the failed logins within their budget: the Redis stream of its own, the lines of audit.log', async () => {
  if (t!.redis) {
    const r = new IORedis(t!.redis.url);
    try {
      expect(await r.xlen('fw:{default}:audit-login-failures')).toBe(50);
      expect(await r.xlen('fw:{default}:audit')).toBe(5);
    } finally {
      r.disconnect();
    }
  } else {
    const lines = fs.readFileSync(path.join(t!.dir, 'audit.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Entry);
    // rewritten once a quarter of the budget more than kept was recorded: at most 50 + 12
    expect(lines.filter(isFailure).length).toBeLessThanOrEqual(62);
    expect(lines.filter((e) => !isFailure(e))).toHaveLength(5);
  }
});

test('FW_AUDIT_LOGIN_FAILURES_KEEP must be a whole number: the daemon refuses to start otherwise', async () => {
  await expect(startTestDaemon({ FW_AUDIT_LOGIN_FAILURES_KEEP: 'lots' }, tempDir())).rejects.toThrow(/FW_AUDIT_LOGIN_FAILURES_KEEP must be an integer/);
  await expect(startTestDaemon({ FW_AUDIT_LOGIN_FAILURES_KEEP: '-1' }, tempDir())).rejects.toThrow(/FW_AUDIT_LOGIN_FAILURES_KEEP must be an integer/);
});
