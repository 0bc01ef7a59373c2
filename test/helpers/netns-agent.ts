// A small program the data-plane tests run inside a network namespace (`ip netns exec NS node
// netns-agent.js ADDRS PORTS`): it serves TCP and UDP on every address and port given and
// reports what each received packet looked like on arrival, and it sends packets on request.
// Protocol: JSON lines. Out: {"ready":true}, {"got":TOKEN,"proto","src","sport","dst","dport"}.
// In: {"send":[{token,proto,src,sport,dst,dport}]}, {"abort":true} (drop pending connections).
import dgram from 'node:dgram';
import net from 'node:net';
import readline from 'node:readline';

interface SendReq {
  token: string;
  proto: 'tcp' | 'udp';
  src: string;
  sport: number;
  dst: string;
  dport: number;
}

const addrs = (process.argv[2] ?? '').split(',').filter(Boolean);
const ports = (process.argv[3] ?? '').split(',').filter(Boolean).map(Number);
const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
const pending = new Set<net.Socket>();

function report(proto: string, token: string, src: string, sport: number, dst: string, dport: number): void {
  out({ got: token.trim(), proto, src: src.replace(/^::ffff:/, ''), sport, dst: dst.replace(/^::ffff:/, ''), dport });
}

async function listenAll(): Promise<void> {
  const waits: Array<Promise<void>> = [];
  for (const addr of addrs) {
    for (const port of ports) {
      const server = net.createServer((s) => {
        let buf = '';
        s.on('data', (b) => {
          buf += b.toString();
          if (buf.includes('\n')) {
            report('tcp', buf, s.remoteAddress!, s.remotePort!, s.localAddress!, s.localPort!);
            s.end();
          }
        });
        s.on('error', () => undefined);
      });
      waits.push(new Promise((resolve, reject) => { server.once('error', reject); server.listen(port, addr, () => resolve()); }));
      const udp = dgram.createSocket(addr.includes(':') ? 'udp6' : 'udp4');
      udp.on('message', (m, rinfo) => report('udp', m.toString(), rinfo.address, rinfo.port, addr, port));
      waits.push(new Promise((resolve, reject) => { udp.once('error', reject); udp.bind(port, addr, () => resolve()); }));
    }
  }
  await Promise.all(waits);
}

function send(p: SendReq): void {
  if (p.proto === 'tcp') {
    const s = net.connect({ host: p.dst, port: p.dport, localAddress: p.src, localPort: p.sport });
    pending.add(s);
    s.on('connect', () => s.end(`${p.token}\n`));
    s.on('error', () => undefined);
    s.on('close', () => pending.delete(s));
    return;
  }
  const u = dgram.createSocket(p.src.includes(':') ? 'udp6' : 'udp4');
  u.on('error', () => u.close());
  u.bind(p.sport, p.src, () => u.send(`${p.token}\n`, p.dport, p.dst, () => u.close()));
}

listenAll().then(
  () => out({ ready: true }),
  (e: Error) => {
    out({ error: e.message });
    process.exit(1);
  },
);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line) as { send?: SendReq[]; abort?: boolean };
  for (const p of msg.send ?? []) send(p);
  if (msg.abort) for (const s of pending) s.destroy();
}).on('close', () => process.exit(0));
