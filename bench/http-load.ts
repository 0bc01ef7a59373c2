// Load generation for the HTTP benchmarks: daemons as child processes (exactly as `npm start`
// runs them), keep-alive requests, closed-loop workers spread over one or more instances, and
// the table formatting they share.
import { MALLOC_ENV } from '../src/malloc-env';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { emptyDoc, serializeDoc } from '../src/config/document';
import type { ConfigDoc } from '../src/config/types';
import type { Store } from '../src/store/types';

export const PASSWORD = 'bench-password-123';

/** Writes `doc` as committed version 1 of a new store, through the store itself. */
export async function seedStore(store: Store, doc: ConfigDoc): Promise<void> {
  await store.open(() => serializeDoc(emptyDoc(['eth0', 'eth1'])));
  const now = Date.now();
  const session = { id: 'seed', owner: 'bench', startedAt: now, lastChangeAt: now, baseVersion: 0 };
  await store.beginSession(session);
  await store.commit('seed', 0, { version: 1, author: 'bench', time: now, description: 'seed', summary: '', doc: serializeDoc(doc) });
  await store.close();
}

export interface Instance {
  proc: ChildProcess;
  port: number;
}

/** Starts the daemon with `env` (info-level logs drained through a pipe, as in production,
 * or appended to BENCH_LOG_DIR/<pid>.log when that is set: where a commit's phases went);
 * `main`: another build's dist/src/main.js (A/B comparisons); `nodeArgs`: node's own options
 * (--expose-gc for the soak benchmark). */
/** The benchmarks' FW_JWT_SECRET (a cluster requires one, and seals its account records with it). */
export const BENCH_SECRET = 'bench-secret-c2VjcmV0LWZvci10aGUtYmVuY2htYXJrcy1vbmx5LTIwMjY';

export function startInstance(env: Record<string, string>, main = path.resolve(__dirname, '../src/main.js'), nodeArgs: string[] = []): Promise<Instance> {
  const proc = spawn(process.execPath, [...nodeArgs, main], {
    // with the malloc settings npm start and the image give the daemon (src/malloc-env.ts)
    env: { ...process.env, ...MALLOC_ENV, FW_PORT: '0', FW_ADMIN_PASSWORD: PASSWORD, FW_LOG_LEVEL: 'info', FW_INTERFACES: 'eth0,eth1', FW_JWT_SECRET: BENCH_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (b: Buffer) => {
      out += b.toString();
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
      if (m) {
        out = '';
        proc.stdout!.off('data', onData);
        keepLogs(proc);
        resolve({ proc, port: Number(m[1]) });
      }
    };
    proc.stdout!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`daemon exited ${code}: ${out}`)));
  });
}

/** Drains the daemon's request logs, into BENCH_LOG_DIR when set. */
function keepLogs(proc: ChildProcess): void {
  const dir = process.env.BENCH_LOG_DIR;
  if (!dir) {
    proc.stdout!.resume();
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  proc.stdout!.pipe(fs.createWriteStream(path.join(dir, `${proc.pid}.log`), { flags: 'a' }));
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export function closeAgent(): void {
  agent.destroy();
}

export function request(port: number, method: string, p: string, token: string, body?: string, retried = false): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const req = http.request({ host: '127.0.0.1', port, method, path: p, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      // a kept-alive connection the daemon closed as idle (uWebSockets.js: after 10 s) just as
      // this request went out on it, Node's documented race: the daemon never read it, so it
      // is sent once more (a benchmark row failed once with "socket hang up" this way)
      if (req.reusedSocket && e.code === 'ECONNRESET' && !retried) resolve(request(port, method, p, token, body, true));
      else reject(e);
    });
    req.end(body);
  });
}

/** Logs in as admin and answers the token. */
export async function login(port: number): Promise<string> {
  const r = await request(port, 'POST', '/api/login', '', JSON.stringify({ username: 'admin', password: PASSWORD }));
  if (r.status !== 200) throw new Error(`login: ${r.status} ${r.text}`);
  return (JSON.parse(r.text) as { token: string }).token;
}

export interface Load {
  name: string;
  concurrency: number;
  /** the i-th request: method, path, body */
  next(i: number): [string, string, string | undefined];
}

export interface Result {
  name: string;
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
}

/** Where the i-th request goes: one instance, or round robin over several. */
export interface Target {
  port(i: number): number;
  token(i: number): string;
}

export function oneTarget(port: number, token: string): Target {
  return { port: () => port, token: () => token };
}

/** Request numbers run on across warm-up and timed runs, so creates never repeat a name. */
let requestNo = 0;

/** `load.concurrency` closed-loop workers for `seconds`; throws on any answer but 200. */
export async function run(target: Target, load: Load, seconds: number): Promise<Result> {
  const lat: number[] = [];
  const end = Date.now() + seconds * 1000;
  const worker = async () => {
    while (Date.now() < end) {
      const i = requestNo++;
      const [m, p, b] = load.next(i);
      const t0 = process.hrtime.bigint();
      const r = await request(target.port(i), m, p, target.token(i), b).catch((e: Error) => {
        throw new Error(`${load.name} to port ${target.port(i)}: ${e.message}`);
      });
      lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 200) throw new Error(`${load.name}: ${r.status} ${r.text.slice(0, 200)}`);
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: load.concurrency }, worker));
  const elapsed = (Date.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { name: load.name, concurrency: load.concurrency, rps: lat.length / elapsed, p50: lat[Math.floor(lat.length / 2)], p99: lat[Math.floor(lat.length * 0.99)] };
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
