// Entry point: settings from the environment, start, and a graceful stop on SIGTERM/SIGINT
// (stop accepting, finish requests and commits in flight, close the store). Under systemd
// (NOTIFY_SOCKET) it also tells the service manager its state (src/service/service-link.ts),
// and SIGHUP reads FW_ENV_FILE again (src/service/reload.ts).
import { loadSettings, type Settings } from './settings';
import { startDaemon, type Daemon } from './app';
import { ServiceNotifier, takeNotifyTarget } from './service/notify';
import { ServiceLink } from './service/service-link';
import { SettingsReloader } from './service/reload';
import { passwordAnnouncer } from './service/first-password';
import { logsToJournal } from './journal-format';

/**
 * Only when node was started with --expose-gc (npm run bench:soak, the leak test): SIGUSR2
 * runs a full collection and logs the heap left after it ("heap after gc"), so that a slope
 * of retained memory can be measured from outside without a debugger. Without the flag
 * SIGUSR2 keeps node's default.
 */
function gcOnSignal(daemon: Daemon): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return;
  process.on('SIGUSR2', () => {
    gc();
    const m = process.memoryUsage();
    daemon.ctx.log.info({ heapUsed: m.heapUsed, heapTotal: m.heapTotal, rss: m.rss, external: m.external, arrayBuffers: m.arrayBuffers }, 'heap after gc');
    daemon.ctx.log.flush();
  });
}

/** The address the daemon answers on, as a browser or curl takes it. */
function listenUrl(settings: Settings, port: number): string {
  const scheme = settings.tlsCert && settings.tlsKey ? 'https' : 'http';
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return `${scheme}://${host}:${port}`;
}

/** The service manager's side: SIGHUP reloads, readiness and the watchdog are reported. */
function linkService(daemon: Daemon, settings: Settings, link: ServiceLink): void {
  const { ctx } = daemon;
  const served = {
    log: ctx.log,
    readiness: () => ctx.readiness.report(),
    describe: () => {
      const running = ctx.config.current().meta.version;
      if (ctx.dataPlane.mode === 'none') return `ready: serving version ${running}, API on ${listenUrl(settings, daemon.port)}`;
      // the version the kernel holds: a commit applies its version a moment before it is
      // running, and readiness may be reported in that moment (the running one is not enforced)
      const { netns, applied_version: applied } = ctx.dataPlane.status();
      return `ready: enforcing on ${netns ?? 'this host'} version ${applied ?? running}, API on ${listenUrl(settings, daemon.port)}`;
    },
  };
  const reloader = settings.envFile ? new SettingsReloader(settings.envFile, { log: ctx.log, syslog: ctx.syslog, settings }) : null;
  process.on('SIGHUP', () => {
    void link.reload(async () => {
      if (!reloader) throw new Error('FW_ENV_FILE is not set: there is no settings file to read again');
      return reloader.reload();
    }, served);
  });
  link.serve(served);
}

async function main(): Promise<void> {
  // first: no program the daemon runs may inherit the notification socket
  const target = takeNotifyTarget();
  const notifier = new ServiceNotifier(target.socket);
  const link = new ServiceLink(notifier);
  let settings: Settings;
  let daemon: Daemon;
  try {
    settings = loadSettings();
    link.startWatchdog(target.watchdogUsec);
    void link.say('starting: opening the store, compiling and enforcing the running version');
    daemon = await startDaemon(settings, { announce: passwordAnnouncer(settings.dataDir, logsToJournal()) });
  } catch (e) {
    await link.say(`failed to start: ${(e as Error).message}`);
    throw e;
  }
  // for the person who typed npm start (the log line "listening" says it for machines)
  process.stdout.write(`listening on ${listenUrl(settings, daemon.port)}\n`);
  gcOnSignal(daemon);
  linkService(daemon, settings, link);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    daemon.ctx.log.info({ signal }, 'shutting down');
    const told = link.stopping();
    daemon.close().then(
      () => told.then(() => process.exit(0)),
      (e) => {
        daemon.ctx.log.error({ err: e }, 'shutdown failed');
        void Promise.all([told, daemon.drainLog()]).then(() => process.exit(1));
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e: Error) => {
  process.stderr.write(`fwd: ${e.message}\n`);
  process.exit(1);
});
