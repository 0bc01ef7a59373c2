// Preloaded into a daemon (node -r dist/bench/thread-heaps.js, with --expose-gc) by
// bench/rss-scale.ts: in the HTTP thread and in every worker thread (node passes -r on to
// them), when the file named by FW_BENCH_HEAPS_TRIGGER changes, the thread writes its V8 heap
// figures before and after two full collections to FW_BENCH_HEAPS_TRIGGER.<pid>-<thread>.json.
// A worker thread only answers while its event loop runs: piscina's blocking wait stops it
// (the compile and analysis pools wait asynchronously since issue 30's idle collection).
import fs from 'node:fs';
import v8 from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';

const trigger = process.env.FW_BENCH_HEAPS_TRIGGER;
const mb = (n: number) => Math.round(n / 1048576);

function mtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Which thread this is: the HTTP thread, or the worker file it loaded. */
function role(): string {
  if (isMainThread) return 'HTTP thread';
  const file = Object.keys(require.cache).find((k) => /-worker\.js$/.test(k));
  return file ? file.split('/').pop()! : 'worker';
}

if (trigger) {
  let seen = mtime(trigger);
  setInterval(() => {
    const t = mtime(trigger);
    if (t === seen) return;
    seen = t;
    const before = v8.getHeapStatistics();
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const after = v8.getHeapStatistics();
    const ab = process.memoryUsage().arrayBuffers;
    fs.writeFileSync(`${trigger}.${process.pid}-${threadId}.json`, JSON.stringify({
      thread: role(), usedMb: mb(before.used_heap_size), totalMb: mb(before.total_heap_size),
      usedAfterGcMb: mb(after.used_heap_size), totalAfterGcMb: mb(after.total_heap_size), externalMb: mb(after.external_memory), arrayBuffersMb: mb(ab),
    }));
  }, 250).unref();
}
