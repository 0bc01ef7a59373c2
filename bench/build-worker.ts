// A bench's worker thread running one build (dist folder) of the daemon's code, for benches
// that compare two builds round by round in one process (commit-cpu.ts, groups-cpu.ts): it
// posts a first message once loaded, then one result per 'go'.
import { Worker } from 'node:worker_threads';
import { WORKER_RESOURCE_LIMITS } from '../src/workers/compile-pool';

export interface BuildWorker<R> {
  label: string;
  /** one round: resolves with the worker's result */
  round: () => Promise<R>;
  /** resolves once the worker has loaded its build */
  ready: Promise<void>;
  stop: () => Promise<number>;
}

/** `file`: the bench's own compiled file, run as the worker with `workerData`. */
export function startBuildWorker<R>(file: string, label: string, workerData: unknown): BuildWorker<R> {
  const w = new Worker(file, { workerData, resourceLimits: WORKER_RESOURCE_LIMITS });
  const ready = new Promise<void>((res, rej) => {
    w.once('message', () => res());
    w.once('error', rej);
  });
  const round = () => new Promise<R>((res, rej) => {
    w.once('message', res);
    w.once('error', rej);
    w.postMessage('go');
  });
  return { label, round, ready, stop: () => w.terminate() };
}
