// `node dist/bench/commit-scale.js [--policies 20000,100000] [--changes 3] [--against DIST]
// [--cpu-prof DIR]`: issue 30's commit at scale, end to end over HTTP against the daemon as
// `npm start` runs it (embedded store, no data plane). Per size: the random rule base of
// bench/scale-config.ts loaded in one PUT /api/config/candidate, its full commit, then
// --changes rounds of a one-address change + commit and of a one-policy change + commit
// (each timed from the change request to the commit's answer), the size of the commit
// answers (their warnings) and the daemon's RSS after the last commit. With --against DIST
// (another build's dist, e.g. main's) the same steps run on that build's daemon right after,
// so both rows share the machine's load. --cpu-prof DIR: the daemon runs with node
// --cpu-prof and writes its profile (main thread) into DIR when it stops.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportDoc } from '../src/config/export';
import { closeAgent, fmt, login, request, startInstance } from './http-load';
import { scaleCidr, scaleConfig } from './scale-config';
import { cpuSeconds, median } from './stats';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Row {
  build: string;
  policies: number;
  loadMs: number;
  commitMs: number;
  addressMs: number[];
  policyMs: number[];
  /** the daemon's CPU ms (every thread) over the same spans: what the load of other processes
   * does not inflate as much as the wall time */
  commitCpu: number;
  addressCpu: number[];
  policyCpu: number[];
  /** from a commit's answer until GET /api/analysis answers its deep pass: the full commit's,
   * then each change's */
  deepMs: number[];
  answerBytes: number;
  warningLines: number;
  rssMb: number;
}

async function must(p: Promise<{ status: number; text: string }>, what: string): Promise<string> {
  const r = await p;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.text;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function runBuild(build: string, main: string, policies: number, changes: number, profDir?: string): Promise<Row> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-scale-'));
  const nodeArgs = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  const d = await startInstance({ FW_DATA_DIR: dir, FW_DATAPLANE: 'none', FW_INTERFACES: 'eth0,eth1,eth2,eth3', FW_COMMIT_TIMEOUT: '600' }, main, nodeArgs);
  try {
    const token = await login(d.port);
    const req = (method: string, p: string, body?: string) => request(d.port, method, p, token, body);
    const doc = scaleConfig({ policies });
    const body = JSON.stringify(exportDoc(doc, 0));
    await must(req('POST', '/api/config/begin'), 'begin');
    const t0 = performance.now();
    await must(req('PUT', '/api/config/candidate', body), 'load');
    const loadMs = performance.now() - t0;
    const pid = d.proc.pid!;
    const cpu = () => cpuSeconds(pid) * 1000;
    const t1 = performance.now(), c1 = cpu();
    const answer = await must(req('POST', '/api/config/commit', '{"description":"scale load"}'), 'commit');
    const commitMs = performance.now() - t1, commitCpu = cpu() - c1;
    const warnings = (JSON.parse(answer) as { warnings?: string }).warnings ?? '';
    const addressMs: number[] = [];
    const policyMs: number[] = [];
    const addressCpu: number[] = [];
    const policyCpu: number[] = [];
    // the deep analysis of each version runs after its commit in the background: each change
    // starts once it is done (GET /api/analysis answers the deep pass), so its CPU is not
    // counted in the next change's; how long after the commit's answer it came is kept
    const deepDone = async (): Promise<number> => {
      const t = performance.now();
      for (let k = 0; k < 2400; k++) {
        const a = JSON.parse(await must(req('GET', '/api/analysis'), 'analysis')) as { pass: string };
        if (a.pass === 'deep') return performance.now() - t;
        await new Promise((r) => setTimeout(r, 250));
      }
      return NaN;
    };
    const deepMs = [await deepDone()];
    for (let k = 0; k < changes; k++) {
      // one address moved to another network of its zone
      const name = `a${(k * 7919) % doc.addresses.size}`;
      const z = Number(doc.addresses.get(name)!.ips[0].split('.')[1]);
      const ta = performance.now(), ca = cpu();
      await must(req('POST', '/api/config/begin'), 'begin');
      await must(req('PUT', `/api/addresses/${name}`, JSON.stringify({ name, ips: [scaleCidr(z, 32, 200, k)] })), 'address change');
      await must(req('POST', '/api/config/commit', '{}'), 'commit');
      addressMs.push(performance.now() - ta);
      addressCpu.push(cpu() - ca);
      deepMs.push(await deepDone());
      // one policy's action flipped
      const p = doc.policies[(k * 104729) % doc.policies.length];
      const tp = performance.now(), cp = cpu();
      await must(req('POST', '/api/config/begin'), 'begin');
      const action = k % 2 === 0 ? (p.action === 'allow' ? 'deny' : 'allow') : p.action;
      await must(req('PUT', `/api/policies/${p.id}`, JSON.stringify({ action, 'src-zone': p.srcZone, 'dst-zone': p.dstZone, 'src-addr': p.srcAddr || 'any', 'dst-addr': p.dstAddr || 'any', services: p.services, log: p.log })), 'policy change');
      await must(req('POST', '/api/config/commit', '{}'), 'commit');
      policyMs.push(performance.now() - tp);
      policyCpu.push(cpu() - cp);
      deepMs.push(await deepDone());
    }
    const rss = rssMb(d.proc.pid!);
    return { build, policies, loadMs, commitMs, addressMs, policyMs, commitCpu, addressCpu, policyCpu, deepMs, answerBytes: Buffer.byteLength(answer), warningLines: warnings ? warnings.split('\n').length : 0, rssMb: rss };
  } finally {
    const exited = new Promise((r) => d.proc.once('exit', r));
    d.proc.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = (arg('policies') ?? '20000,100000').split(',').map(Number);
  const changes = Number(arg('changes') ?? 3);
  const against = arg('against');
  const profDir = arg('cpu-prof');
  const builds: Array<[string, string]> = [['this build', path.resolve(__dirname, '../src/main.js')]];
  if (against) builds.push([`against ${against}`, path.resolve(against, 'src/main.js')]);
  const rows: Row[] = [];
  const loads: number[] = [os.loadavg()[0]];
  for (const n of sizes) {
    for (const [label, main] of builds) {
      const row = await runBuild(label, main, n, changes, profDir);
      rows.push(row);
      loads.push(os.loadavg()[0]);
      process.stderr.write(`${label}, ${n} policies: commit ${fmt(row.commitMs)} ms, address+commit ${row.addressMs.map(fmt).join('/')} ms, policy+commit ${row.policyMs.map(fmt).join('/')} ms\n`);
    }
  }
  closeAgent();
  console.log(`\nCommit at scale (bench/scale-config.ts random rule base, addresses = policies / 10), embedded store, FW_DATAPLANE=none; ${changes} change rounds; ms`);
  console.log(`load average (1 min): ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}; ${os.cpus().length} cores, ${os.cpus()[0].model}, Node ${process.version}\n`);
  console.log('Wall ms / the daemon\'s CPU ms (all threads) over the same span; changes: medians');
  console.log('| build | policies | load | full commit | one address + commit | one policy + commit | deep pass after the full commit / after a change (wall) | commit answer bytes (warning lines) | RSS MB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.build} | ${fmt(r.policies)} | ${fmt(r.loadMs)} | ${fmt(r.commitMs)} / ${fmt(r.commitCpu)} | ${fmt(median(r.addressMs))} / ${fmt(median(r.addressCpu))} | ${fmt(median(r.policyMs))} / ${fmt(median(r.policyCpu))} | ${fmt(r.deepMs[0])} / ${fmt(median(r.deepMs.slice(1)))} | ${fmt(r.answerBytes)} (${r.warningLines}) | ${fmt(r.rssMb)} |`);
  }
  if (builds.length > 1) {
    console.log('\nThis build against the other, wall / CPU ratios:\n');
    console.log('| policies | full commit | address + commit | policy + commit |');
    console.log('|---:|---:|---:|---:|');
    for (const n of sizes) {
      const [a, b] = rows.filter((r) => r.policies === n);
      const x = (f: (r: Row) => number) => (f(a) / f(b)).toFixed(2);
      console.log(`| ${fmt(n)} | ${x((r) => r.commitMs)} / ${x((r) => r.commitCpu)} | ${x((r) => median(r.addressMs))} / ${x((r) => median(r.addressCpu))} | ${x((r) => median(r.policyMs))} / ${x((r) => median(r.policyCpu))} |`);
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
