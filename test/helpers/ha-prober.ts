// Flows through an HA pair for its tests and benchmark, run inside a network namespace:
//   `echo ADDR PORT`: a TCP and a UDP echo server on ADDR:PORT;
//   `probe SRC DST PORT INTERVAL_MS`: one long-lived TCP connection and one UDP flow to
//   DST:PORT, each sending a numbered message every INTERVAL_MS and timing the echoes.
// The prober answers each stdin line "mark" with the flows' figures since the previous mark:
// {"tcp":{"echoes","maxGapMs","closed","error"},"udp":{...}} (maxGapMs: the longest time
// without an echo, counting up to now). Out: JSON lines, {"ready":true} first.
import dgram from 'node:dgram';
import net from 'node:net';
import readline from 'node:readline';

const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
const [mode, ...args] = process.argv.slice(2);

class Flow {
  echoes = 0;
  last = Date.now();
  maxGap = 0;
  closed = false;
  error = '';

  echo(): void {
    const now = Date.now();
    this.maxGap = Math.max(this.maxGap, now - this.last);
    this.last = now;
    this.echoes++;
  }

  mark(): { echoes: number; maxGapMs: number; closed: boolean; error: string } {
    const now = Date.now();
    const r = { echoes: this.echoes, maxGapMs: Math.max(this.maxGap, now - this.last), closed: this.closed, error: this.error };
    this.echoes = 0;
    this.maxGap = 0;
    this.last = now;
    return r;
  }
}

if (mode === 'echo') {
  const [addr, port] = [args[0], Number(args[1])];
  let pending = 2;
  const ready = () => { if (--pending === 0) out({ ready: true }); };
  net.createServer((s) => {
    s.setNoDelay(true);
    s.on('error', () => undefined);
    s.on('data', (b) => s.write(b));
  }).listen(port, addr, ready);
  const udp = dgram.createSocket(addr.includes(':') ? 'udp6' : 'udp4');
  udp.on('message', (m, from) => udp.send(m, from.port, from.address));
  udp.bind(port, addr, ready);
} else {
  const [src, dst, port, interval] = [args[0], args[1], Number(args[2]), Number(args[3])];
  const tcp = new Flow();
  const udp = new Flow();
  const socket = net.connect({ host: dst, port, localAddress: src });
  socket.setNoDelay(true);
  let seq = 0;
  readline.createInterface({ input: socket }).on('line', () => tcp.echo());
  socket.on('error', (e: NodeJS.ErrnoException) => { tcp.error = e.code ?? e.message; });
  socket.on('close', () => { tcp.closed = true; });
  const dsock = dgram.createSocket(dst.includes(':') ? 'udp6' : 'udp4');
  dsock.on('message', () => udp.echo());
  dsock.bind(0, src);
  socket.on('connect', () => {
    tcp.last = udp.last = Date.now();
    out({ ready: true, port: socket.localPort });
    setInterval(() => {
      seq++;
      if (!tcp.closed) socket.write(`${seq}\n`);
      dsock.send(`${seq}`, port, dst);
    }, interval);
  });
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line === 'mark') out({ tcp: tcp.mark(), udp: udp.mark() });
  }).on('close', () => process.exit(0));
}
