// sd_notify(3) without systemd's C library. The protocol is one datagram on the AF_UNIX socket
// named by NOTIFY_SOCKET, which Node's dgram cannot send (it has UDP only), so each
// notification is sent by systemd's own `systemd-notify` (package systemd, present wherever
// systemd runs the daemon). It sends from its own pid, so the unit says NotifyAccess=all; its
// default (blocking) mode waits until the service manager has taken the message (a barrier),
// so the message is never lost to the race of a sender that exits first (systemd-notify(1)).
// The choice and its cost are in docs/operations.md, "Running as a systemd service".
//
// NOTIFY_SOCKET and the watchdog variables are taken out of this process's environment at
// start: the programs the daemon runs (nft, dnsmasq, ulogd, keepalived) inherit it, and with
// NotifyAccess=all a helper that speaks sd_notify (keepalived does) could otherwise tell
// systemd that the daemon stops or is ready.
import { spawn } from 'node:child_process';
import type { Logger } from 'pino';

export interface NotifyTarget {
  /** the notification socket (NOTIFY_SOCKET), null when no service manager listens */
  socket: string | null;
  /** WATCHDOG_USEC, when the watchdog is on for this process; else null */
  watchdogUsec: number | null;
}

/**
 * Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID and removes them from `env`, as
 * sd_notify's unset_environment does. The watchdog is ours when WATCHDOG_PID is unset or
 * names this process (sd_watchdog_enabled(3)).
 */
export function takeNotifyTarget(env: NodeJS.ProcessEnv = process.env, pid = process.pid): NotifyTarget {
  const socket = env.NOTIFY_SOCKET || null;
  const usec = Number(env.WATCHDOG_USEC);
  const forPid = env.WATCHDOG_PID ? Number(env.WATCHDOG_PID) === pid : true;
  delete env.NOTIFY_SOCKET;
  delete env.WATCHDOG_USEC;
  delete env.WATCHDOG_PID;
  return { socket, watchdogUsec: socket && forPid && Number.isInteger(usec) && usec > 0 ? usec : null };
}

/** One line of a notification: newlines would start another field. */
function field(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

export class ServiceNotifier {
  private queue: Promise<void> = Promise.resolve();
  private failed = false;

  constructor(private readonly socket: string | null, private readonly log?: Logger, private readonly program = 'systemd-notify') {}

  /** Whether a service manager listens (NOTIFY_SOCKET was set). */
  get enabled(): boolean {
    return this.socket !== null;
  }

  /**
   * Sends `fields` (READY=1, STATUS=..., WATCHDOG=1...) as one notification, after the ones
   * queued before it; resolves once the manager has it (or it could not be sent: logged).
   */
  send(fields: Record<string, string>): Promise<void> {
    if (!this.socket) return Promise.resolve();
    const args = Object.entries(fields).map(([k, v]) => `${k}=${field(v)}`);
    const next = this.queue.then(() => this.run(args));
    this.queue = next;
    return next;
  }

  /** Resolves when every notification queued so far was sent. */
  flushed(): Promise<void> {
    return this.queue;
  }

  private run(args: string[]): Promise<void> {
    return new Promise((resolve) => {
      const child = spawn(this.program, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, NOTIFY_SOCKET: this.socket! } });
      let err = '';
      child.stderr!.on('data', (b: Buffer) => { err += b.toString('utf8'); });
      const done = (why: string | null) => {
        if (why && !this.failed) {
          this.failed = true; // said once: a daemon that cannot notify says so, then keeps serving
          this.log?.error({ program: this.program, err: why }, 'the service manager could not be notified');
        }
        resolve();
      };
      child.once('error', (e) => done(e.message));
      child.once('close', (code) => done(code === 0 ? null : `${this.program} exited (${code}): ${err.trim()}`));
    });
  }
}
