// Throwaway redis-server processes for the tests: each on a free loopback port with its own
// data folder (append-only file, fsync'd at every write), never the machine's 6379. Every
// server this process started is killed when it exits, also after a failed test.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ownChild, waitForPort } from './watchdog';
import { REDIS_PACKAGES, requirePackages } from './packages';

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

/**
 * A free loopback port below the ephemeral range (32768 and up on Linux): a port the kernel
 * never gives an outgoing connection, so a server killed on it can listen on it again at once.
 */
export async function fixedPort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.on('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
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

/** Resolves with `proc` (owned: killed with this process) once `port` accepts connections. */
export async function whenListening(proc: ChildProcess, port: number, what: string): Promise<ChildProcess> {
  ownChild(proc);
  let out = '';
  proc.stdout!.on('data', (b) => { out += b.toString(); });
  proc.stderr!.on('data', (b) => { out += b.toString(); });
  try {
    await waitForPort(port, proc, () => out);
  } catch (e) {
    throw new Error(`${what} on ${port} did not start: ${(e as Error).message}`);
  }
  return proc;
}

export function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

export async function startRedis(dir: string, extra: string[] = []): Promise<TestRedis> {
  requirePackages(REDIS_PACKAGES, 'the Redis-backed tests');
  fs.mkdirSync(dir, { recursive: true });
  const port = await fixedPort(); // restart() may listen on it again right after a kill
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
