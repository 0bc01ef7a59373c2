// Throwaway redis-server processes for the tests: each on a free loopback port with its own
// data folder (append-only file, fsync'd at every write), never the machine's 6379. Every
// server this process started is killed when it exits, also after a failed test.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { killWithThisProcess } from './watchdog';

export interface TestRedis {
  url: string;
  port: number;
  dir: string;
  /** Stops it gracefully (SHUTDOWN: the append-only file is complete). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data folder (after stop), with other extra arguments if given. */
  restart(extra?: string[]): Promise<void>;
  /** Kills it with SIGKILL (a lost host: nothing flushed, no goodbye). */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of running) p.kill('SIGKILL');
});

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** `extra`: more redis-server arguments (e.g. --replicaof). */
function launch(port: number, dir: string, extra: string[] = []): Promise<ChildProcess> {
  const proc = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--appendonly', 'yes', '--appendfsync', 'always', '--save', '',
    '--daemonize', 'no', '--protected-mode', 'yes', '--loglevel', 'warning',
    ...extra,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  return whenListening(proc, port, 'redis-server');
}

/** Resolves with `proc` once `port` accepts connections; rejects if it exits first. */
export function whenListening(proc: ChildProcess, port: number, what: string): Promise<ChildProcess> {
  running.add(proc);
  killWithThisProcess(proc);
  proc.on('exit', () => running.delete(proc));
  return new Promise((resolve, reject) => {
    let out = '';
    const deadline = setTimeout(() => reject(new Error(`${what} on ${port} did not start: ${out}`)), 10_000);
    const poll = setInterval(() => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        clearInterval(poll);
        clearTimeout(deadline);
        resolve(proc);
      });
      s.on('error', () => s.destroy());
    }, 20);
    proc.stdout!.on('data', (b) => { out += b.toString(); });
    proc.stderr!.on('data', (b) => { out += b.toString(); });
    proc.on('exit', (code) => {
      clearInterval(poll);
      clearTimeout(deadline);
      reject(new Error(`${what} exited with ${code}: ${out}`));
    });
  });
}

export function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

export async function startRedis(dir: string, extra: string[] = []): Promise<TestRedis> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  let proc = await launch(port, dir, extra);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    async stop() {
      proc.kill('SIGTERM'); // redis-server shuts down cleanly on SIGTERM
      await exited(proc);
    },
    async restart(again = extra) {
      proc = await launch(port, dir, again);
    },
    async kill() {
      proc.kill('SIGKILL');
      await exited(proc);
    },
  };
}

/** A data folder for a test redis inside `parent`. */
export function redisDir(parent: string): string {
  return path.join(parent, 'redis');
}
