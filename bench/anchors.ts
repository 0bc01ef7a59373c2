// Side-by-side with the reference C++ classifiers (`npm run bench:eval -- --anchors`):
// TupleMerge-Offline and PartitionSort-Offline from ../shared/anchors/tuplemerge (MIT, by
// James Daly), built into a folder outside the repository (their code is never copied into
// the project), on exactly our rules and our packets:
// - the rules are written in ClassBench form from the configuration our mapping produced
//   (one-CIDR address objects, the service's protocol, destination and source port ranges,
//   `any` as 0x00/0x00 and 0 : 65535), so the anchors classify what our classifier classifies:
//   all five fields of ClassBench (issue 27);
// - the packets are our benchmark packets (bench/packets.ts), written one a line as the
//   anchor reads them;
// - on a sample, both anchors must pick the same first-match rule as ours (the anchor prints
//   its answers for traces of at most 100 packets); any difference stops the run;
// - rounds interleave an anchor run (both classifiers, one pass over the trace each, wall
//   clock as the anchor measures it) and one pass of ours over the same packets (wall clock
//   too); the table reports medians.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigDoc, PortEntry } from '../src/config/types';
import { buildClassifier, classifierBytes, DEFAULT_BUILD_PARAMS, FamilyClassifier, type BuildParams } from '../src/eval/classifier';
import { policySpecs } from '../src/eval/compile';
import { buildFamilyTable } from '../src/eval/rules';
import { packetKey, parsePortEntry } from '../src/eval/sets';
import { hasPorts, protocolNumber } from '../src/config/protocols';
import { rng } from './generate';
import { makePackets, type PacketSet } from './packets';
import { median } from './stats';

export interface AnchorOptions {
  anchorsDir: string; // ../shared/anchors
  buildDir: string; // where the anchor is built (outside the repository)
  rounds: number;
  packets: number;
  sample: number; // packets checked against each anchor's answers
  params?: BuildParams;
}

const ANCHORS = [
  { key: 'TMOffline', printed: 'TupleMerge-Offline', name: 'TupleMerge-Offline' },
  { key: 'PartitionSortOffline', printed: 'PartitionSortOffline', name: 'PartitionSort-Offline' },
] as const;

const ANSWERS_PRINTED = 100; // the anchor prints its answers for traces of at most this many packets

function onPath(cmd: string): boolean {
  return spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Builds the anchor once into buildDir (reused while its sources are unchanged); null with
 * the reason when it cannot be built here. */
export function buildAnchor(o: AnchorOptions): { exe: string } | { missing: string } {
  const missing = ['g++', 'make'].filter((c) => !onPath(c));
  if (missing.length > 0) return { missing: `${missing.join(' and ')} not found` };
  const src = path.join(o.anchorsDir, 'tuplemerge');
  if (!fs.existsSync(src)) return { missing: `no anchor sources in ${src}` };
  const dir = path.join(o.buildDir, 'tuplemerge');
  const exe = path.join(dir, 'main');
  const stamp = path.join(o.buildDir, 'built-from');
  const want = `${src} ${newestMtime(src)}`;
  if (fs.existsSync(exe) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return { exe };
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(o.buildDir, { recursive: true });
  fs.cpSync(src, dir, { recursive: true });
  process.stderr.write(`anchors: building ${dir} (make main, about 30 s)\n`);
  const r = spawnSync('make', ['-C', dir, '-j2', 'main'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0 || !fs.existsSync(exe)) return { missing: `make failed: ${(r.stderr ?? '').split('\n').filter((l) => l.includes('error')).slice(0, 3).join('; ')}` };
  fs.writeFileSync(stamp, want);
  return { exe };
}

function newestMtime(dir: string): number {
  let m = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) m = Math.max(m, fs.statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return m;
}

/** The policies of a ClassBench-mapped configuration (any zones, one-CIDR IPv4 addresses, one
 * service or any) as a ClassBench filter file, in order: what the anchors classify. */
export function classBenchText(doc: ConfigDoc): string {
  const cidr = (name: string) => {
    if (name === '' || name === 'any') return '0.0.0.0/0';
    const ips = doc.addresses.get(name)?.ips ?? [];
    if (ips.length !== 1 || ips[0].includes(':')) throw new Error(`address ${name}: not one IPv4 CIDR`);
    return ips[0];
  };
  const lines: string[] = [];
  const one = (entries: PortEntry[] | undefined, what: string) => {
    if (!entries || entries.length === 0) return '0 : 65535';
    const range = entries.length === 1 ? parsePortEntry(entries[0]) : null;
    if (!range) throw new Error(`${what}: not one port range`);
    return `${range[0]} : ${range[1]}`;
  };
  for (const p of doc.policies) {
    if (p.srcZone !== '' || p.dstZone !== '') throw new Error(`policy ${p.id}: zones have no ClassBench form`);
    let ports = '0 : 65535';
    let sports = '0 : 65535';
    let proto = '0x00/0x00';
    if (p.services.length > 0 && !p.services.includes('any')) {
      const svc = p.services.length === 1 ? doc.services.get(p.services[0]) : undefined;
      if (!svc || (svc.icmpType !== undefined)) throw new Error(`policy ${p.id}: not one service of a protocol and port ranges`);
      const n = protocolNumber(svc.protocol);
      if (hasPorts(n)) {
        ports = one(svc.ports, `policy ${p.id}`);
        sports = one(svc.sourcePorts, `policy ${p.id}`);
      }
      proto = `0x${n.toString(16).padStart(2, '0')}/0xFF`;
    }
    lines.push(`@${cidr(p.srcAddr)}\t${cidr(p.dstAddr)}\t${sports}\t${ports}\t${proto}\t0x0000/0x0000`);
  }
  return lines.join('\n') + '\n';
}

/** Packets [from, to) as the anchor's trace: src, dst, src port, dst port, protocol. */
export function traceText(pk: PacketSet, from: number, to: number): string {
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    if (pk.fam[i] !== 4) throw new Error('the anchors classify IPv4 packets only');
    const key = pk.key[i];
    out.push(`${pk.words[i * 8] >>> 0}\t${pk.words[i * 8 + 4] >>> 0}\t${pk.sport[i]}\t${key & 0xffff}\t${key >>> 16}`);
  }
  return out.join('\n') + '\n';
}

interface AnchorRun {
  buildMs: number;
  seconds: number; // classification of the whole trace
  bytes: number;
  answers: number[]; // printed for short traces: the matching rule's priority, -1 none
}

/** Runs both anchors on a rule file and a trace; parses what each prints. */
function runAnchor(exe: string, rules: string, trace: string, tmp: string): Map<string, AnchorRun> {
  const csv = path.join(tmp, 'out.csv');
  const r = spawnSync(exe, [`f=${rules}`, `p=${trace}`, `c=${ANCHORS.map((a) => a.key).join(',')}`, `o=${csv}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`anchor failed (${r.status}): ${r.stderr}`);
  const runs = new Map<string, AnchorRun>();
  let cur: AnchorRun | null = null;
  for (const line of r.stdout.split('\n')) {
    const name = ANCHORS.find((a) => a.printed === line.trim())?.name;
    if (name) {
      cur = { buildMs: NaN, seconds: NaN, bytes: NaN, answers: [] };
      runs.set(name, cur);
      continue;
    }
    if (!cur) continue;
    let m: RegExpExecArray | null;
    if ((m = /Construction time: ([\d.]+) ms/.exec(line))) cur.buildMs = Number(m[1]);
    else if ((m = /Classification time: ([\d.]+) s/.exec(line))) cur.seconds = Number(m[1]);
    else if ((m = /Size\(bytes\): (\d+)/.exec(line))) cur.bytes = Number(m[1]);
    else if ((m = /^\t(-?\d+)$/.exec(line))) cur.answers.push(Number(m[1]));
  }
  for (const a of ANCHORS) if (!runs.has(a.name)) throw new Error(`anchor printed no ${a.name} results`);
  return runs;
}

/** Our classifier's first match of packets [from, to), as rule indices (-1: none). */
function ours(c: FamilyClassifier, pk: PacketSet, from: number, to: number, out: Int32Array): void {
  const q = c.q;
  const { words: w, key, sport } = pk;
  for (let i = from; i < to; i++) {
    q[0] = w[i * 8];
    q[4] = w[i * 8 + 4];
    q[8] = key[i];
    q[9] = sport[i];
    out[i] = c.first(0, 0, 0);
  }
}

/** A trace the anchor wrote (pout=): src, dst, src port, dst port, protocol, more columns. */
export function readTrace(text: string): PacketSet {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const n = lines.length;
  const pk: PacketSet = { n, fam: new Uint8Array(n).fill(4), sz: new Int32Array(n), dz: new Int32Array(n), words: new Int32Array(n * 8), key: new Int32Array(n), sport: new Int32Array(n), zones: [] };
  lines.forEach((l, i) => {
    const f = l.trim().split(/\s+/).map(Number);
    pk.words[i * 8] = f[0] | 0;
    pk.words[i * 8 + 4] = f[1] | 0;
    // the anchors' traces give every packet a destination port; it means nothing where the
    // protocol has none (an ICMP packet's type and code are not in the trace)
    pk.key[i] = packetKey(f[4], hasPorts(f[4]) ? f[3] : 0);
    pk.sport[i] = f[2];
  });
  return pk;
}

export interface AnchorRow {
  name: string;
  lookups: number[]; // per trace
  buildMs: number;
  bytesPerRule: number;
}

interface Trace {
  label: string;
  pk: PacketSet;
  file: string;
  out: Int32Array; // our answers
}

/** Both anchors' answers on packets [from, to) of a trace must be ours. */
function check(exe: string, name: string, rulesFile: string, t: Trace, from: number, to: number, count: number, tmp: string): void {
  const sampleFile = path.join(tmp, 'sample');
  fs.writeFileSync(sampleFile, traceText(t.pk, from, to));
  for (const [anchor, run] of runAnchor(exe, rulesFile, sampleFile, tmp)) {
    if (run.answers.length !== to - from) throw new Error(`${name}: ${anchor} printed ${run.answers.length} answers for ${to - from} packets`);
    run.answers.forEach((prio, k) => {
      const theirs = prio < 0 ? -1 : count - 1 - prio; // the anchor answers a priority
      const i = from + k;
      if (theirs !== t.out[i]) throw new Error(`${name}, ${t.label}: packet ${i} (${traceText(t.pk, i, i + 1).trim()}): ${anchor} matches rule ${theirs}, ours ${t.out[i]}`);
    });
  }
}

/** Checks, times and returns the rows of one rule set (ours first), lookups on each trace. */
export interface PairedRatio {
  median: number;
  min: number;
  max: number;
}

export function compareWithAnchors(exe: string, name: string, doc: ConfigDoc, o: AnchorOptions): { traces: string[]; rows: AnchorRow[]; paired: PairedRatio[] } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-anchors-run-'));
  try {
    const rulesFile = path.join(tmp, 'rules');
    fs.writeFileSync(rulesFile, classBenchText(doc));
    const ourPk = makePackets(doc, o.packets, rng(4242));
    const traces: Trace[] = [{ label: 'our packets', pk: ourPk, file: path.join(tmp, 'trace'), out: new Int32Array(ourPk.n) }];
    fs.writeFileSync(traces[0].file, traceText(ourPk, 0, ourPk.n));
    // the anchor's own packets (ClassBench's trace generator on these rules), as it is usually measured
    const own = path.join(tmp, 'own');
    const gen = spawnSync(exe, [`f=${rulesFile}`, 'p=Auto', 'c=TMOffline', `pout=${own}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (gen.status !== 0) throw new Error(`anchor trace generation failed: ${gen.stderr}`);
    // its first packets, as many as ours (it always generates 1,000,000; reading them is most of a run)
    const ownLines = fs.readFileSync(own, 'utf8').split('\n').slice(0, o.packets).join('\n') + '\n';
    fs.writeFileSync(own, ownLines);
    const ownPk = readTrace(ownLines);
    traces.push({ label: "the anchor's packets", pk: ownPk, file: own, out: new Int32Array(ownPk.n) });

    const params = o.params ?? DEFAULT_BUILD_PARAMS;
    const build = () => {
      const t0 = performance.now();
      const data = buildClassifier(buildFamilyTable(policySpecs(doc), 4), 0, params);
      return { ms: performance.now() - t0, data };
    };
    const first = build();
    const cls = new FamilyClassifier(first.data, 4);
    const count = doc.policies.length;
    for (const t of traces) {
      ours(cls, t.pk, 0, t.pk.n, t.out); // warm-up, and our answers for the check
      const sample = Math.min(o.sample, t.pk.n);
      for (let from = 0; from < sample; from += ANSWERS_PRINTED) check(exe, name, rulesFile, t, from, Math.min(sample, from + ANSWERS_PRINTED), count, tmp);
    }

    const names = ['ours', ...ANCHORS.map((a) => a.name)];
    const times = new Map(names.map((k) => [k, traces.map((): number[] => [])]));
    // per round and trace, ours over the best anchor of the same round: the runs of a round are
    // adjacent in time, so the ratio cancels most of what a shared machine does to both
    const paired = traces.map((): number[] => []);
    const builds = new Map(names.map((k): [string, number[]] => [k, []]));
    const bytes = new Map<string, number>([['ours', classifierBytes(first.data)]]);
    builds.get('ours')!.push(first.ms);
    for (let round = 0; round < o.rounds; round++) {
      traces.forEach((t, ti) => {
        for (const [anchor, run] of runAnchor(exe, rulesFile, t.file, tmp)) {
          times.get(anchor)![ti].push(t.pk.n / run.seconds);
          builds.get(anchor)!.push(run.buildMs);
          bytes.set(anchor, run.bytes);
        }
        const t0 = performance.now();
        ours(cls, t.pk, 0, t.pk.n, t.out);
        times.get('ours')![ti].push(t.pk.n / ((performance.now() - t0) / 1000));
        const last = (k: string) => times.get(k)![ti][round];
        paired[ti].push(last('ours') / Math.max(...ANCHORS.map((a) => last(a.name))));
      });
      if (round > 0) builds.get('ours')!.push(build().ms);
    }
    return {
      traces: traces.map((t) => `${t.label} (${t.pk.n.toLocaleString('en-US')})`),
      rows: names.map((k) => ({ name: k, lookups: times.get(k)!.map(median), buildMs: median(builds.get(k)!), bytesPerRule: bytes.get(k)! / count })),
      paired: paired.map((r) => ({ median: median(r), min: Math.min(...r), max: Math.max(...r) })),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** One markdown table for a rule set: ours against both anchors, and the ratio to the best
 * anchor on each trace. */
export function anchorTable(name: string, rules: number, traces: string[], rows: AnchorRow[], paired: PairedRatio[]): string {
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  const best = traces.map((_, ti) => Math.max(...rows.filter((r) => r.name !== 'ours').map((r) => r.lookups[ti])));
  const lines = [
    `${name} (${fmt(rules)} rules)`,
    '',
    `| classifier | ${traces.map((t) => `lookups/s, ${t} | vs best anchor`).join(' | ')} | build ms | bytes/rule |`,
    `|---|${traces.map(() => '---:|---:|').join('')}---:|---:|`,
  ];
  for (const r of rows) {
    const cells = traces.map((_, ti) => `${fmt(r.lookups[ti])} | ${(r.lookups[ti] / best[ti]).toFixed(2)}x`);
    lines.push(`| ${r.name === 'ours' ? 'fwd (compiled)' : r.name} | ${cells.join(' | ')} | ${r.buildMs.toFixed(1)} | ${fmt(r.bytesPerRule)} |`);
  }
  const spread = paired.map((p, ti) => `${traces[ti]}: ${p.median.toFixed(2)}x (rounds ${p.min.toFixed(2)}-${p.max.toFixed(2)})`);
  lines.push('', `Ours over the best anchor of the same round, median: ${spread.join('; ')}.`);
  return lines.join('\n');
}

/** The anchors section of bench:eval: builds the anchor, then one table per ClassBench set. */
export function runAnchors(sets: Array<{ name: string; doc: () => ConfigDoc }>, o: AnchorOptions): void {
  console.log('');
  console.log(`## Against the reference C++ classifiers (${o.rounds} interleaved rounds, medians, wall clock of one pass over a trace; on each trace ${o.sample} packets checked against each anchor)`);
  console.log('');
  const built = buildAnchor(o);
  if ('missing' in built) {
    console.log(`Anchors not run: ${built.missing}.`);
    return;
  }
  for (const s of sets) {
    const doc = s.doc();
    const { traces, rows, paired } = compareWithAnchors(built.exe, s.name, doc, o);
    console.log(anchorTable(s.name, doc.policies.length, traces, rows, paired));
    console.log('');
    process.stderr.write(`${s.name}: anchors done\n`);
  }
}
