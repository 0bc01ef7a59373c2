// A TCP proxy in the test process that passes at most `bytesPerSecond` in each direction:
// Redis behind a slow link (or a busy server), so that a command of a few MB takes a known
// minimum time. Every connection and the listener close with stop().
import net from 'node:net';

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

export function startThrottleProxy(targetPort: number, bytesPerSecond: number): Promise<ThrottleProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    throttled(client, upstream, bytesPerSecond);
    throttled(upstream, client, bytesPerSecond);
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({
      port: (server.address() as net.AddressInfo).port,
      stop: () => new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
    }));
  });
}
