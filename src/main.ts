// Entry point: settings from the environment, start, and a graceful stop on SIGTERM/SIGINT
// (stop accepting, finish requests and commits in flight, close the store).
import { loadSettings, type Settings } from './settings';
import { startDaemon, type Daemon } from './app';

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

async function main(): Promise<void> {
  const settings = loadSettings();
  const daemon = await startDaemon(settings);
  // for the person who typed npm start (the log line "listening" says it for machines)
  process.stdout.write(`listening on ${listenUrl(settings, daemon.port)}\n`);
  gcOnSignal(daemon);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    daemon.ctx.log.info({ signal }, 'shutting down');
    daemon.close().then(
      () => process.exit(0),
      (e) => {
        daemon.ctx.log.error({ err: e }, 'shutdown failed');
        void daemon.drainLog().then(() => process.exit(1));
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
