// Entry point: settings from the environment, start, and a graceful stop on SIGTERM/SIGINT
// (stop accepting, finish requests and commits in flight, close the store).
import { loadSettings } from './settings';
import { startDaemon } from './app';

async function main(): Promise<void> {
  const settings = loadSettings();
  const daemon = await startDaemon(settings);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    daemon.ctx.log.info({ signal }, 'shutting down');
    daemon.close().then(
      () => process.exit(0),
      (e) => {
        daemon.ctx.log.error({ err: e }, 'shutdown failed');
        process.exit(1);
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
