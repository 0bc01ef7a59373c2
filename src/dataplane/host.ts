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
