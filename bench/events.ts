// What GET /api/events subscribers cost the daemon: its memory (RSS) and CPU while N streams
// sit idle (heartbeats only), against the same daemon with none, and how long an event takes
// to reach all N. The daemon runs as a child process (as `npm start` runs it); the subscribers
// are plain HTTP connections from this process.
//   npm run build && node dist/bench/events.js [--subscribers 500] [--seconds 30] [--heartbeat 15]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { login, request, startInstance } from './http-load';
import { cpuSeconds, median } from './stats';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface Subscriber {
  req: http.ClientRequest;
  /** when each event id arrived (ms, performance.now()) */
  arrived: Map<string, number>;
}

function subscribe(port: number, token: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const arrived = new Map<string, number>();
    const req = http.get({ host: '127.0.0.1', port, path: '/api/events?types=session', agent: false, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /api/events: ${res.statusCode}`));
      res.setEncoding('utf8');
      let first = true;
      res.on('data', (text: string) => {
        if (first) {
          first = false;
          resolve({ req, arrived });
        }
        for (const m of text.matchAll(/^id: (\d+)$/gm)) arrived.set(m[1], performance.now());
      });
    });
    req.on('error', reject);
  });
}

/** RSS and CPU share of a core over `seconds` of idleness. */
async function measure(pid: number, seconds: number): Promise<{ rss: number; cpu: number }> {
  const c0 = cpuSeconds(pid);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return { rss: rssMiB(pid), cpu: (cpuSeconds(pid) - c0) / seconds };
}

async function main(): Promise<void> {
  const n = arg('subscribers', 500);
  const seconds = arg('seconds', 30);
  const heartbeat = arg('heartbeat', 15);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-events-'));
  // one account holds every subscriber: the stream caps raised to n (docs/operations.md, Security)
  const caps = { FW_EVENT_STREAMS_PER_USER: String(n), FW_EVENT_STREAMS_MAX: String(n) };
  const d = await startInstance({ FW_DATA_DIR: dir, FW_EVENTS_HEARTBEAT: String(heartbeat), FW_ANALYSIS_TIMEOUT: '0', FW_EVAL_THREADS: '0', ...caps });
  const pid = d.proc.pid!;
  const subs: Subscriber[] = [];
  try {
    const token = await login(d.port);
    await new Promise((r) => setTimeout(r, 10_000)); // start-up compiles settle, the heap shrinks back
    const none = await measure(pid, seconds);
    const t0 = performance.now();
    for (let i = 0; i < n; i += 50) subs.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => subscribe(d.port, token)))));
    const openMs = performance.now() - t0;
    const idle = await measure(pid, seconds);
    // fan-out: each begin and discard is one event every subscriber gets
    const latencies: number[] = [];
    for (let k = 0; k < 10; k++) {
      const sent = performance.now();
      for (const p of ['/api/config/begin', '/api/config/discard']) {
        const r = await request(d.port, 'POST', p, token);
        if (r.status !== 200) throw new Error(`${p}: ${r.status} ${r.text}`);
      }
      const end = Date.now() + 10_000;
      let last = NaN;
      for (;;) {
        const ids = subs.map((s) => [...s.arrived.entries()].pop());
        const newest = ids.map((x) => x?.[1] ?? 0);
        if (newest.every((t) => t >= sent) && ids.every((x) => x?.[0] === ids[0]?.[0])) {
          last = Math.max(...newest);
          break;
        }
        if (Date.now() > end) throw new Error('the events did not reach every subscriber within 10 s');
        await new Promise((r) => setTimeout(r, 5));
      }
      latencies.push(last - sent);
    }
    for (const s of subs.splice(0)) s.req.destroy();
    const closed = await measure(pid, seconds);
    const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
    const perSub = ((idle.rss - none.rss) * 1024) / n;
    process.stdout.write([
      `GET /api/events, ${n} idle subscribers, heartbeat ${heartbeat} s, ${seconds} s windows (${os.cpus()[0].model}, ${os.cpus().length} cores, load ${load})`,
      `| | daemon RSS MiB | daemon CPU (share of a core) |`,
      `|---|---|---|`,
      `| no subscribers | ${none.rss.toFixed(1)} | ${(none.cpu * 100).toFixed(2)} % |`,
      `| ${n} idle subscribers | ${idle.rss.toFixed(1)} | ${(idle.cpu * 100).toFixed(2)} % |`,
      `| the same daemon after they closed | ${closed.rss.toFixed(1)} | ${(closed.cpu * 100).toFixed(2)} % |`,
      `| per subscriber (RSS with them - before) | ${perSub.toFixed(1)} KiB | |`,
      ``,
      `opening ${n} streams: ${openMs.toFixed(0)} ms; begin + discard to the discard event at all ${n}: median ${median(latencies).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (10 rounds)`,
      '',
    ].join('\n'));
  } finally {
    for (const s of subs) s.req.destroy();
    d.proc.kill('SIGTERM');
    await new Promise((r) => d.proc.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
