// Retention over HTTP (issue 15), on both stores: with FW_VERSIONS_KEEP=3 only the newest three
// versions are listed and readable, a pruned one answers 404 ERR_NET_1003 (also to a
// rollback, which then changes nothing); with FW_AUDIT_KEEP=5 the audit trail lists the newest
// five entries. What the store holds is bounded the same way (version files or Redis keys:
// the kept versions and the keyframe and deltas the oldest of them is read from, at most
// KEYFRAME_EVERY more), and a restart on the same data finds the same.
import fs from 'node:fs';
import path from 'node:path';
import IORedis from 'ioredis';
import { KEYFRAME_EVERY } from '../../src/store/version-deltas';
import { Client, expectError, expectMessage, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';

const KEEP = { FW_VERSIONS_KEEP: '3', FW_AUDIT_KEEP: '5' };

let t: TestDaemon | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(env: Record<string, string>, dir: string): Promise<Client> {
  t = await startTestDaemon(env, dir);
  return new Client(t.url).login();
}

async function commitAddress(c: Client, name: string): Promise<void> {
  await c.begin();
  await ok(c.post('/api/addresses', { name, ips: ['10.0.0.1/32'] }));
  expectMessage(await c.post('/api/config/commit', { description: name }), 'commit successful');
}

const listed = async (c: Client) => ((await ok(c.get('/api/config/versions'))).body as Array<{ version: number }>).map((v) => v.version);
const auditIds = async (c: Client) => ((await ok(c.get('/api/audit?limit=1000'))).body.entries as Array<{ id: number }>).map((e) => e.id);

/** Committed versions the store itself holds, whole or as deltas: version files, or version keys in Redis. */
async function storedVersions(d: TestDaemon): Promise<number[]> {
  const numbers = (names: string[]) => [...new Set(names.map((f) => parseInt(f, 10)))].sort((a, b) => a - b);
  if (!d.redis) return numbers(fs.readdirSync(path.join(d.dir, 'versions')));
  const r = new IORedis(d.redis.url);
  try {
    const keys = [...(await r.keys('fw:{default}:version:*')), ...(await r.keys('fw:{default}:version-delta:*'))];
    return numbers(keys.map((k) => k.split(':').pop()!));
  } finally {
    r.disconnect();
  }
}

/** What a store may hold with `kept` listed: those, and below them the keyframe and deltas the oldest is read from. */
function expectStoredFor(stored: number[], kept: number[]): void {
  const first = stored[0];
  expect(stored).toEqual(Array.from({ length: kept[kept.length - 1] - first + 1 }, (_, i) => first + i));
  expect(first).toBeLessThanOrEqual(kept[0]);
  expect(kept[0] - first).toBeLessThanOrEqual(KEYFRAME_EVERY);
}

test('only the newest FW_VERSIONS_KEEP versions are listed, read and stored; a pruned one is 404, also to a rollback', async () => {
  const dir = tempDir();
  let c = await start(KEEP, dir);
  for (let i = 1; i <= 6; i++) await commitAddress(c, `a${i}`);
  expect(await listed(c)).toEqual([4, 5, 6]);
  const kept = await ok(c.get('/api/config/versions/4'));
  expect(kept.body.config.addresses.map((a: { name: string }) => a.name)).toEqual(['a1', 'a2', 'a3', 'a4']);
  expectError(await c.get('/api/config/versions/3'), 404, 'ERR_NET_1003');
  expectError(await c.get('/api/config/versions/0'), 404, 'ERR_NET_1003');

  await c.begin();
  const refused = expectError(await c.post('/api/config/rollback', { version: 2 }), 404, 'ERR_NET_1003');
  expect(refused.body.details).toMatch(/version 2/);
  expect((await c.get('/api/config/session')).body.changes).toBe(0);
  expectMessage(await c.post('/api/config/rollback', { version: 4 }), 'version 4 loaded into candidate');
  expectMessage(await c.post('/api/config/commit', { description: 'back to 4' }), 'commit successful');
  expect(await listed(c)).toEqual([5, 6, 7]);
  expect(Object.keys((await ok(c.get('/api/addresses'))).body)).toEqual(['a1', 'a2', 'a3', 'a4']);

  const audit = await auditIds(c);
  expect(audit).toHaveLength(5);
  expect(audit).toEqual([audit[0], audit[0] - 1, audit[0] - 2, audit[0] - 3, audit[0] - 4]);
  expect((await ok(c.get(`/api/audit?before=${audit[4]}`))).body.entries).toEqual([]);

  await t!.close(); // the embedded store deletes pruned files before it closes
  c = await start(KEEP, dir); // the same data folder (and Redis append-only file)
  expect(await listed(c)).toEqual([5, 6, 7]);
  expectError(await c.get('/api/config/versions/4'), 404, 'ERR_NET_1003');
  const after = await auditIds(c);
  expect(after.slice(1)).toEqual(audit.slice(0, 4)); // the login after the restart is the newest
  expectStoredFor(await storedVersions(t!), [5, 6, 7]);
  // the pruned ones below the keyframe are gone once the oldest kept is read from a newer one
  for (let i = 1; i <= KEYFRAME_EVERY + 1; i++) await commitAddress(c, `c${i}`);
  const newest = await listed(c);
  expect(newest).toHaveLength(3);
  expectStoredFor(await storedVersions(t!), newest);
  expect((await storedVersions(t!))[0]).toBeGreaterThan(7);
});

test('FW_VERSIONS_KEEP=0 keeps every version', async () => {
  const c = await start({ FW_VERSIONS_KEEP: '0' }, tempDir());
  for (let i = 1; i <= 4; i++) await commitAddress(c, `b${i}`);
  expect(await listed(c)).toEqual([0, 1, 2, 3, 4]);
  expect(await storedVersions(t!)).toEqual([0, 1, 2, 3, 4]);
  expect((await ok(c.get('/api/config/versions/0'))).body.description).toBe('initial configuration');
});

test('FW_VERSIONS_KEEP (0 or at least 2) and FW_AUDIT_KEEP must be whole numbers: the daemon refuses to start otherwise', async () => {
  await expect(startTestDaemon({ FW_VERSIONS_KEEP: '-1' }, tempDir())).rejects.toThrow(/FW_VERSIONS_KEEP must be an integer/);
  await expect(startTestDaemon({ FW_AUDIT_KEEP: 'lots' }, tempDir())).rejects.toThrow(/FW_AUDIT_KEEP must be an integer/);
  await expect(startTestDaemon({ FW_VERSIONS_KEEP: '1' }, tempDir())).rejects.toThrow(/FW_VERSIONS_KEEP must be 0 \(keep all\) or at least 2/);
});
