// The pause of forwarding across a failover of an HA pair (issue 39), with real packets:
// test/helpers/ha-lab.ts's pair (two fwd nodes of one cluster, keepalived and conntrackd), a
// client keeping a TCP connection and a UDP flow through the source translation, each
// probing every 20 ms. The pause is the longest time without an echo across the failover.
// Shapes: adverts every 200 ms against the default 1000 ms (the baseline of the ratio), and
// two faults: a "power off" of the master (links down, daemon and helpers killed) and a
// controlled step-down (POST /api/ha/failover). Goal: under 1 s with 200 ms adverts.
//   node dist/bench/ha-failover.js [--rounds N]
import { HaLab, type Prober } from '../test/helpers/ha-lab';
import { ok } from '../test/helpers/daemon';

const PROBE_MS = 20;
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pause { udp: number; tcp: number; lost: boolean }

async function measure(lab: HaLab, probe: Prober, fault: 'power-off' | 'step-down'): Promise<Pause> {
  const [a, b] = lab.nodes;
  await lab.waitState(a, 'master');
  await lab.waitState(b, 'backup');
  // the backup holds the master's connections before the fault
  for (let i = 0; i < 150 && (await lab.status(b)).sync.external_cache === 0; i++) await sleep(200);
  await sleep(1000);
  await probe.mark();
  if (fault === 'power-off') await lab.powerOff(a);
  else await ok(a.client!.post('/api/ha/failover'));
  await lab.waitState(b, 'master', 30_000);
  await sleep(3000);
  const f = await probe.mark();
  // back to the start: the old master serves again and takes over (preempt)
  if (fault === 'power-off') await lab.powerOn(a);
  else await ok(a.client!.post('/api/ha/failover', { action: 'resume' }));
  await lab.waitState(a, 'master', 60_000);
  await sleep(3000);
  await probe.mark();
  return { udp: f.udp.maxGapMs, tcp: f.tcp.maxGapMs, lost: f.tcp.closed || f.tcp.error !== '' || f.tcp.echoes === 0 };
}

async function shape(advertMs: number): Promise<Record<string, Pause[]>> {
  const lab = new HaLab();
  const out: Record<string, Pause[]> = { 'power-off': [], 'step-down': [] };
  try {
    await lab.create();
    await lab.configure(advertMs);
    await lab.echo();
    const probe = await lab.prober(PROBE_MS);
    for (let r = 0; r < rounds; r++) {
      for (const fault of ['power-off', 'step-down'] as const) {
        const p = await measure(lab, probe, fault);
        out[fault].push(p);
        process.stderr.write(`advert ${advertMs} ms, ${fault}, round ${r + 1}: udp ${p.udp} ms, tcp ${p.tcp} ms${p.lost ? ' (TCP LOST)' : ''}\n`);
      }
    }
  } finally {
    await lab.destroy();
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const max = (xs: number[]) => Math.max(...xs);

async function main(): Promise<void> {
  const fast = await shape(200);
  const base = await shape(1000);
  const rows: string[] = ['| fault | adverts | UDP pause median / max (ms) | TCP pause median / max (ms) | TCP lost | UDP median vs 1000 ms adverts |', '|---|---|---|---|---|---|'];
  for (const fault of ['power-off', 'step-down']) {
    for (const [advert, data] of [[200, fast], [1000, base]] as const) {
      const d = data[fault];
      const udp = d.map((p) => p.udp), tcp = d.map((p) => p.tcp);
      const ratio = (median(udp) / median(base[fault].map((p) => p.udp))).toFixed(2);
      rows.push(`| ${fault} | ${advert} ms | ${median(udp)} / ${max(udp)} | ${median(tcp)} / ${max(tcp)} | ${d.filter((p) => p.lost).length} of ${d.length} | ${ratio} |`);
    }
  }
  process.stdout.write(`probes every ${PROBE_MS} ms, ${rounds} rounds per shape\n${rows.join('\n')}\n`);
}

main().then(() => process.exit(0), (e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
