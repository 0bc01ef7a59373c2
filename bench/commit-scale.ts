// Commit at scale (issue 30): `npm run bench:commit -- --scale [--sizes 20000,100000]
// [--generators random,realistic|shapes|cross-zone,grouped,ipv6-heavy,classbench] [--classbench DIR] [--stores embedded,redis] [--instances 3] [--against DIST]
// [--settle] [--changes N]`.
// For each generator (bench/scale-config.ts: the issue's flat random rule base;
// bench/generate.ts: the realistic one, addresses scaled with the policies), size and store,
// daemons are started as child processes on an empty store (Redis: a throwaway redis-server
// and --instances daemons on it, the requests of one change spread over them as behind a load
// balancer), and it measures, over HTTP:
//   load     PUT /api/config/candidate of the whole exported document (one request)
//   commit   POST /api/config/commit of that load (a full build)
//   address  begin, PUT one address object's ips, commit: end to end
//   policy   begin, PUT one policy's action, commit: end to end
//   address CPU  of all the daemons from the address change's begin until every instance
//            serves its version (the commit, and on Redis the other instances' follow)
//   version bytes  the address commit's version record in the store (the file or files of
//            the version, or its Redis keys: whole, or a delta since version-deltas.ts)
//   list     GET /api/policies of the running version: first byte, whole answer, bytes
//   RSS      of each daemon at the end (/proc/<pid>/status VmRSS), the largest shown
//   CPU      of all the daemons over the whole row (/proc/<pid>/stat utime + stime, every thread),
//            read once every daemon answers the last version's deep analysis
// With --against DIST (another build's dist directory, e.g. main's) the same runs are made
// with that build's daemon right after this build's, and a ratio column compares them.
// No data plane (FW_DATAPLANE=none); FW_COMMIT_TIMEOUT is raised to 15 minutes so a slow
// build's commit is measured rather than refused.
import { stopChild } from '../src/dataplane/host';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import IORedis from 'ioredis';
import { exportDoc } from '../src/config/export';
import type { ConfigDoc } from '../src/config/types';
import { startRedis, type TestRedis } from '../test/helpers/redis';
import { loadable } from './automation';
import { generateConfig, REALISTIC } from './generate';
import { closeAgent, fmt, login, request, startInstance, type Instance } from './http-load';
import { scaleConfig } from './scale-config';
import { CLASSBENCH_DIR, isShape, shapeConfig, SHAPES } from './shapes';
import { median } from './stats';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : def;
}

const opts = {
  sizes: arg('sizes', '20000,100000').split(',').map(Number),
  // `shapes`: the tidy one (random) and bench/shapes.ts's four (issue 44)
  generators: arg('generators', 'random,realistic').replace('shapes', ['random', ...SHAPES].join(',')).split(','),
  stores: arg('stores', 'embedded,redis').split(','),
  instances: Number(arg('instances', '3')),
  against: process.argv.includes('--against') ? path.resolve(arg('against', '')) : null,
  // --settle: each change is timed once every daemon has the version before it analyzed deep
  // (a firewall at rest), not right after the commit before it while that deep pass shares
  // the cores (back-to-back commits, the default)
  settle: process.argv.includes('--settle'),
  // --changes N: N address changes, then N policy changes, each of another object; the
  // columns show their median and the slowest (the first ones after the load run colder code)
  changes: Number(arg('changes', '1')),
  // --cpu-prof DIR: every daemon runs under node --cpu-prof, one profile a thread in DIR/<generator>-<size>
  cpuProf: process.argv.includes('--cpu-prof') ? path.resolve(arg('cpu-prof', 'cpu-prof')) : null,
};

interface Row {
  loadMs: number;
  commitMs: number;
  addressMs: number;
  policyMs: number;
  addressMaxMs: number;
  policyMaxMs: number;
  addressCpuMs: number;
  versionBytes: number;
  listFirstMs: number;
  listMs: number;
  listBytes: number;
  rssMb: number;
  cpuMs: number;
}
const COLUMNS: Array<[keyof Row, string]> = [
  ['loadMs', 'load ms'], ['commitMs', 'full commit ms'], ['addressMs', 'address + commit ms'], ['policyMs', 'policy + commit ms'],
  ['addressMaxMs', 'slowest address ms'], ['policyMaxMs', 'slowest policy ms'],
  ['addressCpuMs', 'address commit CPU ms'], ['versionBytes', 'version bytes'],
  ['listFirstMs', 'list first byte ms'], ['listMs', 'list total ms'], ['rssMb', 'RSS MB'], ['cpuMs', 'daemons CPU ms'],
];

/** The rule base of a generator: `random` (bench/scale-config.ts, the tidy shape),
 * `realistic` (bench/generate.ts) or one of bench/shapes.ts's (issue 44). */
export function generate(generator: string, policies: number): ConfigDoc {
  if (generator === 'random') return scaleConfig({ policies });
  if (generator === 'realistic') return generateConfig({ ...REALISTIC, policies, addresses: Math.round((REALISTIC.addresses * policies) / REALISTIC.policies) });
  if (isShape(generator)) return shapeConfig(generator, policies, { classbenchDir: arg('classbench', CLASSBENCH_DIR) });
  throw new Error(`--generators: random, realistic, ${SHAPES.join(', ')}; not ${generator}`);
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function ok(p: Promise<{ status: number; text: string }>, what: string): Promise<string> {
  const r = await p;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.text;
}

/** GET `p`: ms to the answer's first byte (its head), ms to its end, and its bytes. */
function timedGet(port: number, p: string, token: string): Promise<{ first: number; total: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.get({ host: '127.0.0.1', port, path: p, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      const first = ms(t0);
      let bytes = 0;
      res.on('data', (c: Buffer) => { bytes += c.length; });
      res.on('end', () => (res.statusCode === 200 ? resolve({ first, total: ms(t0), bytes }) : reject(new Error(`GET ${p}: ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

/** CPU ms `pid` has used, all its threads (utime + stime, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function allReady(daemons: Instance[]): Promise<void> {
  for (const d of daemons) {
    while ((await request(d.port, 'GET', '/readyz', '')).status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits (at most 5 minutes) until every daemon answers GET /api/analysis with the deep pass. */
async function allDeep(daemons: Instance[], tokens: string[]): Promise<void> {
  const until = Date.now() + 300_000;
  for (const [i, d] of daemons.entries()) {
    while (Date.now() < until) {
      const r = await request(d.port, 'GET', '/api/analysis', tokens[i]);
      if (r.status === 200 && (JSON.parse(r.text) as { pass?: string }).pass === 'deep') break;
      await new Promise((res) => setTimeout(res, 250));
    }
  }
}

/** The i-th change of an address object: its ips moved to a neighbouring host of its first network. */
function changedAddress(doc: ConfigDoc, i: number): [string, string] {
  const users = doc.policies.filter((p) => doc.addresses.get(p.srcAddr)?.ips[0].includes('.'));
  const used = users[(i * 97) % users.length].srcAddr;
  const [a, b, c, d] = doc.addresses.get(used)!.ips[0].split('/')[0].split('.').map(Number);
  return [used, JSON.stringify({ ips: [`${a}.${b}.${c}.${(d + 1) % 256}/32`] })];
}

/** Waits until every instance serves the newest version (the others follow a commit through Redis); its number. */
async function servedEverywhere(daemons: Instance[], tokens: string[]): Promise<number> {
  for (;;) {
    const served = await Promise.all(daemons.map(async (d, i) => JSON.parse(await ok(request(d.port, 'GET', '/api/status', tokens[i]), 'GET /api/status')).version as number));
    if (served.every((v) => v === served[0])) return served[0];
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The bytes of version `n`'s record in the store: whole or delta, file or Redis key (whichever there is). */
async function recordBytes(redis: TestRedis | null, dataDir: string, n: number): Promise<number> {
  if (redis) {
    const r = new IORedis(redis.url);
    try {
      return (await r.strlen(`fw:{default}:version:${n}`)) + (await r.strlen(`fw:{default}:version-delta:${n}`));
    } finally {
      r.disconnect();
    }
  }
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  return size(path.join(dataDir, 'versions', `${n}.json`)) + size(path.join(dataDir, 'versions', `${n}.delta.json`));
}

async function measure(main: string, doc: ConfigDoc, store: string, profDir: string | null): Promise<Row> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-scale-'));
  let redis: TestRedis | null = null;
  const procs: ChildProcess[] = [];
  try {
    const env: Record<string, string> = {
      FW_DATA_DIR: path.join(dir, 'data'), FW_INTERFACES: 'eth0,eth1,eth2,eth3', FW_DATAPLANE: 'none', FW_COMMIT_TIMEOUT: '900',
      FW_TOKEN_TTL: '86400',
    };
    if (store === 'redis') {
      redis = await startRedis(path.join(dir, 'redis'));
      env.REDIS_URL = redis.url;
    }
    const daemons: Instance[] = [];
    for (let n = 0; n < (redis ? opts.instances : 1); n++) {
      const d = await startInstance({ ...env, FW_NODE_ID: `scale${n}` }, main, profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []);
      daemons.push(d);
      procs.push(d.proc);
    }
    await allReady(daemons);
    const tokens = await Promise.all(daemons.map((d) => login(d.port)));
    // the k-th request of a change goes to the k-th instance (round robin)
    const req = (k: number, method: string, p: string, body?: string) => ok(request(daemons[k % daemons.length].port, method, p, tokens[k % daemons.length], body), `${method} ${p}`);
    const body = loadable(JSON.stringify(exportDoc(doc, 0)));
    await req(0, 'POST', '/api/config/begin');
    let t = process.hrtime.bigint();
    await req(1, 'PUT', '/api/config/candidate', body);
    const loadMs = ms(t);
    t = process.hrtime.bigint();
    await req(2, 'POST', '/api/config/commit', JSON.stringify({ description: 'scale load' }));
    const commitMs = ms(t);
    await allReady(daemons);
    const change = async (p: string, b: string) => {
      if (opts.settle) await allDeep(daemons, tokens);
      const t0 = process.hrtime.bigint();
      await req(0, 'POST', '/api/config/begin');
      await req(1, 'PUT', p, b);
      await req(2, 'POST', '/api/config/commit', JSON.stringify({ description: `scale ${p}` }));
      const took = ms(t0);
      await allReady(daemons);
      return took;
    };
    if (opts.settle) await allDeep(daemons, tokens); // the full commit's deep pass is not the change's CPU
    const cpu0 = daemons.reduce((s, d) => s + cpuMs(d.proc.pid!), 0);
    const addressTimes: number[] = [];
    for (let i = 0; i < opts.changes; i++) {
      const [name, ips] = changedAddress(doc, i);
      addressTimes.push(await change(`/api/addresses/${name}`, ips));
    }
    const addressVersion = await servedEverywhere(daemons, tokens);
    // the CPU of one address change (a mean over them)
    const addressCpuMs = (daemons.reduce((s, d) => s + cpuMs(d.proc.pid!), 0) - cpu0) / opts.changes;
    const versionBytes = await recordBytes(redis, path.join(dir, 'data'), addressVersion);
    const policyTimes: number[] = [];
    for (let i = 0; i < opts.changes; i++) {
      const p = doc.policies[((doc.policies.length >> 1) + i * 101) % doc.policies.length];
      policyTimes.push(await change(`/api/policies/${p.id}`, JSON.stringify({ action: p.action === 'allow' ? 'deny' : 'allow' })));
    }
    const k = 1 % daemons.length;
    const list = await timedGet(daemons[k].port, '/api/policies', tokens[k]);
    // the CPU is read once every daemon has the last version's deep analysis: a run's cost
    // includes the deep passes (every instance's, or one shared: issue 30)
    await allDeep(daemons, tokens);
    return {
      loadMs, commitMs, addressMs: median(addressTimes), policyMs: median(policyTimes), addressMaxMs: Math.max(...addressTimes), policyMaxMs: Math.max(...policyTimes), addressCpuMs, versionBytes, listFirstMs: list.first, listMs: list.total, listBytes: list.bytes,
      rssMb: Math.max(...daemons.map((d) => rssMb(d.proc.pid!))),
      cpuMs: daemons.reduce((s, d) => s + cpuMs(d.proc.pid!), 0),
    };
  } finally {
    await Promise.all(procs.map(stopChild));
    closeAgent();
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function scaleBench(): Promise<void> {
  const builds: Array<[string, string]> = [['this build', path.resolve(__dirname, '../src/main.js')]];
  if (opts.against) builds.push([`against ${opts.against}`, path.join(opts.against, 'src/main.js')]);
  console.log(`Commit at scale: ${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}, node ${process.version}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB; no data plane; Redis: ${opts.instances} instances, a change's requests spread over them; changes timed ${opts.settle ? 'once the version before is analyzed deep (--settle)' : 'right after the commit before'}\n`);
  const ratio = builds.length > 1;
  console.log(`| generator | policies / addresses | store | build | ${COLUMNS.map(([, h]) => h).join(' | ')} | list MB | load avg |`);
  console.log(`|---|---|---|---|${COLUMNS.map(() => '---:').join('|')}|---:|---:|`);
  // this build's rows of the first store, by generator and size, for the shapes table
  const mine = new Map<string, Map<number, Row>>();
  for (const generator of opts.generators) {
    for (const size of opts.sizes) {
      const doc = generate(generator, size);
      for (const store of opts.stores) {
        const rows: Row[] = [];
        for (const [label, main] of builds) {
          const before = os.loadavg()[0];
          const where = `| ${generator} | ${fmt(doc.policies.length)} / ${fmt(doc.addresses.size)} | ${store}${store === 'redis' ? ` x${opts.instances}` : ''} | ${label} |`;
          const prof = opts.cpuProf ? path.join(opts.cpuProf, `${generator}-${size}`) : null;
          const r = await measure(main, doc, store, prof).catch((e: unknown) => {
            // a refused step is a result too (the issue's 504 at 100,000): shown, and the run goes on
            console.log(`${where} failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 200)} | load ${before.toFixed(1)}-${os.loadavg()[0].toFixed(1)} |`);
            return null;
          });
          if (!r) continue;
          rows.push(r);
          if (rows.length === 1 && store === opts.stores[0]) {
            if (!mine.has(generator)) mine.set(generator, new Map());
            mine.get(generator)!.set(size, r);
          }
          const cells = COLUMNS.map(([k]) => (ratio && rows.length > 1 ? `${fmt(r[k])} (${(rows[0][k] / r[k]).toFixed(2)}x)` : fmt(r[k])));
          console.log(`${where} ${cells.join(' | ')} | ${(r.listBytes / 1048576).toFixed(1)} | ${before.toFixed(1)}-${os.loadavg()[0].toFixed(1)} |`);
        }
      }
    }
  }
  if (ratio) console.log('\n(ratio: this build\'s value over the other build\'s: below 1 is faster or smaller here)');
  shapesTable(mine);
}

/** Every generator side by side (issue 44): per size, the full commit, the one-change commits
 * and their ratio to the smallest size of the same generator (1,000 with `--sizes 1000,...`), RSS. */
function shapesTable(mine: Map<string, Map<number, Row>>): void {
  if (mine.size === 0) return;
  const low = Math.min(...opts.sizes);
  console.log(`\nShapes side by side (this build, ${opts.stores[0]} store; x: the change's time over the same generator's at ${fmt(low)} policies)\n`);
  console.log('| shape | policies | full commit ms | address + commit ms | x | policy + commit ms | x | RSS MB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [generator, bySize] of mine) {
    const first = bySize.get(low);
    for (const [size, r] of [...bySize].sort((a, b) => a[0] - b[0])) {
      const x = (k: 'addressMs' | 'policyMs') => (first && size !== low ? `${(r[k] / first[k]).toFixed(1)}x` : '');
      console.log(`| ${generator} | ${fmt(size)} | ${fmt(r.commitMs)} | ${fmt(r.addressMs)} | ${x('addressMs')} | ${fmt(r.policyMs)} | ${x('policyMs')} | ${fmt(r.rssMb)} |`);
    }
  }
}
