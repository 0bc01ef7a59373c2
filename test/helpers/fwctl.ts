// Runs fwctl (dist/src/cli/main.js) as a process, as a user or a pipeline would, with its
// profile in a throwaway folder. Asynchronous: the daemon of the test runs in this process.
import { spawn } from 'node:child_process';
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
  const proc = spawn(process.execPath, [FWCTL, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? '/nonexistent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  killWithThisProcess(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
  proc.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
  proc.stdin.on('error', () => undefined); // a command that exits at once (a usage error) closes its input first
  proc.stdin.end(input);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
