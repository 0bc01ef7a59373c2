// Issue 38 item 3, the upgrade path: a cluster an older version ran has account records
// without a MAC and its JWT secret in Redis. The new version ignores those records (their
// login fails) and says what to do; `npm run adopt-records` lists them, and with --yes seals
// them and deletes the old secret; then the login works. The old secret itself is refused as
// FW_JWT_SECRET: anyone who could read Redis knows it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import Redis from 'ioredis';
import { ADMIN, ADMIN_PASSWORD, Client, tempDir } from '../helpers/daemon';
import { kill9, startChild, type Child } from '../helpers/process';
import { startRedis, type TestRedis } from '../helpers/redis';
import { hashPassword } from '../../src/auth/passwords';

jest.setTimeout(90_000);

const ADOPT = path.resolve(__dirname, '../../src/adopt-records.js');
const NEW_SECRET = 'new-cluster-secret-after-upgrade-8d1f0b7c6e5a4d3c2b1a0f9e';
const OLD_SECRET = 'b2xkLXNlY3JldC1rZXB0LWluLXJlZGlzLWJ5LWFuLW9sZGVyLXZlcnNpb24x';
let redis: TestRedis | undefined;
let node: Child | undefined;
let peek: Redis | undefined;

afterAll(async () => {
  peek?.disconnect();
  if (node && node.proc.exitCode === null && node.proc.signalCode === null) await kill9(node);
  await redis?.stop();
});

function adopt(env: Record<string, string>, args: string[] = []): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [ADOPT, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('records of an older version: ignored with a hint, listed, sealed by adopt-records --yes, then the login works', async () => {
  redis = await startRedis(tempDir('fwd-adopt-'));
  const name = `up${process.pid}`;
  peek = new Redis(redis.url);
  // what an older version left: an admin without a MAC, the secret it generated
  const old = { username: ADMIN, hash: await hashPassword(ADMIN_PASSWORD), createdAt: Date.now() - 86_400_000, role: 'admin', id: 'f00dcafe-0000-4000-8000-00000000a11e', epoch: 0 };
  await peek.hset(`fw:{${name}}:users`, ADMIN, JSON.stringify(old));
  await peek.set(`fw:{${name}}:secret`, OLD_SECRET);
  const env = { REDIS_URL: redis.url, FW_CLUSTER_NAME: name, FW_DATA_DIR: tempDir('fwd-adopt-d-') };

  await expect(startChild({ ...env, FW_JWT_SECRET: OLD_SECRET })).rejects.toThrow(/FW_JWT_SECRET is the secret an older version generated into Redis .* generate a new one/);

  node = await startChild({ ...env, FW_JWT_SECRET: NEW_SECRET });
  expect(node.stdout()).toMatch(/1 account or API-token records in Redis have no MAC .* run npm run adopt-records once/);
  expect(node.stdout()).toContain('Redis still holds the JWT secret an older version generated');
  expect((await new Client(node.url).post('/api/login', { username: ADMIN, password: ADMIN_PASSWORD })).status).toBe(401);
  // no new admin was made in its place: the old record is still there as it was
  expect(await peek.hget(`fw:{${name}}:users`, ADMIN)).toBe(JSON.stringify(old));

  const dry = adopt({ ...env, FW_JWT_SECRET: NEW_SECRET });
  expect(dry.err).toBe('');
  expect(dry.status).toBe(0);
  expect(dry.out).toContain(`account ${ADMIN} (role admin)`);
  expect(dry.out).toContain('nothing changed');
  expect((await new Client(node.url).post('/api/login', { username: ADMIN, password: ADMIN_PASSWORD })).status).toBe(401);

  const yes = adopt({ ...env, FW_JWT_SECRET: NEW_SECRET }, ['--yes']);
  expect(yes.status).toBe(0);
  expect(yes.out).toContain('sealed 1 account and 0 API-token records');
  expect(yes.out).toContain('deleted the JWT secret an older version kept in Redis');
  expect(await peek.exists(`fw:{${name}}:secret`)).toBe(0);
  const c = await new Client(node.url).login();
  expect((await c.get('/api/users')).status).toBe(200);

  // without FW_JWT_SECRET the command refuses, as the daemon does
  const none = adopt({ ...env });
  expect(none.status).toBe(1);
  expect(none.err).toContain('FW_JWT_SECRET is required in cluster mode');
});
