// The traffic log's daemon side under a flood (issue 28 point 10): a sender process writes
// ulogd's JSON lines (one per logged connection) to the daemon's socket at an offered rate;
// the NflogSocket's bounded queue and the TrafficLog (records completed with a realistic
// compiled configuration, kept in the memory store) take what they can. Per rate: records
// kept, records dropped (counted), their sum against what was sent (nothing may go
// unaccounted), a request's latency meanwhile (an event-loop delay probe: the API's turns),
// and the heap after GC. The kernel and ulogd are not in this loop (docs/performance.md).
//   npm run bench:traffic-log [-- seconds]
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

async function stage(rate: number, seconds: number, compiled: CompiledConfig, doc: ReturnType<typeof generateConfig>) {
  const sock = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-tl-')), 'u.sock');
  const feed = new NflogSocket(sock, 20_000, () => doc);
  await feed.listen();
  const tl = new TrafficLog(feed, new MemoryTrafficStore(100_000), () => 'bench', async () => ({ doc, compiled }), pino({ level: 'silent' }));
  tl.start();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const child = fork(__filename, ['send', sock, String(rate), String(seconds)]);
  const sent = await new Promise<number>((r) => child.once('message', (m: { sent: number }) => r(m.sent)));
  const t = Date.now();
  while (tl.stored + tl.dropped < sent && Date.now() - t < 10_000) await new Promise((r) => setTimeout(r, 50));
  delay.disable();
  tl.close();
  await feed.close();
  global.gc?.();
  return { rate, sent, stored: tl.stored, dropped: tl.dropped, p99ms: delay.percentile(99) / 1e6, heapMB: process.memoryUsage().heapUsed / 2 ** 20 };
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 5);
  const doc = generateConfig();
  const compiled = CompiledConfig.compile(doc);
  const rows = [];
  for (const rate of [5_000, 20_000, 50_000, 100_000]) rows.push(await stage(rate, seconds, compiled, doc));
  const base = rows[0];
  console.log(`traffic log pipeline, ${seconds} s a rate, ${doc.policies.length} policies, queue 20,000, keep 100,000 (node ${process.version}, ${os.cpus().length} cpus)`);
  console.log('asked/s    sent/s    kept      dropped   accounted  kept/s    vs 5k/s  loop p99 ms  heap MB');
  for (const r of rows) {
    const keptRate = r.stored / seconds;
    console.log([String(r.rate).padEnd(10), (r.sent / seconds).toFixed(0).padEnd(9), String(r.stored).padEnd(9), String(r.dropped).padEnd(9),
      (r.stored + r.dropped === r.sent ? 'all' : `${r.sent - r.stored - r.dropped} missing`).padEnd(10), keptRate.toFixed(0).padEnd(9),
      `${(keptRate / (base.stored / seconds)).toFixed(2)}x`.padEnd(8), r.p99ms.toFixed(1).padEnd(12), r.heapMB.toFixed(1)].join(' '));
  }
}

if (process.argv[2] === 'send') void send(process.argv[3], Number(process.argv[4]), Number(process.argv[5])).then(() => process.exit(0));
else void main();
