// Redis made highly available for the tests: a primary, replicas and sentinels, each a
// throwaway process on a free loopback port with its own folder, with short timeouts (down
// after one second) so that a failover takes seconds. Every process is killed when the test
// process exits, also after a failed test.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { exited, freePort, startRedis, whenListening, type TestRedis } from './redis';
import { requirePackages, SENTINEL_PACKAGES } from './packages';

export interface TestSentinel {
  port: number;
  kill(): Promise<void>;
}

export interface TestSentinelSet {
  /** the name the sentinels monitor the primary by */
  master: string;
  /** every redis-server; [0] starts as the primary */
  servers: TestRedis[];
  sentinels: TestSentinel[];
  /** the settings a daemon needs: REDIS_SENTINELS and REDIS_SENTINEL_MASTER */
  env: Record<string, string>;
  /** The primary's port as a live sentinel names it. */
  primaryPort(): Promise<number>;
  /** The server on `port`. */
  server(port: number): TestRedis;
  /** INFO replication of the server on `port`, as fields. */
  replication(port: number): Promise<Record<string, string>>;
  close(): Promise<void>;
}

// 2 s: with 1 s, a loaded CI machine (two jest workers, chromium) made sentinels fail over a
// primary that was only slow
const DOWN_AFTER_MS = 2000;
const FAILOVER_TIMEOUT_MS = 3000;

/** One command on a short-lived connection (no retries: a dead server fails at once). */
async function once<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

function fields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  return out;
}

async function startSentinel(dir: string, master: string, primaryPort: number): Promise<TestSentinel> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const conf = path.join(dir, 'sentinel.conf'); // sentinels rewrite their file: one each
  fs.writeFileSync(conf, [
    `port ${port}`, 'bind 127.0.0.1', 'daemonize no', `dir ${dir}`, 'logfile ""',
    `sentinel monitor ${master} 127.0.0.1 ${primaryPort} 2`,
    `sentinel down-after-milliseconds ${master} ${DOWN_AFTER_MS}`,
    `sentinel failover-timeout ${master} ${FAILOVER_TIMEOUT_MS}`,
    `sentinel parallel-syncs ${master} 2`,
    '',
  ].join('\n'));
  const proc = await whenListening(spawn('redis-sentinel', [conf], { stdio: ['ignore', 'pipe', 'pipe'] }), port, 'redis-sentinel');
  return {
    port,
    async kill() {
      proc.kill('SIGKILL');
      await exited(proc);
    },
  };
}

/** Polls `check` every 100 ms until it returns true or `ms` pass. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() >= deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startSentinelSet(dir: string, replicas = 2, sentinelCount = 3): Promise<TestSentinelSet> {
  requirePackages(SENTINEL_PACKAGES, 'the Sentinel tests');
  const master = `fwm${process.pid}`;
  const servers: TestRedis[] = [];
  const sentinels: TestSentinel[] = [];
  const killed = new Set<number>(); // ports of the sentinels a test killed
  const set: TestSentinelSet = {
    master, servers, sentinels, env: {},
    async primaryPort() {
      for (const s of sentinels) {
        if (killed.has(s.port)) continue;
        const addr = await once(s.port, (r) => r.call('SENTINEL', 'get-master-addr-by-name', master) as Promise<[string, string] | null>).catch(() => null);
        if (addr) return Number(addr[1]);
      }
      throw new Error('no sentinel names a primary');
    },
    server(port) {
      const s = servers.find((x) => x.port === port);
      if (!s) throw new Error(`no server on ${port}`);
      return s;
    },
    async replication(port) {
      return fields(await once(port, (r) => r.info('replication')));
    },
    async close() {
      await Promise.all(sentinels.filter((s) => !killed.has(s.port)).map((s) => s.kill()));
      await Promise.all(servers.map((s) => s.kill().catch(() => undefined)));
    },
  };
  try {
    servers.push(await startRedis(path.join(dir, 'redis0')));
    const primary = servers[0].port;
    for (let i = 1; i <= replicas; i++) servers.push(await startRedis(path.join(dir, `redis${i}`), ['--replicaof', '127.0.0.1', String(primary)]));
    for (let i = 0; i < sentinelCount; i++) {
      const s = await startSentinel(path.join(dir, `sentinel${i}`), master, primary);
      sentinels.push({ port: s.port, kill: async () => { killed.add(s.port); await s.kill(); } });
    }
    set.env = { REDIS_SENTINELS: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','), REDIS_SENTINEL_MASTER: master };
    // a failover needs every sentinel to know the replicas and the other sentinels (hello
    // messages every 2 s), and the replicas in sync
    await until(async () => {
      for (const s of sentinels) {
        const flat = (await once(s.port, (r) => r.call('SENTINEL', 'master', master))) as string[];
        const m: Record<string, string> = {};
        for (let i = 0; i < flat.length; i += 2) m[flat[i]] = flat[i + 1];
        if (Number(m['num-slaves']) !== replicas || Number(m['num-other-sentinels']) !== sentinelCount - 1) return false;
      }
      for (const r of servers.slice(1)) if ((await set.replication(r.port)).master_link_status !== 'up') return false;
      return true;
    }, 30_000, 'the sentinels did not find every replica and each other');
  } catch (e) {
    await set.close();
    throw e;
  }
  return set;
}

export { until };
