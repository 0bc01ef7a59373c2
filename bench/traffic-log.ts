// The traffic log's daemon side under a flood (issue 28 point 10): a sender process writes
// ulogd's JSON lines (one per logged connection) to the daemon's socket at an offered rate;
// the NflogSocket's bounded queue and the TrafficLog (records completed with a realistic
// compiled configuration, kept in the memory store) take what they can. Per rate: records
// kept, records dropped (counted), their sum against what was sent (nothing may go
// unaccounted), a request's latency meanwhile (an event-loop delay probe: the API's turns),
// and the heap after GC. The kernel and ulogd are not in this loop (docs/performance.md).
// With --syslog tcp|udp every kept record is also forwarded as the daemon does (FW_SYSLOG,
// buffer 10,000) to a receiver process that counts what arrives: forwarded, dropped (counted
// by the forwarder) and received must add up.
//   npm run bench:traffic-log [-- seconds] [--rates 5000,20000] [--syslog tcp|udp]
import { fork } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { NflogSocket } from '../src/dataplane/traffic-kernel';
import { TrafficLog } from '../src/connections/traffic-log';
import { MemoryTrafficStore } from '../src/connections/traffic-store';
import { CompiledConfig } from '../src/eval/compiled';
import dgram from 'node:dgram';
import { SyslogForwarder } from '../src/syslog/forwarder';
import { trafficFieldsOf, trafficRecord } from '../src/syslog/records';
import { parseSyslogTargets } from '../src/syslog/targets';
import { generateConfig } from './generate';

function line(i: number): string {
  const src = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return JSON.stringify({
    timestamp: '2026-11-26T20:00:35.175389', dvc: 'Netfilter', 'raw.pktlen': 60, 'oob.prefix': `fwd policy ${1 + (i % 50)} allow`,
    'oob.time.sec': Math.floor(Date.now() / 1000), 'oob.time.usec': 0, 'oob.mark': 0, 'oob.hook': 2, 'oob.family': 2, 'oob.protocol': 2048,
    'ip.protocol': 6, 'ip.ttl': 64, src_port: 1024 + (i % 60000), dest_port: 443, 'tcp.syn': 1, 'oob.in': 'eth0', 'oob.out': 'eth1',
    src_ip: src, dest_ip: '192.0.2.10',
  });
}

/** The sender: `rate` lines a second for `seconds`, in 10 ms slices; prints how many it wrote. */
async function send(sock: string, rate: number, seconds: number): Promise<void> {
  const c = net.createConnection(sock);
  await new Promise((r) => c.once('connect', r));
  const perSlice = Math.max(1, Math.round(rate / 100));
  let sent = 0;
  const t0 = Date.now();
  while (Date.now() - t0 < seconds * 1000) {
    const target = Math.floor(((Date.now() - t0) / 1000) * rate);
    let chunk = '';
    for (let k = 0; k < perSlice && sent < target; k++) chunk += `${line(sent++)}\n`;
    if (chunk && !c.write(chunk)) await new Promise((r) => c.once('drain', r));
    await new Promise((r) => setTimeout(r, 10));
  }
  c.end();
  process.send!({ sent });
}

/** The syslog receiver: counts the messages that arrive (tcp: octet-counted frames) and answers the count when asked. */
function receive(protocol: string): void {
  let count = 0;
  const ready = (port: number) => process.send!({ port });
  process.on('message', () => process.send!({ received: count }));
  if (protocol === 'udp') {
    const sock = dgram.createSocket('udp4');
    sock.on('message', () => count++);
    sock.bind(0, '127.0.0.1', () => ready(sock.address().port));
    return;
  }
  const server = net.createServer((c) => {
    let buf: Buffer = Buffer.alloc(0);
    c.on('data', (d: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      for (;;) {
        const sp = buf.indexOf(32);
        if (sp < 0) break;
        const len = Number(buf.subarray(0, sp).toString());
        if (buf.length < sp + 1 + len) break;
        count++;
        buf = buf.subarray(sp + 1 + len);
      }
    });
  });
  server.listen(0, '127.0.0.1', () => ready((server.address() as net.AddressInfo).port));
}

/** A syslog receiver process and the forwarder the daemon would use to reach it. */
async function syslogLeg(protocol: string): Promise<{ fw: SyslogForwarder; received: () => Promise<number>; stop: () => void }> {
  const child = fork(__filename, ['receive', protocol]);
  const { port } = await new Promise<{ port: number }>((r) => child.once('message', r as (m: unknown) => void));
  const fw = new SyslogForwarder({ targets: parseSyslogTargets(`${protocol}://127.0.0.1:${port}`), buffer: 10_000, verify: true, log: pino({ level: 'silent' }) });
  const received = () => new Promise<number>((r) => { child.once('message', (m: { received: number }) => r(m.received)); child.send('count'); });
  return { fw, received, stop: () => child.kill() };
}

async function stage(rate: number, seconds: number, compiled: CompiledConfig, doc: ReturnType<typeof generateConfig>, syslog?: string) {
  const sock = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-tl-')), 'u.sock');
  const feed = new NflogSocket(sock, 20_000, () => doc);
  await feed.listen();
  const tl = new TrafficLog(feed, new MemoryTrafficStore(100_000), () => 'bench', async () => ({ doc, compiled }), pino({ level: 'silent' }));
  const leg = syslog ? await syslogLeg(syslog) : null;
  if (leg) tl.onRecord((r) => leg.fw.forward(trafficRecord(trafficFieldsOf(r))));
  tl.start();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const child = fork(__filename, ['send', sock, String(rate), String(seconds)]);
  // a long run samples the memory every minute (heap after a full GC with --expose-gc), to show it flat
  const memory: string[] = [];
  const sampler = setInterval(() => {
    global.gc?.();
    memory.push(`${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)}/${(process.memoryUsage().rss / 2 ** 20).toFixed(0)}`);
  }, 60_000);
  const sent = await new Promise<number>((r) => child.once('message', (m: { sent: number }) => r(m.sent)));
  clearInterval(sampler);
  if (memory.length) console.log(`  ${rate}/s, heap after GC / RSS MB each minute: ${memory.join(', ')}`);
  const t = Date.now();
  while (tl.stored + tl.dropped < sent && Date.now() - t < 10_000) await new Promise((r) => setTimeout(r, 50));
  delay.disable();
  tl.close();
  await feed.close();
  const forwarded = leg ? await settleSyslog(leg, tl.stored) : null;
  global.gc?.();
  return { rate, sent, stored: tl.stored, dropped: tl.dropped, p99ms: delay.percentile(99) / 1e6, heapMB: process.memoryUsage().heapUsed / 2 ** 20, forwarded };
}

/** Waits (up to 10 s) until the forwarder has sent or dropped every kept record, then reads what arrived. */
async function settleSyslog(leg: Awaited<ReturnType<typeof syslogLeg>>, stored: number) {
  const t = Date.now();
  const st = () => leg.fw.stats()[0];
  while (st().sent + st().dropped < stored && Date.now() - t < 10_000) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500)); // the last datagrams and frames on their way
  const { sent, dropped } = st();
  const received = await leg.received();
  await leg.fw.close();
  leg.stop();
  return { sent, dropped, received };
}

const option = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);

async function main(): Promise<void> {
  const seconds = Number(/^\d/.test(process.argv[2] ?? '') ? process.argv[2] : 5);
  const rates = (option('--rates') ?? '5000,20000,50000,100000').split(',').map(Number);
  const syslog = option('--syslog');
  if (syslog !== undefined && syslog !== 'tcp' && syslog !== 'udp') throw new Error('--syslog takes tcp or udp');
  const doc = generateConfig();
  const compiled = CompiledConfig.compile(doc);
  const rows = [];
  for (const rate of rates) rows.push(await stage(rate, seconds, compiled, doc, syslog));
  const base = rows[0];
  console.log(`traffic log pipeline, ${seconds} s a rate, ${doc.policies.length} policies, queue 20,000, keep 100,000 (node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  console.log(`asked/s    sent/s    kept      dropped   accounted  kept/s    vs ${rates[0] / 1000}k/s  loop p99 ms  heap MB${syslog ? `  syslog ${syslog}: forwarded / dropped / received` : ''}`);
  for (const r of rows) {
    const keptRate = r.stored / seconds;
    console.log([String(r.rate).padEnd(10), (r.sent / seconds).toFixed(0).padEnd(9), String(r.stored).padEnd(9), String(r.dropped).padEnd(9),
      (r.stored + r.dropped === r.sent ? 'all' : `${r.sent - r.stored - r.dropped} missing`).padEnd(10), keptRate.toFixed(0).padEnd(9),
      `${(keptRate / (base.stored / seconds)).toFixed(2)}x`.padEnd(8), r.p99ms.toFixed(1).padEnd(12), r.heapMB.toFixed(1).padEnd(8),
      r.forwarded ? `${r.forwarded.sent} / ${r.forwarded.dropped} / ${r.forwarded.received}` : ''].join(' '));
  }
}

if (process.argv[2] === 'send') void send(process.argv[3], Number(process.argv[4]), Number(process.argv[5])).then(() => process.exit(0));
else if (process.argv[2] === 'receive') receive(process.argv[3]);
else void main();
