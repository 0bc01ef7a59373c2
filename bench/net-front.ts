// What a node:net front in front of uWebSockets.js would cost (the one way for the daemon to
// see a request line before uWS does, e.g. to answer HTTP/1.0 clients, which uWS never
// answers): a bare uWS server answering GET /, driven by wrk directly and through a front that
// pipes every connection to it, in alternating rounds. Each server is a process of its own;
// besides wrk's rate, the CPU the server processes spent a request (from /proc), the measure
// that holds on a shared machine.
// Run: npm run build --silent && node dist/bench/net-front.js [--rounds 2] [--seconds 4]
// Results: docs/operations.md, "HTTP/1.1 only".
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { cpuSeconds } from './stats';

const UWS = path.dirname(require.resolve('uWebSockets.js/package.json'));

const SERVER = `
const uWS = require(${JSON.stringify(UWS)});
uWS.App().get('/*', (res) => res.end('hi')).listen('127.0.0.1', 0, (s) => console.log(uWS.us_socket_local_port(s)));`;

const FRONT = `
const net = require('net');
const target = Number(process.argv[1]);
const srv = net.createServer((c) => {
  const u = net.connect(target, '127.0.0.1');
  c.pipe(u);
  u.pipe(c);
  c.on('error', () => u.destroy());
  u.on('error', () => c.destroy());
}).listen(0, '127.0.0.1', () => console.log(srv.address().port));`;

/** Starts `node -e script args`; resolves with the process and the port it prints. */
function start(script: string, args: string[] = []): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, ['-e', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.stdout!.once('data', (b) => resolve({ proc, port: Number(String(b).trim()) }));
    proc.once('exit', (code) => reject(new Error(`exited with ${code}`)));
  });
}

/** wrk against `port` for `seconds`: rate, median latency, and the CPU µs the `pids` spent a request. */
function wrk(port: number, seconds: number, pids: number[]): { rps: number; p50: string; cpuUs: number } {
  const before = pids.reduce((t, p) => t + cpuSeconds(p), 0);
  const r = spawnSync('wrk', ['-t1', '-c32', `-d${seconds}s`, '--latency', `http://127.0.0.1:${port}/`], { encoding: 'utf8' });
  const cpu = pids.reduce((t, p) => t + cpuSeconds(p), 0) - before;
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
  const count = /(\d+) requests in/.exec(r.stdout);
  const p50 = /^\s+50%\s+(\S+)/m.exec(r.stdout);
  if (!rps || !p50 || !count) throw new Error(`wrk gave no rate: ${r.stdout} ${r.stderr}`);
  return { rps: Number(rps[1]), p50: p50[1], cpuUs: (cpu * 1e6) / Number(count[1]) };
}

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const rounds = option('--rounds', 2);
  const seconds = option('--seconds', 4);
  const server = await start(SERVER);
  const front = await start(FRONT, [String(server.port)]).catch((e) => {
    server.proc.kill();
    throw e;
  });
  try {
    console.log(`load average before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (let r = 1; r <= rounds; r++) {
      const direct = wrk(server.port, seconds, [server.proc.pid!]);
      const through = wrk(front.port, seconds, [server.proc.pid!, front.proc.pid!]);
      console.log(`round ${r}: direct ${Math.round(direct.rps)} req/s, p50 ${direct.p50}, ${direct.cpuUs.toFixed(1)} CPU µs a request; `
        + `through node:net ${Math.round(through.rps)} req/s, p50 ${through.p50}, ${through.cpuUs.toFixed(1)} CPU µs a request (${(through.cpuUs / direct.cpuUs).toFixed(2)}x)`);
    }
    console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    front.proc.kill();
    server.proc.kill();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
