// A TCP proxy that passes at most `bytesPerSecond` in each direction: Redis behind a slow
// link (or a busy server), so that a command of a few MB takes a known minimum time. It runs
// in a process of its own, as a link does: in the test's process, whatever kept the daemons'
// thread busy (they run there too) also held back the answers it relays, and a command timed
// out that the link had answered. stop() ends it; it dies with the test's process anyway.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { exited, freePort, whenListening } from './redis';

export interface ThrottleProxy {
  port: number;
  stop(): Promise<void>;
}

/**
 * Copies `from` to `to` at `bytesPerSecond`: each chunk holds the next one back for as long
 * as it takes at that rate (an idle connection earns no credit for a later burst).
 */
function throttled(from: net.Socket, to: net.Socket, bytesPerSecond: number): void {
  let free = 0; // when the link is free again (ms since the epoch)
  from.on('data', (chunk: Buffer) => {
    to.write(chunk);
    free = Math.max(free, Date.now()) + (chunk.length / bytesPerSecond) * 1000;
    const wait = free - Date.now();
    if (wait > 1) {
      from.pause();
      setTimeout(() => from.resume(), wait);
    }
  });
  from.on('close', () => to.destroy());
  from.on('error', () => to.destroy());
}

/** Listens on `port` and relays each connection to `targetPort` at `bytesPerSecond` (the child's work). */
function serveThrottled(port: number, targetPort: number, bytesPerSecond: number): void {
  net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) s.setNoDelay(true);
    throttled(client, upstream, bytesPerSecond);
    throttled(upstream, client, bytesPerSecond);
  }).listen(port, '127.0.0.1');
}

export async function startThrottleProxy(targetPort: number, bytesPerSecond: number): Promise<ThrottleProxy> {
  const port = await freePort();
  const child = spawn(process.execPath, [__filename, String(port), String(targetPort), String(bytesPerSecond)], { stdio: ['ignore', 'pipe', 'pipe'] });
  await whenListening(child, port, 'throttle proxy');
  return {
    port,
    stop: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

if (require.main === module) {
  const [port, targetPort, rate] = process.argv.slice(2).map(Number);
  serveThrottled(port, targetPort, rate);
}
