// One end of a long-lived TCP connection, run inside a network namespace by the data-plane
// tests (`ip netns exec NS node tcp-peer.js listen ADDR PORT` or `... connect SRC SPORT DST
// DPORT`): every stdin line is written to the connection, every line received is reported.
// Out: JSON lines {"ready":true} (listening or connected), {"line":TEXT}, {"closed":true}.
import net from 'node:net';
import readline from 'node:readline';

const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
let socket: net.Socket | null = null;

function attach(s: net.Socket): void {
  socket = s;
  s.setNoDelay(true);
  readline.createInterface({ input: s }).on('line', (line) => out({ line }));
  s.on('error', () => undefined);
  s.on('close', () => out({ closed: true }));
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'listen') {
  const server = net.createServer((s) => attach(s));
  server.listen(Number(args[1]), args[0], () => out({ ready: true }));
} else {
  const s = net.connect({ host: args[2], port: Number(args[3]), localAddress: args[0], localPort: Number(args[1]) });
  s.on('connect', () => out({ ready: true }));
  attach(s);
}

readline.createInterface({ input: process.stdin }).on('line', (line) => socket?.write(`${line}\n`)).on('close', () => process.exit(0));
