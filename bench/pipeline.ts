// Where a packet's time goes in the whole pipeline (`npm run bench:eval -- --pipeline`): on the
// same packets, in interleaved rounds (medians, CPU time of this process), the policy
// classifier alone, CompiledConfig.evalBatchInto (zones, routes, NAT, policy into typed
// arrays: what the batch endpoint runs before writing JSON), CompiledConfig.eval (the same
// plus the answer objects, one prebuilt Packet at a time: 20,000 Packets, read from memory
// rather than the cache), and parsePacket + eval from the JSON objects of the packets (what
// POST /api/eval runs on the body JSON.parse made, HTTP aside).
import type { ConfigDoc } from '../src/config/types';
import { BatchAnswers, PacketBatch } from '../src/eval/batch';
import { CompiledConfig } from '../src/eval/compiled';
import { parsePacket } from '../src/eval/packet';
import type { Packet } from '../src/eval/types';
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
  b.words.set(pk.words.subarray(0, pk.n * 8));
  for (let i = 0; i < pk.n; i++) {
    const p = toPacket(pk, i, i % 2 === 0);
    b.fam[i] = p.family;
    b.protocol[i] = p.protocol;
    b.dstPort[i] = p.dstPort;
    b.srcPort[i] = p.srcPort ?? -1;
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
  parsed: number;
}

/** Packet p as the request body of POST /api/eval. */
function jsonOf(p: Packet): Record<string, unknown> {
  const j: Record<string, unknown> = { 'src-ip': p.srcIp, 'dst-ip': p.dstIp, protocol: p.protocol, 'dst-port': p.dstPort };
  if (p.srcPort) j['src-port'] = p.srcPort;
  if (p.srcZone !== null) j['src-zone'] = p.srcZone;
  if (p.dstZone !== null) j['dst-zone'] = p.dstZone;
  return j;
}

export function pipelineRow(name: string, doc: ConfigDoc, rounds: number, seconds: number): PipelineRow {
  const cfg = CompiledConfig.compile(doc);
  const pk = makePackets(doc, PACKETS, rng(777));
  const packets = Array.from({ length: pk.n }, (_, i) => toPacket(pk, i, i % 2 === 0));
  const json = packets.map(jsonOf);
  const b = batchOf(cfg, pk);
  const answers = new BatchAnswers(pk.n);
  const c4 = cfg.policyClassifier(4), c6 = cfg.policyClassifier(6);
  const passes = {
    lookups: () => {
      for (let i = 0; i < pk.n; i++) {
        const c = pk.fam[i] === 4 ? c4 : c6;
        for (let k = 0; k < 8; k++) c.q[k] = pk.words[i * 8 + k];
        c.q[8] = pk.key[i];
        c.q[9] = pk.sport[i];
        c.first(pk.sz[i], pk.dz[i], 0);
      }
    },
    batch: () => cfg.evalBatchInto(b, answers),
    eval: () => {
      for (const p of packets) cfg.eval(p);
    },
    parsed: () => {
      for (const j of json) cfg.eval(parsePacket(j));
    },
  };
  const got: Record<keyof typeof passes, number[]> = { lookups: [], batch: [], eval: [], parsed: [] };
  for (const k of Object.keys(passes) as Array<keyof typeof passes>) passes[k](); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const k of Object.keys(passes) as Array<keyof typeof passes>) got[k].push(rate(passes[k], pk.n, seconds));
  }
  return { name, lookups: median(got.lookups), batch: median(got.batch), eval: median(got.eval), parsed: median(got.parsed) };
}

export function runPipeline(sets: Array<{ name: string; doc: () => ConfigDoc }>, rounds: number, seconds: number): void {
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  const ns = (x: number) => (1e9 / x).toFixed(0);
  console.log('');
  console.log(`## The whole pipeline (${PACKETS.toLocaleString('en-US')} packets, ${rounds} interleaved rounds of ${seconds} s, medians, CPU time)`);
  console.log('');
  console.log('| rule set | classifier lookups/s | evalBatchInto packets/s | eval() packets/s | parsePacket + eval() packets/s | ns a packet: classifier / rest of the pipeline / eval(): Packet in, objects out |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const s of sets) {
    const r = pipelineRow(s.name, s.doc(), rounds, seconds);
    const rest = 1e9 / r.batch - 1e9 / r.lookups;
    const objects = 1e9 / r.eval - 1e9 / r.batch;
    console.log(`| ${r.name} | ${fmt(r.lookups)} | ${fmt(r.batch)} | ${fmt(r.eval)} | ${fmt(r.parsed)} | ${ns(r.lookups)} / ${rest.toFixed(0)} / ${objects.toFixed(0)} |`);
    process.stderr.write(`${s.name}: pipeline done\n`);
  }
}
