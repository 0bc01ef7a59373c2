// How the daemon answers while a large document loads (issue 38, item 2): GET /healthz and a
// login probed (each its own loop), idle and during PUT /api/config/candidate, on two shapes:
//   prefixes: 1,024 addresses of 1,024 /32s (~20 MB, the review's document)
//   policies: 2,000 addresses and 20,000 policies (~8 MB)
// The daemon is a child process (as npm start runs it); this process only probes. Prints
// p50/p99/max of each probe idle and during the load, their ratio, and the load's time.
//   npm run bench:load-latency [-- --quick] [--store redis] [--shape prefixes|policies] [--cpu-prof DIR]
//                                 [--base OTHER/dist/src/main.js] [--rounds N]
//   --quick: a quarter of each shape; --store redis: on a throwaway redis-server of its own;
//   --cpu-prof DIR: each daemon writes V8 CPU profiles in DIR/<build> at its exit (bench/profile-top.ts
//   reads them, --blocks lists what held the event loop); --base: another build measured first
//   in each of N rounds ("before"), this one after it ("after"), each on a fresh store
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeAgent, PASSWORD, request, startInstance } from './http-load';
import { startRedis, type TestRedis } from '../test/helpers/redis';

const argv = process.argv.slice(2);
const opt = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const quick = argv.includes('--quick');
const scale = quick ? 4 : 1;
const store = opt('--store') ?? 'embedded';
const onlyShape = opt('--shape');
const profDir = opt('--cpu-prof');
const base = opt('--base');
const rounds = Number(opt('--rounds') ?? 1);

function prefixShape(): unknown {
  const addresses = [];
  for (let a = 0; a < 1024 / scale; a++) {
    const ips: string[] = [];
    for (let i = 0; i < 1024; i++) ips.push(`${10 + (a >> 8)}.${a & 255}.${i >> 8}.${i & 255}`);
    addresses.push({ name: `addr-${a}`, ips });
  }
  return { addresses };
}

function policyShape(): unknown {
  const zones = [{ name: 'lan', type: 'l3' }, { name: 'wan', type: 'l3' }];
  const addresses = [];
  for (let a = 0; a < 2000 / scale; a++) addresses.push({ name: `host-${a}`, ips: [`10.${a >> 8}.${a & 255}.0/24`, `2001:db8:${a.toString(16)}::/48`] });
  const policies = [];
  for (let p = 0; p < 20000 / scale; p++) {
    policies.push({ name: `rule-${p}`, action: p % 3 ? 'allow' : 'deny', 'src-zone': 'lan', 'dst-zone': 'wan',
      'src-addr': `host-${p % addresses.length}`, 'dst-addr': `host-${(p * 7) % addresses.length}`, services: [], description: `generated rule ${p}` });
  }
  return { zones, addresses, policies };
}

interface Probe { healthz: number[]; login: number[] }

/**
 * Probes /healthz and a login, each in its own loop (one request at a time, 20 ms apart), until
 * `until` resolves (or for `ms`): a login (the password hash) never delays a /healthz probe.
 */
async function probe(port: number, until: Promise<unknown> | number): Promise<Probe> {
  const out: Probe = { healthz: [], login: [] };
  let done = false;
  if (typeof until === 'number') setTimeout(() => { done = true; }, until);
  else void until.finally(() => { done = true; });
  const body = JSON.stringify({ username: 'admin', password: PASSWORD });
  const loop = async (into: number[], send: () => Promise<{ status: number; text: string }>) => {
    while (!done) {
      const t = performance.now();
      const r = await send();
      into.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`probe ${r.status} ${r.text}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  await Promise.all([
    loop(out.healthz, () => request(port, 'GET', '/healthz', '')),
    loop(out.login, () => request(port, 'POST', '/api/login', '', body)),
  ]);
  return out;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const ms = (x: number) => x.toFixed(1).padStart(8);

/** One build's daemon on a fresh store: each shape probed idle, then loaded while probed; one row per probe. */
async function measure(label: string, mainJs: string | undefined): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-load-'));
  let redis: TestRedis | null = null;
  const env: Record<string, string> = { FW_DATA_DIR: path.join(dir, 'data'), FW_MAX_LOAD_BODY: String(64 << 20), FW_LOGIN_MAX_FAILURES: '1000' };
  if (store === 'redis') {
    redis = await startRedis(path.join(dir, 'redis'));
    env.REDIS_URL = redis.url;
  }
  const inst = await startInstance(env, mainJs, profDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profDir, label)] : []);
  try {
    const login = await request(inst.port, 'POST', '/api/login', '', JSON.stringify({ username: 'admin', password: PASSWORD }));
    const token = JSON.parse(login.text).token as string;
    for (const [shape, make] of [['prefixes', prefixShape], ['policies', policyShape]] as const) {
      if (onlyShape && shape !== onlyShape) continue;
      const text = JSON.stringify(make());
      const idle = await probe(inst.port, 3000);
      await request(inst.port, 'POST', '/api/config/begin', token);
      const t0 = performance.now();
      const loading = request(inst.port, 'PUT', '/api/config/candidate', token, text);
      const during = await probe(inst.port, loading);
      const r = await loading;
      const loadS = (performance.now() - t0) / 1000;
      if (r.status !== 200) throw new Error(`load ${r.status} ${r.text.slice(0, 300)}`);
      await request(inst.port, 'POST', '/api/config/discard', token);
      for (const k of ['healthz', 'login'] as const) {
        const row = [label.padEnd(6), shape.padEnd(9), (text.length / 1e6).toFixed(1).padStart(7), loadS.toFixed(1).padStart(7), k.padEnd(7), String(during[k].length).padStart(4),
          ms(pct(idle[k], 50)), ms(pct(idle[k], 99)), ms(pct(during[k], 50)), ms(pct(during[k], 99)), ms(Math.max(...during[k])),
          (pct(during[k], 99) / pct(idle[k], 99)).toFixed(1).padStart(10), os.loadavg()[0].toFixed(1).padStart(5)];
        console.log(row.join('  '));
      }
    }
  } finally {
    const exited = new Promise((r) => inst.proc.once('exit', r));
    inst.proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]); // a profile is written at the exit
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}, store ${store}${quick ? ' (--quick)' : ''}`);
  console.log('build   shape     body MB  load s  probe    n   idle p50  idle p99  load p50  load p99  load max  p99 ratio  load avg');
  try {
    for (let round = 0; round < rounds; round++) {
      // the other build first, then this one, in each round: both see about the same machine
      if (base) await measure('before', path.resolve(base));
      await measure(base ? 'after' : 'this', undefined);
    }
  } finally {
    closeAgent();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
