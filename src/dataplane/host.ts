// Runs the programs that change the kernel: always an argument array (spawn, never a shell),
// in the network namespace FW_NETNS when one is set (`ip -n NS ...`, `ip netns exec NS prog`;
// the daemon itself stays where it was started).
import { spawn, type ChildProcess } from 'node:child_process';
import { isNetnsName } from './names';

export class CommandError extends Error {
  constructor(readonly argv: string[], readonly stderr: string, readonly exitCode: number | null) {
    super(`${argv.join(' ')}: ${stderr.trim() || `exit code ${exitCode}`}`);
    this.name = 'CommandError';
  }
}

export function run(argv: string[], stdin?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new CommandError(argv, e.message, null)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new CommandError(argv, Buffer.concat(err).toString('utf8'), code));
    });
    child.stdin.on('error', () => undefined); // a program that exits early closes its stdin
    child.stdin.end(stdin ?? '');
  });
}

/**
 * Runs argv and hands each line of its stdout to onLine as it arrives (the last one too when
 * it has no newline): a long listing (conntrack's, 19 MB for 100,000 connections) is read
 * while the program still writes it, on the other core, and is never held whole.
 */
export function runLines(argv: string[], onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    const err: Buffer[] = [];
    let carry = '';
    let failed: unknown = null;
    child.stdout.setEncoding('utf8'); // a character split between two chunks is joined
    child.stdout.on('data', (text: string) => {
      if (failed) return;
      try {
        let start = 0;
        let nl = text.indexOf('\n');
        if (nl >= 0 && carry) {
          onLine(carry + text.slice(0, nl));
          carry = '';
          start = nl + 1;
          nl = text.indexOf('\n', start);
        }
        for (; nl >= 0; nl = text.indexOf('\n', start)) {
          onLine(text.slice(start, nl));
          start = nl + 1;
        }
        carry += text.slice(start);
      } catch (e) {
        failed = e; // reported when the program has ended: no child left behind
      }
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new CommandError(argv, e.message, null)));
    child.on('close', (code) => {
      if (!failed && carry) {
        try {
          onLine(carry);
        } catch (e) {
          failed = e;
        }
      }
      if (failed) reject(failed);
      else if (code === 0) resolve();
      else reject(new CommandError(argv, Buffer.concat(err).toString('utf8'), code));
    });
  });
}

export class Host {
  constructor(readonly netns: string | null) {
    if (netns !== null && !isNetnsName(netns)) throw new Error(`FW_NETNS: "${netns}" is not a network namespace name`);
  }

  /** argv of `prog args` in our namespace */
  argv(prog: string, args: string[]): string[] {
    if (prog === 'ip') return this.netns ? ['ip', '-n', this.netns, ...args] : ['ip', ...args];
    return this.netns ? ['ip', 'netns', 'exec', this.netns, prog, ...args] : [prog, ...args];
  }

  ip(args: string[]): Promise<string> {
    return run(this.argv('ip', args));
  }

  exec(prog: string, args: string[], stdin?: string): Promise<string> {
    return run(this.argv(prog, args), stdin);
  }

  /** `prog args` in our namespace, its stdout line by line as it comes (runLines). */
  execLines(prog: string, args: string[], onLine: (line: string) => void): Promise<void> {
    return runLines(this.argv(prog, args), onLine);
  }

  spawn(prog: string, args: string[]): ChildProcess {
    const argv = this.argv(prog, args);
    return spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  }
}

/** Stops a helper process the data plane runs (dnsmasq, ulogd) and waits for it to be gone. */
export async function stopChild(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
