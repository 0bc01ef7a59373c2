// Soak benchmark (issue 15): `npm run bench:soak -- [--commits N] [--every N] [--addresses N]
// [--policies N] [--store embedded|redis] [--instances N] [--changes N] [--main DIST/src/main.js]
// [--env K=V,K=V]`.
// Seeds a store with the soak configuration (bench/generate.ts soakConfig: host objects, two
// zones, one service, policies between the zones), starts the daemon as a child process with
// --expose-gc (exactly as `npm start` runs it otherwise), then commits again and again: begin,
// PUT one address, commit. Every --every commits it has the daemon collect its garbage
// (SIGUSR2, src/main.ts) and prints one row: RSS, the main thread's V8 heap used after the GC
// and its committed total, array buffers, the data folder's size (embedded) or Redis
// used_memory, the versions listed, and the commit latency of the commits since the previous
// row, so that a leak shows as a slope.
// --store redis runs a throwaway redis-server of its own (never the machine's 6379).
// --instances N (Redis only) starts N daemons on it; --changes N makes each commit's session N
// address updates sent 32 at a time over the instances in turn (issue 20: changes landing
// from several instances), and the rows show each instance's RSS and heap.
// --main: another build's daemon (e.g. main's dist, to see the old slope).
import { stopChild } from '../src/dataplane/host';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import IORedis from 'ioredis';
import { EmbeddedStore } from '../src/store/embedded';
import { RedisStore } from '../src/store/redis/redis-store';
import { startRedis, type TestRedis } from '../test/helpers/redis';
import { soakAddressIp, soakAddressName, soakConfig } from './generate';
import { closeAgent, fmt, login, request, seedStore, startInstance, BENCH_SECRET, type Instance } from './http-load';
import { HeapProbe, type HeapAfterGc } from './heap-probe';
import { median } from './stats';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : def;
}

function count(name: string, def: number): number {
  const n = Number(arg(name, String(def)));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

const opts = {
  commits: count('commits', 1000),
  every: count('every', 50),
  addresses: count('addresses', 5000),
  policies: count('policies', 2000),
  store: arg('store', 'embedded'),
  instances: count('instances', 1),
  changes: count('changes', 1),
  main: path.resolve(arg('main', path.resolve(__dirname, '../src/main.js'))),
  // K=V split at the first '=' (a value may hold more, e.g. NODE_OPTIONS=--heapsnapshot-signal=SIGUSR1)
  env: Object.fromEntries(arg('env', '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
};
if (opts.store !== 'embedded' && opts.store !== 'redis') throw new Error('--store must be embedded or redis');
if (opts.instances > 1 && opts.store !== 'redis') throw new Error('--instances needs --store redis');

/** Bytes of the files under `dir` (what `du --apparent-size` counts). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += folderBytes(p);
    // a file renamed or removed since the listing (a write's temporary file) counts nothing
    else if (e.isFile()) total += fs.statSync(p, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

async function redisUsedMemory(client: IORedis): Promise<number> {
  const info = await client.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
}

async function ok(p: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const r = await p;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
}

const mb = (b: number) => (b / 1048576).toFixed(1);

/** Commit `c`'s session: opts.changes address updates, 32 in flight, over the instances in turn. */
async function spreadChanges(daemons: Instance[], tokens: string[], c: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < opts.changes) {
      const k = next++;
      const i = (c * opts.changes + k) % opts.addresses;
      const d = k % daemons.length;
      const body = JSON.stringify({ ips: [soakAddressIp(i, c)] });
      await ok(request(daemons[d].port, 'PUT', `/api/addresses/${soakAddressName(i)}`, tokens[d], body), 'change');
    }
  }));
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-soak-'));
  const dataDir = path.join(dir, 'data');
  let redis: TestRedis | null = null;
  let redisClient: IORedis | null = null;
  const procs: ChildProcess[] = [];
  try {
    const doc = soakConfig(opts.addresses, opts.policies);
    const env: Record<string, string> = { FW_DATA_DIR: dataDir, FW_TOKEN_TTL: String(7 * 86400), ...opts.env };
    if (opts.store === 'redis') {
      redis = await startRedis(path.join(dir, 'redis'));
      env.REDIS_URL = redis.url;
      redisClient = new IORedis(redis.url);
      await seedStore(new RedisStore({ url: redis.url, clusterName: 'default', sessionLeaseMs: 900_000, secret: BENCH_SECRET }), doc);
    } else {
      await seedStore(new EmbeddedStore({ dir: dataDir }), doc);
    }
    const daemons: Instance[] = [];
    for (let n = 0; n < opts.instances; n++) {
      daemons.push(await startInstance({ ...env, FW_NODE_ID: `soak${n}` }, opts.main, ['--expose-gc']));
      procs.push(daemons[n].proc);
    }
    const daemon = daemons[0];
    const heaps = daemons.map((d) => new HeapProbe(d.proc));
    const tokens = await Promise.all(daemons.map((d) => login(d.port)));
    const token = tokens[0];
    const storage = async () => (redisClient ? redisUsedMemory(redisClient) : folderBytes(dataDir));
    const versions = async () => {
      const r = await request(daemon.port, 'GET', '/api/config/versions', token);
      return (JSON.parse(r.text) as unknown[]).length;
    };

    console.log(`Soak: ${opts.store} store, ${opts.instances} instance(s), ${fmt(opts.addresses)} addresses, ${fmt(opts.policies)} policies, ${fmt(opts.commits)} commits of ${fmt(opts.changes)} changed address(es)`);
    console.log(`Machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}, node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`Daemon: ${opts.main}${Object.keys(opts.env).length ? ` with ${JSON.stringify(opts.env)}` : ''}\n`);
    console.log(`| commits | RSS MB | heap after GC MB | heap total MB | array buffers MB | ${redisClient ? 'Redis used_memory MB' : 'data folder MB'} | versions listed | commit p50 ms | commit max ms | load |`);
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    const row = async (done: number, lat: number[]) => {
      const hs = await Promise.all(heaps.map((h) => h.afterGc()));
      const each = (f: (h: HeapAfterGc) => number) => hs.map((h) => mb(f(h))).join(' / ');
      const cells = [fmt(done), each((h) => h.rss), each((h) => h.heapUsed), each((h) => h.heapTotal), each((h) => h.arrayBuffers), mb(await storage()), fmt(await versions()),
        lat.length ? fmt(median(lat)) : '-', lat.length ? fmt(Math.max(...lat)) : '-', os.loadavg()[0].toFixed(2)];
      console.log(`| ${cells.join(' | ')} |`);
    };
    await row(0, []);
    let lat: number[] = [];
    for (let c = 1; c <= opts.commits; c++) {
      const i = c % opts.addresses;
      const round = Math.floor(c / opts.addresses) + 1;
      await ok(request(daemon.port, 'POST', '/api/config/begin', token), 'begin');
      if (opts.changes === 1) {
        await ok(request(daemon.port, 'PUT', `/api/addresses/${soakAddressName(i)}`, token, JSON.stringify({ ips: [soakAddressIp(i, round)] })), 'change');
      } else {
        await spreadChanges(daemons, tokens, c);
      }
      const t0 = process.hrtime.bigint();
      await ok(request(daemon.port, 'POST', '/api/config/commit', token, JSON.stringify({ description: `soak ${c}` })), 'commit');
      lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (c % opts.every === 0 || c === opts.commits) {
        await row(c, lat);
        lat = [];
      }
    }
  } finally {
    await Promise.all(procs.map(stopChild));
    closeAgent();
    redisClient?.disconnect();
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
