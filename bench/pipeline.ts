// Where a packet's time goes in the whole pipeline (`npm run bench:eval -- --pipeline`): on the
// same packets, in interleaved rounds (medians, CPU time of this process), the policy
// classifier alone, CompiledConfig.evalBatchInto (zones, routes, NAT, policy into typed
// arrays: what the batch endpoint runs before writing JSON) and CompiledConfig.eval (the same
// plus the answer objects, one packet at a time).
import type { ConfigDoc } from '../src/config/types';
import { BatchAnswers, PacketBatch } from '../src/eval/batch';
import { CompiledConfig, loadWords } from '../src/eval/compiled';
import { rng } from './generate';
import { makePackets, toPacket, type PacketSet } from './packets';
import { median } from './stats';

const PACKETS = 20_000;

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Packets per second of `pass` (which handles `n` packets), run for about `seconds`. */
function rate(pass: () => void, n: number, seconds: number): number {
  let count = 0;
  const t0 = cpuSeconds();
  let el = 0;
  while (el < seconds) {
    pass();
    count += n;
    el = cpuSeconds() - t0;
  }
  return count / el;
}

function batchOf(cfg: CompiledConfig, pk: PacketSet): PacketBatch {
  const b = new PacketBatch(pk.n);
  for (let i = 0; i < pk.n; i++) {
    const p = toPacket(pk, i, i % 2 === 0);
    b.fam[i] = p.family;
    loadWords(p.src, b.words, i * 8);
    loadWords(p.dst, b.words, i * 8 + 4);
    b.protocol[i] = p.protocol;
    b.dstPort[i] = p.dstPort;
    b.srcZone[i] = p.srcZone;
    b.dstZone[i] = p.dstZone;
  }
  if (cfg.evalBatchInto(b).length !== pk.n) throw new Error('batch length');
  return b;
}

export interface PipelineRow {
  name: string;
  lookups: number;
  batch: number;
  eval: number;
}

export function pipelineRow(name: string, doc: ConfigDoc, rounds: number, seconds: number): PipelineRow {
  const cfg = CompiledConfig.compile(doc);
  const pk = makePackets(doc, PACKETS, rng(777));
  const packets = Array.from({ length: pk.n }, (_, i) => toPacket(pk, i, i % 2 === 0));
  const b = batchOf(cfg, pk);
  const answers = new BatchAnswers(pk.n);
  const c4 = cfg.policyClassifier(4), c6 = cfg.policyClassifier(6);
  const passes = {
    lookups: () => {
      for (let i = 0; i < pk.n; i++) {
        const c = pk.fam[i] === 4 ? c4 : c6;
        for (let k = 0; k < 8; k++) c.q[k] = pk.words[i * 8 + k];
        c.q[8] = pk.key[i];
        c.first(pk.sz[i], pk.dz[i], 0);
      }
    },
    batch: () => cfg.evalBatchInto(b, answers),
    eval: () => {
      for (const p of packets) cfg.eval(p);
    },
  };
  const got: Record<keyof typeof passes, number[]> = { lookups: [], batch: [], eval: [] };
  for (const k of Object.keys(passes) as Array<keyof typeof passes>) passes[k](); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const k of Object.keys(passes) as Array<keyof typeof passes>) got[k].push(rate(passes[k], pk.n, seconds));
  }
  return { name, lookups: median(got.lookups), batch: median(got.batch), eval: median(got.eval) };
}

export function runPipeline(sets: Array<{ name: string; doc: () => ConfigDoc }>, rounds: number, seconds: number): void {
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  const ns = (x: number) => (1e9 / x).toFixed(0);
  console.log('');
  console.log(`## The whole pipeline (${PACKETS.toLocaleString('en-US')} packets, ${rounds} interleaved rounds of ${seconds} s, medians, CPU time)`);
  console.log('');
  console.log('| rule set | classifier lookups/s | evalBatchInto packets/s | eval() packets/s | ns a packet: classifier / rest of the pipeline / eval(): Packet in, objects out |');
  console.log('|---|---:|---:|---:|---:|');
  for (const s of sets) {
    const r = pipelineRow(s.name, s.doc(), rounds, seconds);
    const rest = 1e9 / r.batch - 1e9 / r.lookups;
    const objects = 1e9 / r.eval - 1e9 / r.batch;
    console.log(`| ${r.name} | ${fmt(r.lookups)} | ${fmt(r.batch)} | ${fmt(r.eval)} | ${ns(r.lookups)} / ${rest.toFixed(0)} / ${objects.toFixed(0)} |`);
    process.stderr.write(`${s.name}: pipeline done\n`);
  }
}
