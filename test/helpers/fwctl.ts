// Runs fwctl (dist/src/cli/main.js) as a process, as a user or a pipeline would, with its
// profile in a throwaway folder. Asynchronous: the daemon of the test runs in this process.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { killWithThisProcess } from './watchdog';

export const FWCTL = path.resolve(__dirname, '../../src/cli/main.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `fwctl args...` with a minimal environment plus `env`; `input` goes to its standard input. */
export function fwctl(args: string[], env: Record<string, string>, input = ''): Promise<CliRun> {
  return startFwctl(args, env, input).done;
}

/** A running fwctl: the process (to signal it), its output so far, and its end. */
export interface RunningCli {
  proc: ChildProcess;
  output: () => CliRun;
  done: Promise<CliRun>;
}

export function startFwctl(args: string[], env: Record<string, string>, input = ''): RunningCli {
  const proc = spawn(process.execPath, [FWCTL, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? '/nonexistent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  killWithThisProcess(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (b: Buffer) => { stdout += b.toString(); });
  proc.stderr!.on('data', (b: Buffer) => { stderr += b.toString(); });
  proc.stdin!.on('error', () => undefined); // a command that exits at once (a usage error) closes its input first
  proc.stdin!.end(input);
  const done = new Promise<CliRun>((resolve, reject) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { proc, output: () => ({ code: proc.exitCode, stdout, stderr }), done };
}
