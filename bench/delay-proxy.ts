// A TCP proxy that delays every chunk by a fixed time in each direction: Redis as if on
// another host (bench/cluster.ts --redis-delay MS), where this machine's kernel has no netem.
// Order is kept per direction (each chunk is written at its own arrival time plus the delay).
// Run as its own process so that its work does not share the load generator's event loop:
// `node dist/bench/delay-proxy.js LISTEN_PORT TARGET_PORT DELAY_MS`; it prints "ready".
import net from 'node:net';

const [listenPort, targetPort, delayMs] = process.argv.slice(2).map(Number);

/** Forwards `from` to `to`, each chunk `delayMs` after it arrived. */
function delayed(from: net.Socket, to: net.Socket): void {
  from.on('data', (chunk) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, delayMs);
  });
  from.on('close', () => setTimeout(() => to.destroy(), delayMs));
  from.on('error', () => to.destroy());
}

net.createServer((client) => {
  client.setNoDelay(true);
  const server = net.connect(targetPort, '127.0.0.1');
  server.setNoDelay(true);
  delayed(client, server);
  delayed(server, client);
}).listen(listenPort, '127.0.0.1', () => console.log('ready'));
