// One helper daemon of the data plane (dnsmasq, ulogd) as the data plane runs it: in a
// session of its own, its output in a file of the data folder (never a pipe to this process),
// its pid in a pid file it writes itself. So it outlives this process: a restart of the daemon
// (systemd's KillMode=process, FW_HELPERS_ON_STOP=keep) or a watchdog kill leaves it serving,
// and the next start finds it by its pid file and adopts it when it runs our configuration
// file. A process is ours only when its command line names that file: a pid file left by a
// process long gone, its number reused by another program, is never signalled.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Host } from './host';

/** How long a stop waits for a helper to end after SIGTERM before SIGKILL. */
const STOP_MS = 5000;
/** How often the end of a helper that is not our child is looked for (no exit event for it). */
const POLL_MS = 20;

/** The state letter of /proc/PID/stat (R, S, Z...), or null when there is no such process. */
function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}

/** Whether `pid` is a live process (not a zombie waiting for its parent) whose command line contains `mark`. */
export function runsWith(pid: number, mark: string): boolean {
  try {
    if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((arg) => arg.includes(mark))) return false;
  } catch {
    return false;
  }
  const state = processState(pid);
  return state !== null && state !== 'Z' && state !== 'X';
}

const sleep = (ms: number) => new Promise<void>((resolve) => { setTimeout(resolve, ms); });

export class HelperProcess {
  /** our child, when this process started it */
  private child: ChildProcess | null = null;
  /** the helper we run or adopted */
  private pid: number | null = null;

  /**
   * `confFile`: the configuration the helper is started on, named on its command line (how
   * a process is known as ours); `pidFile`: where the helper writes its pid; `logFile`: its
   * standard output and error, made anew at each start.
   */
  constructor(private readonly host: Host, readonly confFile: string, readonly pidFile: string, readonly logFile: string) {}

  /** Whether the helper this object runs or adopted is alive. */
  alive(): boolean {
    return this.pid !== null && runsWith(this.pid, this.confFile);
  }

  /** The pid of a helper on our configuration file left by an earlier run (or this one), or null. */
  found(): number | null {
    if (this.alive()) return this.pid;
    let pid: number;
    try {
      pid = Number(fs.readFileSync(this.pidFile, 'utf8').trim());
    } catch {
      return null;
    }
    return Number.isInteger(pid) && pid > 1 && runsWith(pid, this.confFile) ? pid : null;
  }

  /** Takes over a running helper (found()): it is stopped by stop() from now on. */
  adopt(pid: number): void {
    this.child = null;
    this.pid = pid;
  }

  /** Starts `prog args` (in our namespace): a new session, output to the log file. */
  start(prog: string, args: string[]): ChildProcess {
    const out = fs.openSync(this.logFile, 'w');
    try {
      const argv = this.host.argv(prog, args);
      const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', out, out], detached: true });
      this.child = child;
      this.pid = child.pid ?? null;
      child.once('error', () => { if (this.child === child) this.pid = null; });
      child.once('exit', () => { if (this.child === child) this.pid = null; });
      return child;
    } finally {
      fs.closeSync(out); // the child has its own copy
    }
  }

  /** The last lines of the helper's log, for an error message. */
  logTail(lines = 3): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-lines).join('; ') || '(empty log)';
    } catch {
      return '(no log)';
    }
  }

  /**
   * Stops the helper this object runs or adopted, or one on our configuration file that an
   * earlier run left (it holds what a new one needs: the DHCP port, the NFLOG group), and
   * waits until it is gone.
   */
  async stop(): Promise<void> {
    const pid = this.found();
    const child = this.child;
    this.child = null;
    this.pid = null;
    if (pid === null) return;
    const gone = child && child.pid === pid ? new Promise<void>((resolve) => child.once('exit', () => resolve())) : null;
    if (!signal(pid, 'SIGTERM')) return;
    const deadline = Date.now() + STOP_MS;
    if (gone) {
      if (await Promise.race([gone.then(() => true), sleep(STOP_MS).then(() => false)])) return;
    } else {
      while (runsWith(pid, this.confFile) && Date.now() < deadline) await sleep(POLL_MS);
    }
    if (runsWith(pid, this.confFile)) {
      signal(pid, 'SIGKILL');
      if (gone) await gone;
      else while (runsWith(pid, this.confFile)) await sleep(POLL_MS);
    }
  }
}

function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // gone meanwhile
  }
}
