// `npm run worker`: a commit worker with no HTTP front, for clusters whose API instances run
// with FW_WORKER=off. Stops on SIGTERM/SIGINT after the job in progress.
import { loadSettings } from './settings';
import { startWorker } from './wiring/worker';

async function main(): Promise<void> {
  const worker = await startWorker(loadSettings());
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    worker.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((e: Error) => {
  process.stderr.write(`fwd worker: ${e.message}\n`);
  process.exit(1);
});
