// Issue 38 item 3: a Redis without authentication used to be taken silently. Now the start
// asks Redis as a client without credentials: when it answers, the daemon warns loudly (log,
// GET /api/status store_warnings, GET /readyz warnings, the metric fwd_redis_unauthenticated)
// and, unless Redis is on loopback or FW_REDIS_INSECURE=1, refuses to start.
import os from 'node:os';
import { Client, tempDir } from '../helpers/daemon';
import { kill9, startChild, type Child } from '../helpers/process';
import { startRedis, type TestRedis } from '../helpers/redis';
import { fwctl } from '../helpers/fwctl';

jest.setTimeout(90_000);

const servers: TestRedis[] = [];
const children: Child[] = [];

afterAll(async () => {
  await Promise.all(children.filter((c) => c.proc.exitCode === null && c.proc.signalCode === null).map(kill9));
  await Promise.all(servers.map((s) => s.stop()));
});

async function redis(extra: string[] = []): Promise<TestRedis> {
  const r = await startRedis(tempDir('fwd-redis-open-'), extra);
  servers.push(r);
  return r;
}

async function instance(env: Record<string, string>): Promise<{ child: Child; admin: Client }> {
  const child = await startChild({ FW_DATA_DIR: tempDir('fwd-redis-open-d-'), FW_CLUSTER_NAME: `o${process.pid}${children.length}`, FW_ANALYSIS_TIMEOUT: '0', ...env });
  children.push(child);
  return { child, admin: await new Client(child.url).login() };
}

/** This host's first address that is not loopback (the test needs one: a Redis reached over the network). */
function networkAddress(): string {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  throw new Error('this host has no IPv4 address other than loopback: the test needs one');
}

async function warnings(admin: Client): Promise<{ status: string[]; ready: Record<string, string> | undefined; metric: string | undefined }> {
  const status = await admin.get('/api/status');
  const ready = await admin.get('/readyz');
  const metrics = await admin.get('/metrics');
  return { status: status.body.store_warnings, ready: ready.body.warnings, metric: /^fwd_redis_unauthenticated (\d)$/m.exec(metrics.text)?.[1] };
}

test('a Redis on loopback without authentication: the start goes ahead, warned in the log, /api/status, /readyz and /metrics', async () => {
  const r = await redis();
  const { child, admin } = await instance({ REDIS_URL: r.url });
  const w = await warnings(admin);
  expect(w.status).toHaveLength(1);
  expect(w.status[0]).toMatch(/^Redis at 127\.0\.0\.1 accepts commands without authentication: anyone who can reach it can change the configuration/);
  expect(w.ready?.redis_auth).toBe(w.status[0]);
  expect(w.metric).toBe('1');
  expect((await admin.get('/readyz')).status).toBe(200); // a warning, not unreadiness
  expect(child.stdout()).toMatch(/"level":40.*"msg":"SECURITY: Redis at 127\.0\.0\.1 accepts commands without authentication/);
  // fwctl status says it too
  const home = tempDir('fwd-redis-open-home-');
  const cli = await fwctl(['status'], { HOME: home, FWCTL_URL: child.url, FWCTL_TOKEN: admin.token });
  expect(cli.code).toBe(0);
  expect(cli.stdout).toMatch(/WARNING\s+Redis at 127\.0\.0\.1 accepts commands without authentication/);
});

test('a Redis that asks for a password: no warning', async () => {
  const password = `pw-${process.pid}-open`;
  const r = await redis(['--requirepass', password]);
  const { child, admin } = await instance({ REDIS_URL: r.url, REDIS_PASSWORD: password });
  const w = await warnings(admin);
  expect(w.status).toEqual([]);
  expect(w.ready).toBeUndefined();
  expect(w.metric).toBe('0');
  expect(child.stdout()).not.toContain('SECURITY');
});

test('a Redis off loopback without authentication: the start is refused, unless FW_REDIS_INSECURE=1 (then warned)', async () => {
  const ip = networkAddress();
  const r = await redis(['--bind', '127.0.0.1', ip, '--protected-mode', 'no']);
  const url = `redis://${ip}:${r.port}`;
  await expect(startChild({ REDIS_URL: url, FW_DATA_DIR: tempDir('fwd-redis-open-d-'), FW_CLUSTER_NAME: `o${process.pid}x` }))
    .rejects.toThrow(new RegExp(`Redis at ${ip.replace(/\./g, '\\.')} accepts commands without authentication.*It is not on loopback, so the daemon does not start; to start anyway \\(a test network\\) set FW_REDIS_INSECURE=1`));
  const { admin } = await instance({ REDIS_URL: url, FW_REDIS_INSECURE: '1' });
  const w = await warnings(admin);
  expect(w.status[0]).toContain(`Redis at ${ip} accepts commands without authentication`);
  expect(w.metric).toBe('1');
});
