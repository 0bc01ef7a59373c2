// `npm run bench:http -- --redis`: both stores side by side in one run, on the same committed
// configuration of 20,000 policies (the generated realistic one): the embedded store with one
// instance, Redis with one instance and Redis with three instances behind a round robin (the
// load balancer's part is played by this process). Per row: authenticated reads/s, durable
// changes/s (address creations: each instance's land without waiting for the others'), the
// CPU they cost, policy creations/s (changes that may touch anything: one instance's group a
// round), and commits (begin, one change, commit: each on another instance) with their
// latency. Ratios are against the embedded store of the same run. --against DIST: the Redis
// rows again with another build's daemon (e.g. main's dist, before a change), in the same run.
// The last rows add replicas and FW_REDIS_MIN_REPLICAS: one replica waited for (WAIT 1, the
// default with sentinels before issue 31), and two replicas with WAIT 1 and WAIT 2 (every
// replica: FW_REDIS_MIN_REPLICAS=all, the default with sentinels since issue 31).
// --redis-delay MS: the instances reach Redis through a proxy that delays each direction by MS
// (bench/delay-proxy.ts), as if Redis ran on another host; the rate of changes is then bound
// by round trips to the store rather than by this machine's two cores.
// Then the automation rows (bench/automation.ts): export, load in one request and commit of
// the whole configuration, and a batch of 10,000 creations. `--only replicas`: the rows of three
// instances on Redis without and with replicas. `--only automation`: those rows
// alone, on the embedded store and Redis with 1 and 3 instances (with --against, also the other build's).
import fs from 'node:fs';
import Redis from 'ioredis';
import os from 'node:os';
import path from 'node:path';
import type { ConfigDoc } from '../src/config/types';
import { EmbeddedStore } from '../src/store/embedded';
import { RedisStore } from '../src/store/redis/redis-store';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, startRedis, type TestRedis } from '../test/helpers/redis';
import { generateConfig, REALISTIC } from './generate';
import { automationRow, automationTable, type AutomationRow } from './automation';
import { cpuSeconds } from './stats';
import { closeAgent, fmt, login, request, run, seedStore, startInstance, BENCH_SECRET, type Instance, type Load, type Target } from './http-load';

interface Scenario {
  label: string;
  redis: boolean;
  instances: number;
  /** another build's dist/src/main.js */
  main?: string;
  /** this many replicas, and FW_REDIS_MIN_REPLICAS=`wait` */
  replicas?: number;
  wait?: number;
}

function scenarios(against: string | undefined): Scenario[] {
  const other = against ? path.resolve(against, 'src/main.js') : undefined;
  return [
    { label: 'embedded', redis: false, instances: 1 },
    ...(other ? [{ label: 'redis (before)', redis: true, instances: 1, main: other }, { label: 'redis (before)', redis: true, instances: 3, main: other }] : []),
    { label: 'redis', redis: true, instances: 1 },
    { label: 'redis', redis: true, instances: 3 },
    { label: 'redis + replica, WAIT 1', redis: true, instances: 1, replicas: 1, wait: 1 },
    { label: 'redis + replica, WAIT 1', redis: true, instances: 3, replicas: 1, wait: 1 },
    { label: 'redis + 2 replicas, WAIT 1', redis: true, instances: 3, replicas: 2, wait: 1 },
    { label: 'redis + 2 replicas, WAIT 2 (all)', redis: true, instances: 3, replicas: 2, wait: 2 },
  ];
}

interface Row {
  s: Scenario;
  me: number;
  reads: number;
  changes: number;
  /** CPU µs a request of GET /api/me and a change: the instances and Redis together */
  meCpuUs: number;
  changeCpuUs: number;
  /** POST /api/policies/s: changes that may touch anything */
  policyChanges: number;
  commitsPerSec: number;
  commitP50: number;
  commitMax: number;
  automation: AutomationRow;
}

const automationOnly = process.argv.includes('--only') && process.argv[process.argv.indexOf('--only') + 1] === 'automation';

const replicasOnly = process.argv.includes('--only') && process.argv[process.argv.indexOf('--only') + 1] === 'replicas';
const redisDelayMs = process.argv.includes('--redis-delay') ? Number(process.argv[process.argv.indexOf('--redis-delay') + 1]) : 0;

/** A delaying proxy in front of Redis on `port` (its own process), on a free port. */
async function delayProxy(port: number, ms: number): Promise<{ proc: ChildProcess; port: number }> {
  const listen = await freePort();
  const proc = spawn(process.execPath, [path.join(__dirname, 'delay-proxy.js'), String(listen), String(port), String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.once('data', () => resolve());
    proc.once('exit', (code) => reject(new Error(`delay proxy exited with ${code}`)));
  });
  return { proc, port: listen };
}

/** CPU seconds the instances and Redis have used so far. */
async function cpuOf(instances: Instance[], redis: TestRedis | null): Promise<number> {
  let total = instances.reduce((t, x) => t + cpuSeconds(x.proc.pid!), 0);
  if (redis) {
    const r = new Redis({ port: redis.port, host: '127.0.0.1' });
    try {
      const info = await r.info('cpu');
      for (const m of info.matchAll(/^used_cpu_(?:sys|user):([\d.]+)/gm)) total += Number(m[1]);
    } finally {
      r.disconnect();
    }
  }
  return total;
}

/** Waits (at most 20 s) until the instances use under 5 % of a core together: their start-up compiles are done. */
async function settled(instances: Instance[]): Promise<void> {
  const cpu = () => instances.reduce((t, x) => t + cpuSeconds(x.proc.pid!), 0);
  for (let tries = 0; tries < 40; tries++) {
    const before = cpu();
    await new Promise((r) => setTimeout(r, 500));
    if (cpu() - before < 0.025) return;
  }
}

/** Requests each instance serves of a load before it is measured, and the most seconds that may take. */
const WARM_REQUESTS = 20_000;
const WARM_MAX_S = 10;

/**
 * Runs `load` untimed until each instance has served WARM_REQUESTS of it (or WARM_MAX_S
 * passed): the JIT and the heaps settle per process, so three instances, each seeing a third
 * of the traffic, need three times the requests one does. A fixed half second left them
 * colder than one (measured: 0.5 s, 3 instances at 0.56-0.68 of one; 8 s, 0.79).
 */
async function warmUp(all: Target, load: Load, instances: number): Promise<void> {
  const t0 = Date.now();
  let served = 0;
  while (served < WARM_REQUESTS * instances && Date.now() - t0 < WARM_MAX_S * 1000) served += (await run(all, load, 1)).rps;
}

function roundRobin(instances: Instance[], tokens: string[]): Target {
  return { port: (i) => instances[i % instances.length].port, token: (i) => tokens[i % tokens.length] };
}

/** Waits until the replica on `port` has finished its first sync with the primary. */
async function inSync(port: number): Promise<void> {
  const r = new Redis({ port, host: '127.0.0.1' });
  try {
    while (!/master_link_status:up/.test(await r.info('replication'))) await new Promise((res) => setTimeout(res, 50));
  } finally {
    r.disconnect();
  }
}

async function ok(p: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const r = await p.catch((e: Error) => {
    throw new Error(`${what}: ${e.message}`);
  });
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
}

async function measure(s: Scenario, doc: ConfigDoc, seconds: number, commits: number): Promise<Row | { s: Scenario; automation: AutomationRow }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-cluster-'));
  let redis: TestRedis | null = null;
  const replicas: TestRedis[] = [];
  let proxy: ChildProcess | null = null;
  const instances: Instance[] = [];
  try {
    // no deep analysis: a pass over 20,000 policies per instance after every version would
    // compete for the same two cores as what is measured here (the store's paths)
    const env: Record<string, string> = { FW_DATA_DIR: dir, FW_COMMIT_TIMEOUT: '120', FW_ANALYSIS_TIMEOUT: '0' };
    if (s.redis) {
      redis = await startRedis(path.join(dir, 'redis'));
      env.REDIS_URL = redis.url;
      for (let i = 0; i < (s.replicas ?? 0); i++) {
        const replica = await startRedis(path.join(dir, `replica${i}`), ['--replicaof', '127.0.0.1', String(redis.port)]);
        replicas.push(replica);
        await inSync(replica.port);
      }
      if (s.wait) env.FW_REDIS_MIN_REPLICAS = String(s.wait);
      await seedStore(new RedisStore({ url: redis.url, clusterName: 'default', sessionLeaseMs: 900_000, secret: BENCH_SECRET }), doc);
      if (redisDelayMs > 0) {
        const through = await delayProxy(redis.port, redisDelayMs);
        proxy = through.proc;
        env.REDIS_URL = `redis://127.0.0.1:${through.port}`;
      }
    } else {
      await seedStore(new EmbeddedStore({ dir }), doc);
    }
    for (let i = 0; i < s.instances; i++) instances.push(await startInstance({ ...env, FW_NODE_ID: `bench${i}` }, s.main));
    const tokens = await Promise.all(instances.map((x) => login(x.port)));
    if (automationOnly) return { s, automation: await automationRow(instances, tokens) };
    const all = roundRobin(instances, tokens);
    const ids = doc.policies.map((p) => p.id);
    const names = [...doc.addresses.keys()];
    const loads = {
      me: { name: 'GET /api/me', concurrency: 32, next: (): [string, string, undefined] => ['GET', '/api/me', undefined] },
      reads: { name: 'GET /api/policies/{id}', concurrency: 32, next: (i: number): [string, string, undefined] => ['GET', `/api/policies/${ids[i % ids.length]}`, undefined] },
      changes: {
        name: 'POST /api/addresses', concurrency: 64,
        next: (i: number): [string, string, string] => ['POST', '/api/addresses', JSON.stringify({ name: `bench-${i}`, ips: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`] })],
      },
      // changes that may touch anything (rule order, ids): never landing past unseen entries
      policies: {
        name: 'POST /api/policies', concurrency: 64,
        next: (i: number): [string, string, string] => ['POST', '/api/policies', JSON.stringify({ action: 'allow', 'dst-addr': names[i % names.length] })],
      },
    };
    await ok(request(instances[0].port, 'POST', '/api/config/begin', tokens[0]), 'begin');
    for (const l of Object.values(loads)) await warmUp(all, l, s.instances);
    await settled(instances); // each instance compiled the running version on start: not the loads' CPU
    /** the load's rate and the CPU µs a request cost the instances and Redis */
    const metered = async (load: Load) => {
      const cpu0 = await cpuOf(instances, redis);
      const { rps } = await run(all, load, seconds);
      return { rps, cpuUs: ((await cpuOf(instances, redis)) - cpu0) * 1e6 / (rps * seconds) };
    };
    const { rps: me, cpuUs: meCpuUs } = await metered(loads.me);
    const reads = (await run(all, loads.reads, seconds)).rps;
    const { rps: changes, cpuUs: changeCpuUs } = await metered(loads.changes);
    const policyChanges = (await run(all, loads.policies, seconds)).rps;
    await ok(request(instances[0].port, 'POST', '/api/config/discard', tokens[0]), 'discard');
    const latencies: number[] = [];
    const t0 = Date.now();
    for (let c = 0; c < commits; c++) {
      const [x, y, z] = [0, 1, 2].map((k) => (c + k) % instances.length);
      await ok(request(instances[x].port, 'POST', '/api/config/begin', tokens[x]), 'begin');
      await ok(request(instances[y].port, 'POST', '/api/addresses', tokens[y], JSON.stringify({ name: `commit-${c}`, ips: [`10.250.${c}.0/24`] })), 'change');
      const tc = process.hrtime.bigint();
      await ok(request(instances[z].port, 'POST', '/api/config/commit', tokens[z], JSON.stringify({ description: `bench ${c}` })), 'commit');
      latencies.push(Number(process.hrtime.bigint() - tc) / 1e6);
    }
    const commitsPerSec = commits / ((Date.now() - t0) / 1000);
    latencies.sort((a, b) => a - b);
    const automation = await automationRow(instances, tokens);
    return { s, automation, me, reads, changes, meCpuUs, changeCpuUs, policyChanges, commitsPerSec, commitP50: latencies[Math.floor(latencies.length / 2)], commitMax: latencies[latencies.length - 1] };
  } finally {
    for (const x of instances) x.proc.kill('SIGTERM');
    await Promise.all(instances.map((x) => new Promise((r) => (x.proc.exitCode !== null ? r(null) : x.proc.once('exit', r)))));
    proxy?.kill();
    for (const r of replicas) await r.stop();
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function clusterBench(seconds: number): Promise<void> {
  const load0 = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const doc = generateConfig(REALISTIC);
  const commits = Number(process.argv[process.argv.indexOf('--commits') + 1]) || 5;
  const againstAt = process.argv.indexOf('--against');
  // `--only replicas`: what waiting for every replica costs (issue 31), against no replica and WAIT 1
  const list = scenarios(againstAt > 0 ? process.argv[againstAt + 1] : undefined)
    .filter((s) => !replicasOnly || (s.redis && !s.main && s.instances === 3 && s.replicas !== 1));
  if (automationOnly) return automationBench(list.filter((s) => !s.replicas), doc);
  const delay = redisDelayMs > 0 ? `, Redis reached through a proxy delaying each direction by ${redisDelayMs} ms` : '';
  console.log(`\nStores side by side: ${doc.policies.length} policies committed, ${seconds}s per load, ${commits} commits per row, ${os.cpus().length} cores (load generator, Redis and instances share them)${delay}, load average at the start ${load0}\n`);
  console.log('CPU µs: the instances\' and Redis\'s user + system time over the requests counted (the load generator excluded): what a request costs the machine, whatever the number of cores\n');
  console.log('| store | instances | GET /api/me/s | CPU µs a GET /api/me | GET /api/policies/{id}/s | changes/s | CPU µs a change | policy changes/s | commits/s | commit p50 ms | commit max ms | reads vs embedded | changes vs embedded |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  let base: Row | null = null;
  const automation: Array<{ label: string; instances: number; a: AutomationRow }> = [];
  for (const s of list) {
    // each row as soon as it is measured; a row whose load got an error answer says so and
    // the next rows still run (the build before issue 20 gave up on changes under contention)
    let r: Row;
    try {
      r = (await measure(s, doc, seconds, commits)) as Row;
    } catch (e) {
      console.log(`| ${s.label} | ${s.instances} | failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 160).replace(/\|/g, '/')} |`);
      continue;
    }
    automation.push({ label: r.s.label, instances: r.s.instances, a: r.automation });
    base ??= r;
    console.log(`| ${r.s.label} | ${r.s.instances} | ${fmt(r.me)} | ${fmt(r.meCpuUs)} | ${fmt(r.reads)} | ${fmt(r.changes)} | ${fmt(r.changeCpuUs)} | ${fmt(r.policyChanges)} | ${r.commitsPerSec.toFixed(2)} | ${fmt(r.commitP50)} | ${fmt(r.commitMax)} | ${(r.reads / base.reads).toFixed(2)} | ${(r.changes / base.changes).toFixed(2)} |`);
  }
  closeAgent();
  automationTable(automation, doc.policies.length);
  console.log(`\nload average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

/** The automation rows alone (`--only automation`). */
async function automationBench(list: Scenario[], doc: ConfigDoc): Promise<void> {
  const load0 = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const rows: Array<{ label: string; instances: number; a: AutomationRow }> = [];
  for (const s of list) {
    const r = await measure(s, doc, 0, 0);
    rows.push({ label: r.s.label, instances: r.s.instances, a: r.automation });
  }
  closeAgent();
  automationTable(rows, doc.policies.length);
  console.log(`\nload average at the start ${load0}, at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}
