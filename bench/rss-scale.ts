// RSS at rest with a big rule base (issue 30: under 500 MB at 100,000 policies):
// `node dist/bench/rss-scale.js [--policies 100000] [--rounds 2] [--against DIST]`.
// One daemon (embedded store, no data plane; REDIS_URL in the environment: on that Redis)
// takes the random rule base (bench/scale-config.ts) in one PUT
// /api/config/candidate, commits it, flips one policy's action and commits, waits for the
// deep analysis of that version, reads GET /api/policies whole, then stays idle: its RSS is
// read 5, 10, 20 and 30 s later (the deep-analysis thread ends after 30 s idle), with its peak
// (VmHWM) and the CPU it used (every thread). Then each thread's V8 heap
// (bench/thread-heaps.ts): used and committed as it was, then after two full collections.
// With --against, another build's daemon runs the same, rounds alternating between builds.
// --heaps-at S: the threads' heaps are read S s into the idle time instead (e.g. 5: while the
// deep-analysis thread still lives; their collections then lower the RSS read after).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopChild } from '../src/dataplane/host';
import { exportDoc } from '../src/config/export';
import { loadable } from './automation';
import { closeAgent, fmt, login, request, startInstance } from './http-load';
import { scaleConfig } from './scale-config';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : def;
}

const policies = Number(arg('policies', '100000'));
const rounds = Number(arg('rounds', '2'));
const against = process.argv.includes('--against') ? path.resolve(arg('against', '')) : null;
const heapsAt = Number(arg('heaps-at', '0'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function status(pid: number): { rss: number; hwm: number } {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)![1]) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

async function measure(build: string, label: string, body: string, flip: { id: number; action: string }): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-rss-'));
  const trigger = path.join(dir, 'heaps');
  const env: Record<string, string> = {
    FW_DATA_DIR: path.join(dir, 'data'), FW_INTERFACES: 'eth0,eth1,eth2,eth3', FW_DATAPLANE: 'none', FW_COMMIT_TIMEOUT: '900',
    FW_TOKEN_TTL: '86400', FW_BENCH_HEAPS_TRIGGER: trigger,
  };
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  const d = await startInstance(env, path.join(build, 'src/main.js'), ['--expose-gc', '-r', path.resolve(__dirname, 'thread-heaps.js')]);
  const pid = d.proc.pid!;
  try {
    const token = await login(d.port);
    const req = async (method: string, p: string, b?: string) => {
      const r = await request(d.port, method, p, token, b);
      if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 200)}`);
      return r.text;
    };
    const load = os.loadavg()[0];
    const t0 = Date.now();
    const c0 = cpuMs(pid);
    await req('POST', '/api/config/begin');
    await req('PUT', '/api/config/candidate', body);
    await req('POST', '/api/config/commit', '{}');
    await req('POST', '/api/config/begin');
    await req('PUT', `/api/policies/${flip.id}`, JSON.stringify({ action: flip.action }));
    await req('POST', '/api/config/commit', '{}');
    while ((JSON.parse(await req('GET', '/api/analysis')) as { pass?: string }).pass !== 'deep') await sleep(250);
    await req('GET', '/api/policies');
    const wall = Date.now() - t0;
    const cpu = cpuMs(pid) - c0;
    const idle: number[] = [];
    let at = 0;
    for (const s of [5, 10, 20, 30]) {
      await sleep((s - at) * 1000);
      at = s;
      idle.push(status(pid).rss);
      if (s === heapsAt) fs.writeFileSync(trigger, String(Date.now()));
    }
    const { hwm } = status(pid);
    if (!heapsAt) {
      fs.writeFileSync(trigger, String(Date.now()));
      await sleep(3000);
    }
    console.log(`| ${label} | ${fmt(wall)} / ${fmt(cpu)} | ${idle.map(fmt).join(' | ')} | ${fmt(hwm)} | ${load.toFixed(1)}-${os.loadavg()[0].toFixed(1)} |`);
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith(`heaps.${pid}-`)).sort()) {
      const h = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, number | string>;
      console.log(`|   ${h.thread} | heap used/committed ${h.usedMb}/${h.totalMb} MB, after 2 full GCs ${h.usedAfterGcMb}/${h.totalAfterGcMb}, external ${h.externalMb} (array buffers ${h.arrayBuffersMb}) | | | | | |`);
    }
  } finally {
    await stopChild(d.proc);
    closeAgent();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const doc = scaleConfig({ policies });
  const body = loadable(JSON.stringify(exportDoc(doc, 0)));
  const mid = doc.policies[doc.policies.length >> 1];
  const flip = { id: mid.id, action: mid.action === 'allow' ? 'deny' : 'allow' };
  const builds: Array<[string, string]> = [[path.resolve(__dirname, '..'), 'this build']];
  if (against) builds.push([against, `against ${against}`]);
  console.log(`RSS at rest, ${fmt(policies)} policies: ${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; store ${process.env.REDIS_URL ? 'redis' : 'embedded'}\n`);
  console.log('| build | load to deep pass: wall / daemon CPU ms | RSS +5 s MB | +10 s | +20 s | +30 s | peak (VmHWM) MB | load avg |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (let r = 0; r < rounds; r++) {
    for (const [build, label] of r % 2 ? [...builds].reverse() : builds) await measure(build, label, body, flip);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
