// What the daemon tells the service manager (systemd's Type=notify, docs/operations.md):
// STATUS= lines that say what it does; READY=1 once GET /readyz would answer 200 (the store
// answers, the running version is compiled and, with a data plane, the kernel holds it), not
// before; WATCHDOG=1 at half of WatchdogSec from a timer of the event loop, so a stuck loop
// sends none and systemd kills the process; RELOADING=1 ... READY=1 around a reload (SIGHUP);
// STOPPING=1 when a stop begins. Without NOTIFY_SOCKET it sends nothing and costs nothing.
import type { Logger } from 'pino';
import type { ReadinessReport } from '../api/readiness';
import type { ServiceNotifier } from './notify';
import type { ReloadOutcome } from './reload';

/** How often readiness is checked until READY=1 is sent (READY within this of /readyz turning 200). */
const READY_POLL_MS = 200;
/** How often it is checked after that, for the STATUS line. */
const STATUS_POLL_MS = 2000;

/** What the link reads of the running daemon. */
export interface ServedDaemon {
  readiness(): Promise<ReadinessReport>;
  /** the STATUS text of a ready daemon: what it serves and where */
  describe(): string;
  log: Logger;
}

/** "dataplane: the kernel holds ...; store: ..." of the checks that failed. */
export function notReadyReasons(report: ReadinessReport): string {
  return Object.entries(report.checks).filter(([, v]) => v !== 'ok').map(([k, v]) => `${k}: ${v}`).join('; ');
}

export class ServiceLink {
  private watchdog: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  private status = '';
  private ready = false;
  /** what the last reload did, kept in the STATUS line until the next one */
  private reloadNote = '';
  private stopped = false;
  private reloads: Promise<void> = Promise.resolve();

  constructor(private readonly notifier: ServiceNotifier) {}

  /** Sends WATCHDOG=1 every half of `usec` (WATCHDOG_USEC), one at a time. */
  startWatchdog(usec: number | null): void {
    if (usec === null || !this.notifier.enabled) return;
    let pending = false;
    this.watchdog = setInterval(() => {
      if (pending) return; // the last one has not gone out yet: no pile-up
      pending = true;
      void this.notifier.send({ WATCHDOG: '1' }).then(() => { pending = false; });
    }, Math.max(1, Math.floor(usec / 2000)));
    this.watchdog.unref();
  }

  /** STATUS=`text`, when it says something new. */
  say(text: string): Promise<void> {
    if (text === this.status) return Promise.resolve();
    this.status = text;
    return this.notifier.send({ STATUS: text });
  }

  /** Watches readiness: READY=1 (with the STATUS of a ready daemon) once it is ready; STATUS lines before and after. */
  serve(daemon: ServedDaemon): void {
    if (!this.notifier.enabled) return;
    const check = async () => {
      this.poll = null;
      let report: ReadinessReport;
      try {
        report = await daemon.readiness();
      } catch (e) {
        report = { ready: false, checks: { readiness: (e as Error).message } };
      }
      if (this.stopped) return;
      const text = `${report.ready ? daemon.describe() : `not ready: ${notReadyReasons(report)}`}${this.reloadNote}`;
      if (report.ready && !this.ready) {
        this.ready = true;
        this.status = text;
        await this.notifier.send({ READY: '1', STATUS: text });
        daemon.log.info('ready: the service manager is told');
      } else {
        await this.say(text);
      }
      if (!this.stopped) this.poll = setTimeout(() => void check(), this.ready ? STATUS_POLL_MS : READY_POLL_MS);
    };
    void check();
  }

  /** A reload (SIGHUP), one at a time: RELOADING=1, `run`, then READY=1 with a STATUS saying what it did. */
  reload(run: () => Promise<ReloadOutcome>, daemon: ServedDaemon): Promise<void> {
    const next = this.reloads.then(async () => {
      // before the first READY=1 a reload is no state of the service's: its STATUS only
      const ready = this.ready;
      if (ready) await this.notifier.send({ RELOADING: '1', STATUS: 'reloading the settings file' });
      let outcome: string;
      try {
        const r = await run();
        daemon.log.info({ applied: r.applied, needRestart: r.needRestart }, 'settings reloaded');
        if (r.needRestart.length) daemon.log.warn({ needRestart: r.needRestart }, 'changed settings that only a restart applies');
        outcome = `reloaded (${r.applied.length ? r.applied.join(', ') : 'nothing changed'}${r.needRestart.length ? `; a restart applies ${r.needRestart.join(', ')}` : ''})`;
      } catch (e) {
        daemon.log.error({ err: (e as Error).message }, 'reload refused: nothing changed');
        outcome = `reload refused: ${(e as Error).message}`;
      }
      this.reloadNote = `; ${outcome}`;
      this.status = `${ready ? daemon.describe() : 'not ready'}${this.reloadNote}`;
      await this.notifier.send(ready ? { READY: '1', STATUS: this.status } : { STATUS: this.status });
    });
    this.reloads = next.catch(() => undefined);
    return next;
  }

  /** STOPPING=1: the stop has begun; no more READY or STATUS after it. */
  stopping(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    if (this.poll) clearTimeout(this.poll);
    return this.notifier.send({ STOPPING: '1', STATUS: 'stopping: finishing the requests in flight' });
  }
}
