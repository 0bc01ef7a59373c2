// HTTP benchmark: `npm run bench:http` (node dist/bench/http.js [--seconds S] [--classbench DIR]
// [--only hot|batch]); with --redis, both stores side by side instead (bench/cluster.ts).
// --only hot: the hot-path comparison alone; --only batch: the batch eval rows alone.
// Starts the daemon as a child process (exactly as `npm start` runs it) on a data folder
// seeded with a large committed configuration (ClassBench fw1_10k if present, else the
// generated realistic one), then drives it from this process over keep-alive connections and
// prints requests/s and latency per endpoint, with the ratio to the cheapest authenticated
// request of the same run; then packets/s of the batch eval endpoint against the same
// packets evaluated in-process: CompiledConfig.evalBatch (Packet objects in, answer objects
// out) and the endpoint's own path from body bytes to answer bytes (what HTTP adds on top).
// The batch endpoint is driven twice: by this process (Node's http client, the answer read
// into a string) and by wrk (a C client that reads and drops the answer), which leaves the
// daemon the cores the Node client would take. --against DIST (another build's dist folder,
// e.g. main's): that build's daemon too, both driven by wrk in alternating rounds (--rounds),
// their CPU a packet side by side (the measure that holds on a shared machine), at wrk -c1,
// -c2 and -c4. --against inline: this build with FW_EVAL_THREADS=0 (no batch threads).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { ConfigDoc } from '../src/config/types';
import { BatchAnswers, releaseBatch } from '../src/eval/batch';
import { releaseAnswer } from '../src/eval/answer-json';
import { scanPacketBatch } from '../src/eval/batch-scan';
import { CompiledConfig } from '../src/eval/compiled';
import { EmbeddedStore } from '../src/store/embedded';
import { classBenchDoc, loadClassBench } from './classbench';
import { generateConfig, REALISTIC, rng } from './generate';
import { makePackets, toPacket } from './packets';
import { clusterBench } from './cluster';
import { PASSWORD, closeAgent, fmt, oneTarget, request, run, seedStore, startInstance, type Load, type Result } from './http-load';
import { cpuSeconds, median } from './stats';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const seconds = Number(arg('seconds') ?? '3');
const cbDir = path.resolve(arg('classbench') ?? path.resolve(__dirname, '../../../shared/bench-data/classbench'));

/** The configuration to seed: fw1_10k when the ClassBench files are there. */
function benchDoc(): { name: string; doc: ConfigDoc } {
  const file = path.join(cbDir, 'fw1_10k');
  if (fs.existsSync(file)) return { name: 'fw1_10k', doc: classBenchDoc(loadClassBench(file)) };
  return { name: 'generated', doc: generateConfig(REALISTIC) };
}

/** One wrk run (one thread, `conns` connections, `extra` options such as a script): its
 * requests/s and request count; throws on any answer but 200. */
function wrkRun(url: string, token: string, runSeconds: number, conns: number, extra: string[] = []): { rps: number; requests: number } {
  const r = spawnSync('wrk', ['-t1', `-c${conns}`, `-d${runSeconds}s`, ...extra, '-H', `Authorization: Bearer ${token}`, url], { encoding: 'utf8' });
  const m = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout ?? '');
  const c = /(\d+) requests in/.exec(r.stdout ?? '');
  if (!m || !c) throw new Error(`wrk gave no rate: ${r.stdout} ${r.stderr}`);
  if (/Non-2xx/.test(r.stdout)) throw new Error(`wrk saw errors on ${url}: ${r.stdout}`);
  return { rps: Number(m[1]), requests: Number(c[1]) };
}

/** wrk's requests/s for one URL, one thread and `conns` connections. */
function wrkRps(url: string, token: string, runSeconds: number, conns = 32): number {
  return wrkRun(url, token, runSeconds, conns).rps;
}

/** Resolves once the process has used under 5% of a core for half a second (at most 60 s):
 * a daemon just started analyses its configuration in worker threads, whose CPU /proc counts. */
async function idle(pid: number): Promise<void> {
  const end = Date.now() + 60_000;
  for (let c0 = cpuSeconds(pid); Date.now() < end; ) {
    await new Promise((r) => setTimeout(r, 500));
    const c1 = cpuSeconds(pid);
    if (c1 - c0 < 0.025) return;
    c0 = c1;
  }
}

/** One wrk run against a server process: its rate and the server's CPU µs per request. */
function measured(url: string, pid: number, token: string, runSeconds: number): { rps: number; cpuUs: number } {
  const c0 = cpuSeconds(pid);
  const r = wrkRun(url, token, runSeconds, 32);
  return { rps: r.rps, cpuUs: ((cpuSeconds(pid) - c0) * 1e6) / r.requests };
}

/** wrk POSTing `body` to `url` (null without wrk). */
function wrkPost(url: string, token: string, body: string, runSeconds: number, conns: number, dir: string): { rps: number; requests: number } | null {
  if (spawnSync('wrk', ['--version']).error) return null;
  const bodyFile = path.join(dir, 'wrk-body.json');
  const script = path.join(dir, 'wrk-post.lua');
  fs.writeFileSync(bodyFile, body);
  fs.writeFileSync(script, [
    `local f = io.open(${JSON.stringify(bodyFile)}, "rb")`,
    'wrk.body = f:read("*a")',
    'f:close()',
    'wrk.method = "POST"',
    'wrk.headers["Content-Type"] = "application/json"',
  ].join('\n'));
  return wrkRun(url, token, runSeconds, conns, ['-s', script]);
}

/** Starts bench/raw-uws.js answering `bodies` (path -> body), over TLS with `tls`; resolves with its port. */
function startRaw(bodies: Record<string, string>, dir: string, tls?: { cert: string; key: string }): Promise<{ proc: ChildProcess; port: number }> {
  const file = path.join(dir, 'raw-bodies.json');
  fs.writeFileSync(file, JSON.stringify(bodies));
  const args = [path.resolve(__dirname, 'raw-uws.js'), file, ...(tls ? [tls.cert, tls.key] : [])];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.stdout!.once('data', (b: Buffer) => resolve({ proc, port: (JSON.parse(b.toString()) as { port: number }).port }));
    proc.on('exit', (code) => reject(new Error(`raw uWS server exited ${code}`)));
  });
}

/** One row of the hot-path table: a request to the daemon with a credential, and the path the
 * raw server answers the same bytes on. */
interface HotRow {
  label: string;
  path: string;
  token: string;
  rawPath: string;
  body: string;
}

/** A server under test: its URL base and process. */
interface Target {
  base: string; // "http://127.0.0.1:port"
  pid: number;
}

/** The rows' requests against the raw server and the daemon, alternating, `rounds` rounds. */
function compareRows(rows: HotRow[], raw: Target, ours: Target, rounds: number, runSeconds: number): void {
  console.log('| request | body bytes | raw uWS req/s (median) | fwd req/s (median) | fwd / raw req/s (median of rounds) | per round | raw CPU µs/req | fwd CPU µs/req | raw / fwd CPU (median of rounds) |');
  console.log('|---|---:|---:|---:|---:|---|---:|---:|---:|');
  for (const row of rows) {
    const rawUrl = raw.base + row.rawPath;
    const ourUrl = ours.base + row.path;
    wrkRps(rawUrl, row.token, 1); // warm-up, untimed
    wrkRps(ourUrl, row.token, 1);
    const rawRuns: Array<{ rps: number; cpuUs: number }> = [];
    const ourRuns: Array<{ rps: number; cpuUs: number }> = [];
    for (let i = 0; i < rounds; i++) {
      // alternate which goes first: a machine that gets busier or quieter favours neither
      const runRaw = () => rawRuns.push(measured(rawUrl, raw.pid, row.token, runSeconds));
      const runOurs = () => ourRuns.push(measured(ourUrl, ours.pid, row.token, runSeconds));
      if (i % 2 === 0) { runRaw(); runOurs(); } else { runOurs(); runRaw(); }
    }
    const ratios = ourRuns.map((o, i) => o.rps / rawRuns[i].rps);
    const cpuRatios = ourRuns.map((o, i) => rawRuns[i].cpuUs / o.cpuUs);
    const rawCpu = median(rawRuns.map((r) => r.cpuUs));
    const ourCpu = median(ourRuns.map((r) => r.cpuUs));
    console.log(`| ${row.label} | ${Buffer.byteLength(row.body)} | ${fmt(median(rawRuns.map((r) => r.rps)))} | ${fmt(median(ourRuns.map((r) => r.rps)))} | ${median(ratios).toFixed(2)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} | ${rawCpu.toFixed(2)} | ${ourCpu.toFixed(2)} | ${median(cpuRatios).toFixed(2)} |`);
  }
}

/** GET /api/me with a JWT and with an API token, and GET /api/policies, answered by `daemon`
 * (`get` reads it over its scheme); the raw server's paths for the same bytes. */
async function hotRows(get: (p: string, token: string) => Promise<{ status: number; text: string }>, jwt: string, apiToken: string, withPolicies: boolean): Promise<HotRow[]> {
  const wanted = [
    { label: 'GET /api/me (JWT)', path: '/api/me', token: jwt, rawPath: '/api/me' },
    { label: 'GET /api/me (API token)', path: '/api/me', token: apiToken, rawPath: '/api/me-token' },
    ...(withPolicies ? [{ label: 'GET /api/policies (JWT)', path: '/api/policies', token: jwt, rawPath: '/api/policies' }] : []),
  ];
  const rows: HotRow[] = [];
  for (const w of wanted) {
    const r = await get(w.path, w.token);
    if (r.status !== 200) throw new Error(`${w.label}: ${r.status} ${r.text}`);
    rows.push({ ...w, body: r.text });
  }
  return rows;
}

/** An HTTPS request to a daemon on this machine (its self-signed certificate accepted). */
function httpsRequest(port: number, method: string, p: string, token: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const req = https.request({ host: '127.0.0.1', port, method, path: p, headers, rejectUnauthorized: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

type Requester = (port: number, method: string, p: string, token: string, body?: string) => Promise<{ status: number; text: string }>;

/** Logs in as admin on a daemon and makes an admin API token: the two credentials of the rows. */
async function credentials(port: number, send: Requester): Promise<{ jwt: string; apiToken: string }> {
  const login = await send(port, 'POST', '/api/login', '', JSON.stringify({ username: 'admin', password: PASSWORD }));
  const jwt = JSON.parse(login.text).token as string;
  const made = await send(port, 'POST', '/api/tokens', jwt, JSON.stringify({ name: 'bench', role: 'admin' }));
  if (made.status !== 200) throw new Error(`POST /api/tokens: ${made.status} ${made.text}`);
  return { jwt, apiToken: JSON.parse(made.text).token as string };
}

/** One side of the hot-path comparison: a seeded daemon (over TLS with `tls`) and the raw
 * server answering its bytes; prints the table. */
async function hotSide(doc: ConfigDoc, dir: string, rounds: number, runSeconds: number, tls?: { cert: string; key: string }): Promise<void> {
  const data = path.join(dir, tls ? 'data-tls' : 'data');
  await seedStore(new EmbeddedStore({ dir: data }), doc);
  const daemon = await startInstance({ FW_DATA_DIR: data, ...(tls ? { FW_TLS_CERT: tls.cert, FW_TLS_KEY: tls.key } : {}) });
  let raw: { proc: ChildProcess; port: number } | undefined;
  try {
    const send: Requester = tls ? httpsRequest : request;
    const { jwt, apiToken } = await credentials(daemon.port, send);
    const rows = await hotRows((p, t) => send(daemon.port, 'GET', p, t), jwt, apiToken, !tls);
    raw = await startRaw(Object.fromEntries(rows.map((r) => [r.rawPath, r.body])), dir, tls);
    const scheme = tls ? 'https' : 'http';
    await idle(daemon.proc.pid!);
    compareRows(rows, { base: `${scheme}://127.0.0.1:${raw.port}`, pid: raw.proc.pid! }, { base: `${scheme}://127.0.0.1:${daemon.port}`, pid: daemon.proc.pid! }, rounds, runSeconds);
  } finally {
    raw?.proc.kill('SIGTERM');
    daemon.proc.kill('SIGTERM');
    await new Promise((r) => daemon.proc.once('exit', r));
  }
}

/**
 * The authenticated hot path against a bare uWebSockets.js server answering the same bytes,
 * both driven by wrk in the same run, alternating, several rounds: the ratio per round and
 * its median. The daemon runs as in production (info logs, metrics) on a small committed
 * configuration (10 policies), so /api/policies is a cached read, as on any real firewall
 * between commits. Then the same over TLS (FW_TLS_CERT) against a bare uWS SSLApp with the
 * same certificate and cipher list: keep-alive connections, so the handshakes are in the
 * warm-up and the rows measure encrypted requests.
 */
async function hotPath(): Promise<void> {
  if (spawnSync('wrk', ['--version']).error) {
    console.log('\nwrk is not installed (apt-get install wrk): the hot-path comparison with raw uWS is skipped');
    return;
  }
  const rounds = Number(arg('rounds') ?? '5');
  const runSeconds = Number(arg('hot-seconds') ?? '3');
  const doc = generateConfig({ zones: 4, addresses: 20, services: 10, policies: 10, nat: 2, seed: 7 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-hot-'));
  try {
    console.log(`\nHot path: fwd (own process, info logs) vs a bare uWebSockets.js server answering the same bytes; wrk -t1 -c32, ${runSeconds}s a run, ${rounds} rounds alternating, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log('CPU µs a request: the server process\'s user + system time over the requests wrk counted (kernel networking included); its ratio is the less noisy one on a shared machine\n');
    await hotSide(doc, dir, rounds, runSeconds);
    const cert = selfSignedCert(dir);
    if (!cert) {
      console.log('\nopenssl is not installed: the TLS rows are skipped');
      return;
    }
    console.log(`\nOver TLS (FW_TLS_CERT, ECDSA P-256, TLS 1.3) vs a bare uWS SSLApp, same options; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    await hotSide(doc, dir, rounds, runSeconds, cert);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A self-signed ECDSA certificate for 127.0.0.1 in `dir` (null without openssl). */
function selfSignedCert(dir: string): { cert: string; key: string } | null {
  const cert = path.join(dir, 'bench.crt');
  const key = path.join(dir, 'bench.key');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-noenc', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  return r.status === 0 ? { cert, key } : null;
}

/** CPU µs a packet of each step of the endpoint's path in this process (medians of 9). */
function stageCpu(compiled: CompiledConfig, body: Buffer, seconds: number): Record<string, number> {
  const b = scanPacketBatch(body)!;
  const answers = compiled.evalBatchInto(b, new BatchAnswers(b.length));
  const steps: Record<string, () => void> = {
    scanPacketBatch: () => releaseBatch(scanPacketBatch(body)!),
    evalBatchInto: () => compiled.evalBatchInto(b, answers),
    batchJson: () => releaseAnswer(compiled.batchJson(1, answers)),
  };
  const reps = Math.max(1, Math.round((seconds * 20) / 9));
  const out: Record<string, number> = {};
  for (const [k, f] of Object.entries(steps)) {
    const runs: number[] = [];
    for (let r = 0; r < 9; r++) {
      const u = process.cpuUsage();
      for (let i = 0; i < reps; i++) f();
      const d = process.cpuUsage(u);
      runs.push((d.user + d.system) / reps / b.length);
    }
    out[k] = median(runs);
  }
  releaseBatch(b);
  return out;
}

/**
 * This build's daemon against another daemon, same committed document: another build's (its
 * dist folder, --against DIST) or this build with FW_EVAL_THREADS=0 (--against inline). wrk
 * with 1, 2 and 4 connections, rounds alternating which goes first: the daemon's CPU µs a
 * packet (user + system of all its threads, from /proc, over the requests wrk counted) and
 * packets/s, medians and the ratio per round.
 */
async function batchAgainst(doc: ConfigDoc, batch: string, count: number, ours: { proc: ChildProcess; port: number; token: string }, against: string, dir: string): Promise<void> {
  const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-against-'));
  await seedStore(new EmbeddedStore({ dir: otherDir }), doc);
  const inline = against === 'inline';
  const label = inline ? 'this build, FW_EVAL_THREADS=0' : path.resolve(against);
  const main = inline ? undefined : path.join(label, 'src/main.js');
  const other = await startInstance({ FW_DATA_DIR: otherDir, ...(inline ? { FW_EVAL_THREADS: '0' } : {}) }, main);
  try {
    const login = await request(other.port, 'POST', '/api/login', '', JSON.stringify({ username: 'admin', password: PASSWORD }));
    const both = [ours, { ...other, token: JSON.parse(login.text).token as string }];
    await idle(other.proc.pid!);
    const rounds = Number(arg('rounds') ?? '7');
    const once = (d: (typeof both)[0], s: number, conns: number) => {
      const c0 = cpuSeconds(d.proc.pid!), m0 = cpuSeconds(d.proc.pid!, true);
      const w = wrkPost(`http://127.0.0.1:${d.port}/api/eval/batch`, d.token, batch, s, conns, dir);
      if (w === null) throw new Error('--against needs wrk');
      const perPacket = (cpu: number) => (cpu * 1e6) / (w.requests * count);
      return { pps: w.rps * count, cpuUs: perPacket(cpuSeconds(d.proc.pid!) - c0), mainUs: perPacket(cpuSeconds(d.proc.pid!, true) - m0) };
    };
    for (const d of both) once(d, 3, 2); // warm-up: JIT, pools, threads
    for (const conns of [1, 2, 4]) {
      const runs: Array<Array<{ pps: number; cpuUs: number; mainUs: number }>> = [[], []];
      for (let r = 0; r < rounds; r++) for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) runs[k].push(once(both[k], seconds, conns));
      const ratio = runs[0].map((x, i) => x.pps / runs[1][i].pps);
      console.log(`\nAgainst ${label}: wrk -c${conns}, ${rounds} rounds of ${seconds}s alternating, load ${os.loadavg()[0].toFixed(1)}\n`);
      console.log('| daemon | packets/s (median) | per round | CPU µs a packet (median) | per round | of it the main thread (median) |');
      console.log('|---|---:|---|---:|---|---:|');
      for (const [k, name] of ['this build', label].entries()) {
        const pps = runs[k].map((x) => x.pps);
        console.log(`| ${name} | ${fmt(median(pps))} | ${pps.map((x) => fmt(x)).join(' ')} | ${median(runs[k].map((x) => x.cpuUs)).toFixed(3)} | ${runs[k].map((x) => x.cpuUs.toFixed(2)).join(' ')} | ${median(runs[k].map((x) => x.mainUs)).toFixed(3)} |`);
      }
      console.log(`\npackets/s, this build / other: median ${median(ratio).toFixed(2)}, rounds ${ratio.map((x) => x.toFixed(2)).join(' ')}`);
    }
  } finally {
    other.proc.kill('SIGTERM');
    await new Promise((r) => other.proc.once('exit', r));
    fs.rmSync(otherDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--redis')) return clusterBench(seconds);
  if (arg('only') !== 'batch') await hotPath();
  if (arg('only') === 'hot') return;
  const { name, doc } = benchDoc();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-'));
  await seedStore(new EmbeddedStore({ dir }), doc);
  const { proc, port } = await startInstance({ FW_DATA_DIR: dir });
  try {
    const login = await request(port, 'POST', '/api/login', '', JSON.stringify({ username: 'admin', password: PASSWORD }));
    const token = JSON.parse(login.text).token as string;
    // packets in the rule set's space, as the eval benchmark makes them
    const set = makePackets(doc, 10000, rng(11));
    const packets = Array.from({ length: set.n }, (_, i) => toPacket(set, i, false));
    const json = packets.map((p) => ({ 'src-ip': p.srcIp, 'dst-ip': p.dstIp, protocol: p.protocol, 'dst-port': p.dstPort }));
    const one = (i: number) => JSON.stringify(json[i % json.length]);
    const batch = JSON.stringify({ packets: json });

    const begin = await request(port, 'POST', '/api/config/begin', token);
    if (begin.status !== 200) throw new Error(begin.text);
    const loads: Load[] = [
      { name: 'GET /api/me (baseline)', concurrency: 32, next: () => ['GET', '/api/me', undefined] },
      { name: 'GET /api/status', concurrency: 32, next: () => ['GET', '/api/status', undefined] },
      { name: 'GET /api/services/{name}', concurrency: 32, next: (i) => ['GET', `/api/services/${[...doc.services.keys()][i % doc.services.size]}`, undefined] },
      { name: 'POST /api/addresses (durable change)', concurrency: 64, next: (i) => ['POST', '/api/addresses', JSON.stringify({ name: `bench-${i}`, ips: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`] })] },
      { name: 'POST /api/eval (one packet)', concurrency: 32, next: (i) => ['POST', '/api/eval', one(i)] },
    ];
    if (arg('only') !== 'batch') {
      const results: Result[] = [];
      for (const l of loads) await run(oneTarget(port, token), l, 0.5); // warm-up: JIT and caches, untimed
      for (const l of loads) results.push(await run(oneTarget(port, token), l, seconds));
      const base = results[0].rps;
      console.log(`\nHTTP, daemon in its own process, ${name} committed (${doc.policies.length} policies), ${seconds}s per row, ${os.cpus().length} cores\n`);
      console.log('| request | concurrency | requests/s | p50 ms | p99 ms | vs baseline |');
      console.log('|---|---:|---:|---:|---:|---:|');
      for (const r of results) {
        console.log(`| ${r.name} | ${r.concurrency} | ${fmt(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${(r.rps / base).toFixed(2)} |`);
      }
    }

    // the batch endpoint against the same packets in-process
    const compiled = CompiledConfig.compile(doc);
    const t0 = process.hrtime.bigint();
    let n = 0;
    while (Number(process.hrtime.bigint() - t0) < seconds * 1e9) {
      compiled.evalBatch(packets);
      n += packets.length;
    }
    const inProcess = n / (Number(process.hrtime.bigint() - t0) / 1e9);
    // what the endpoint does between the body's bytes and the answer's bytes, without HTTP
    const body = Buffer.from(batch);
    const t1 = process.hrtime.bigint();
    const u1 = process.cpuUsage();
    n = 0;
    while (Number(process.hrtime.bigint() - t1) < seconds * 1e9) {
      const b = scanPacketBatch(body)!;
      releaseAnswer(compiled.evalBatchJson(1, b)); // given back as the endpoint does once sent
      releaseBatch(b);
      n += packets.length;
    }
    const fastPath = n / (Number(process.hrtime.bigint() - t1) / 1e9);
    const u2 = process.cpuUsage(u1);
    const fastCpu = n / ((u2.user + u2.system) / 1e6);
    const stages = stageCpu(compiled, body, seconds);
    // rows: label, packets/s (wall clock), packets per CPU second of the daemon
    const rows: Array<[string, number, number]> = [];
    const batchLoad = (conc: number): Load => ({ name: 'batch', concurrency: conc, next: () => ['POST', '/api/eval/batch', batch] });
    await idle(proc.pid!);
    await run(oneTarget(port, token), batchLoad(1), 0.5); // warm-up, untimed
    for (const conc of [1, 2, 4]) {
      const c0 = cpuSeconds(proc.pid!);
      const r = await run(oneTarget(port, token), batchLoad(conc), seconds);
      const requests = r.rps * seconds;
      rows.push([`POST /api/eval/batch, 10,000 packets, concurrency ${conc}`, r.rps * packets.length, (requests * packets.length) / (cpuSeconds(proc.pid!) - c0)]);
    }
    for (const conc of [1, 2, 4]) {
      const c0 = cpuSeconds(proc.pid!);
      const w = wrkPost(`http://127.0.0.1:${port}/api/eval/batch`, token, batch, seconds, conc, dir);
      if (w !== null) rows.push([`POST /api/eval/batch, 10,000 packets, wrk, ${conc} connection${conc > 1 ? 's' : ''}`, w.rps * packets.length, (w.requests * packets.length) / (cpuSeconds(proc.pid!) - c0)]);
    }
    console.log(`\n| batch eval (${name}) | packets/s | vs in-process evalBatch | packets per CPU second of the daemon |`);
    console.log('|---|---:|---:|---:|');
    console.log(`| in-process CompiledConfig.evalBatch (baseline) | ${fmt(inProcess)} | 1.00 | |`);
    console.log(`| in-process body bytes to answer bytes (scanPacketBatch + evalBatchJson) | ${fmt(fastPath)} | ${(fastPath / inProcess).toFixed(2)} | ${fmt(fastCpu)} |`);
    for (const [label, pps, perCpu] of rows) console.log(`| ${label} | ${fmt(pps)} | ${(pps / inProcess).toFixed(2)} | ${fmt(perCpu)} |`);
    console.log(`\nIn-process CPU µs a packet, by step: ${Object.entries(stages).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ')}`);
    const against = arg('against');
    if (against !== undefined) await batchAgainst(doc, batch, packets.length, { proc, port, token }, against, dir);
  } finally {
    proc.kill('SIGTERM');
    closeAgent();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
