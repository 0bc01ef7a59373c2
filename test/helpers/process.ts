// The daemon as a child process (dist/src/main.js, exactly as `npm start` runs it), for tests
// that kill it without warning or run several instances. Every child still running when the
// test process exits is killed, also after a failed test.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ownChild } from './watchdog';
import { ADMIN_PASSWORD, CLUSTER_SECRET } from './daemon';

export { CLUSTER_SECRET };

export const MAIN = path.resolve(__dirname, '../../src/main.js');
export const WORKER_MAIN = path.resolve(__dirname, '../../src/worker-main.js');

export interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** standard output so far */
  stdout(): string;
}

/**
 * Starts `script` with a minimal environment plus `env` (and node's own options `nodeArgs`,
 * e.g. --expose-gc; under `wrapper`, a command that runs node: prlimit, or setpriv with fewer capabilities); resolves once
 * its output has a line matching `ready` (the daemon's "listening" line by default).
 */
export function startChild(env: Record<string, string>, script = MAIN, ready = /"port":(\d+)[^\n]*"msg":"listening"/, nodeArgs: string[] = [], wrapper: string[] = []): Promise<Child> {
  const command = [...wrapper, process.execPath, ...nodeArgs, script];
  const proc = spawn(command[0], command.slice(1), {
    env: {
      PATH: process.env.PATH ?? '',
      FW_PORT: '0',
      FW_INTERFACES: 'eth0,eth1',
      FW_ADMIN_PASSWORD: ADMIN_PASSWORD,
      FW_LOG_LEVEL: 'info',
      ...(env.REDIS_URL || env.REDIS_SENTINELS ? { FW_JWT_SECRET: CLUSTER_SECRET } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  ownChild(proc);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (b) => { err += b.toString(); });
    proc.stdout!.on('data', (b) => {
      out += b.toString();
      const m = ready.exec(out);
      if (m) resolve({ proc, url: `http://127.0.0.1:${m[1] ?? 0}`, exited, stdout: () => out });
    });
    exited.then((code) => reject(new Error(`${path.basename(script)} exited with ${code}: ${err}${out}`)));
  });
}

export async function kill9(child: Child): Promise<void> {
  child.proc.kill('SIGKILL');
  await child.exited;
}
