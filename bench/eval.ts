// Packet-classification benchmark: `npm run bench:eval` (node dist/bench/eval.js).
// Options: --classbench DIR (default ../shared/bench-data/classbench from the repository),
// --only NAME[,NAME] (rule sets whose name contains one of them), --seconds S (per timing),
// --params JSON (override build parameters, for tuning), --no-analysis (skip the analysis table,
// bench/analysis.ts), --anchors (then the side-by-side with the reference C++ classifiers,
// bench/anchors.ts; --anchors-dir DIR, --anchor-build DIR, --anchor-rounds N,
// --anchor-packets N), --pipeline (then where a packet's time goes in the whole pipeline,
// bench/pipeline.ts).
// Times are CPU time of this process (process.cpuUsage: user + system, GC threads included),
// not wall clock, so that other processes on a shared machine do not count.
// For each rule set: build time (median of 3 compiles of the whole configuration), bytes of
// the policy classifier per rule, lookups per second of the compiled classifier and of a
// linear scan over typed arrays on one core, and a check of compiled answers against the
// reference evaluator (full pipeline) and against the linear scan (classifier) first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigDoc } from '../src/config/types';
import { analyze, type AnalysisStats } from '../src/eval/analysis';
import { DEFAULT_BUILD_PARAMS, type BuildParams } from '../src/eval/classifier';
import { compileImage } from '../src/eval/compile';
import { CompiledConfig } from '../src/eval/compiled';
import { LinearClassifier } from '../src/eval/linear';
import { ReferenceEvaluator } from '../src/eval/reference';
import { analysisBench } from './analysis';
import { classBenchDoc, loadClassBench } from './classbench';
import { generateConfig, REALISTIC, rng } from './generate';
import { makePackets, toPacket, type PacketSet } from './packets';
import { median } from './stats';
import { runAnchors } from './anchors';
import { runPipeline } from './pipeline';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const cbDir = path.resolve(arg('classbench') ?? path.resolve(__dirname, '../../../shared/bench-data/classbench'));
const only = arg('only')?.split(',');
const seconds = Number(arg('seconds') ?? '1');
const params = arg('params') ? { ...DEFAULT_BUILD_PARAMS, ...(JSON.parse(arg('params')!) as Partial<BuildParams>) } : undefined;

interface Row {
  name: string;
  rules: number;
  buildMs: number;
  bytesPerRule: number;
  compiled: number;
  linear: number;
  analysisMs: number;
  evalPerSec: number;
  checked: number;
  covered: number;
  undecided: number;
}

/** CPU time of this process in nanoseconds (user + system, all its threads): the machine is
 * shared, and wall-clock time would count the time other processes hold the cores. */
function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/** Runs the compiled classifier over the packets; returns lookups/s and fills `out`. */
function timeCompiled(cfg: CompiledConfig, pk: PacketSet, out: Int32Array): number {
  const c4 = cfg.policyClassifier(4), c6 = cfg.policyClassifier(6);
  const q4 = c4.q, q6 = c6.q;
  const { fam, sz, dz, words: w, key, sport, n } = pk;
  const pass = () => {
    for (let i = 0; i < n; i++) {
      const o = i * 8;
      if (fam[i] === 4) {
        q4[0] = w[o];
        q4[4] = w[o + 4];
        q4[8] = key[i];
        q4[9] = sport[i];
        out[i] = c4.first(sz[i], dz[i], 0);
      } else {
        q6[0] = w[o]; q6[1] = w[o + 1]; q6[2] = w[o + 2]; q6[3] = w[o + 3];
        q6[4] = w[o + 4]; q6[5] = w[o + 5]; q6[6] = w[o + 6]; q6[7] = w[o + 7];
        q6[8] = key[i];
        q6[9] = sport[i];
        out[i] = c6.first(sz[i], dz[i], 0);
      }
    }
  };
  pass(); // warm-up
  let count = 0;
  const t0 = cpuNs();
  let el = 0;
  while (el < seconds * 1e9) {
    pass();
    count += n;
    el = cpuNs() - t0;
  }
  return (count / el) * 1e9;
}

function timeLinear(lin: LinearClassifier, pk: PacketSet, expect: Int32Array): { perSec: number; n: number; mismatches: number } {
  const q = lin.q;
  const { fam, sz, dz, words: w, key, sport } = pk;
  let mismatches = 0;
  const one = (i: number) => {
    const o = i * 8;
    for (let k = 0; k < 8; k++) q[k] = w[o + k];
    q[8] = key[i];
    q[9] = sport[i];
    return lin.first(fam[i] as 4 | 6, sz[i], dz[i]);
  };
  for (let i = 0; i < Math.min(200, pk.n); i++) one(i); // warm-up
  let i = 0;
  const t0 = cpuNs();
  let el = 0;
  while ((el < seconds * 1e9 || i < 1000) && i < pk.n) {
    for (const end = Math.min(pk.n, i + 256); i < end; i++) if (one(i) !== expect[i]) mismatches++;
    el = cpuNs() - t0;
  }
  return { perSec: (i / el) * 1e9, n: i, mismatches };
}

function bench(name: string, doc: ConfigDoc, packets: number): Row {
  const builds: number[] = [];
  let cfg!: CompiledConfig;
  for (let k = 0; k < 3; k++) {
    const t0 = cpuNs();
    const image = compileImage(doc, { params });
    builds.push((cpuNs() - t0) / 1e6);
    cfg = CompiledConfig.fromImage(image);
  }
  let polBytes = 0;
  for (const [k, [, len]] of Object.entries(cfg.meta.arrays)) if (k.startsWith('pol')) polBytes += len * 4;
  const t1 = cpuNs();
  const stats = {} as AnalysisStats;
  const analysis = analyze(doc, cfg, { stats });
  const analysisMs = (cpuNs() - t1) / 1e6;

  const r = rng(12345);
  const pk = makePackets(doc, packets, r);
  // full pipeline against the reference evaluator
  const ref = new ReferenceEvaluator(doc);
  const sample = Math.min(pk.n, doc.policies.length > 5000 ? 1500 : 3000);
  for (let i = 0; i < sample; i++) {
    const p = toPacket(pk, i, i % 2 === 0);
    const a = JSON.stringify(ref.eval(p));
    const b = JSON.stringify(cfg.eval(p));
    if (a !== b) throw new Error(`${name}: packet ${i} ${JSON.stringify(p)}: reference ${a}, compiled ${b}`);
  }
  const out = new Int32Array(pk.n);
  const compiled = timeCompiled(cfg, pk, out);
  // the whole pipeline with its answer objects, as the batch endpoint runs it
  const full = Array.from({ length: Math.min(pk.n, 20000) }, (_, i) => toPacket(pk, i, i % 2 === 0));
  for (const p of full) cfg.eval(p);
  let evals = 0;
  const te = cpuNs();
  while (cpuNs() - te < seconds * 1e9) {
    for (const p of full) cfg.eval(p);
    evals += full.length;
  }
  const evalPerSec = (evals / (cpuNs() - te)) * 1e9;
  const lin = timeLinear(LinearClassifier.policies(doc), pk, out);
  if (lin.mismatches > 0) throw new Error(`${name}: ${lin.mismatches} classifier answers differ from the linear scan`);
  return {
    name,
    rules: doc.policies.length,
    buildMs: median(builds),
    bytesPerRule: polBytes / Math.max(1, doc.policies.length),
    compiled,
    linear: lin.perSec,
    analysisMs,
    evalPerSec,
    checked: sample + lin.n,
    covered: analysis.shadowed.length + analysis.redundant.length,
    undecided: stats.undecided,
  };
}

function main(): void {
  const sets: Array<{ name: string; doc: () => ConfigDoc }> = [];
  if (fs.existsSync(cbDir)) {
    for (const seed of ['acl1', 'fw1', 'ipc1']) {
      for (const size of ['1k', '10k']) {
        const file = path.join(cbDir, `${seed}_${size}`);
        if (fs.existsSync(file)) sets.push({ name: `${seed}_${size}`, doc: () => classBenchDoc(loadClassBench(file)) });
      }
    }
  } else {
    console.log(`(no ClassBench rule sets in ${cbDir}: generated configurations only)`);
  }
  sets.push({ name: 'zones_2k (generated)', doc: () => generateConfig({ ...REALISTIC, policies: 2000, addresses: 800 }) });
  sets.push({ name: 'zones_20k (generated)', doc: () => generateConfig(REALISTIC) });

  const rows: Row[] = [];
  for (const s of sets) {
    if (only && !only.some((o) => s.name.includes(o))) continue;
    const row = bench(s.name, s.doc(), 200_000);
    rows.push(row);
    process.stderr.write(`${s.name}: done\n`);
  }
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(`node ${process.version}, ${process.arch}, ${os.cpus()[0]?.model ?? ''}, ${os.cpus().length} cores; one thread; times are CPU time of this process, ${seconds} s per timing; load average ${os.loadavg()[0].toFixed(1)}`);
  console.log('');
  console.log('| rule set | rules | build ms | bytes/rule | lookups/s compiled | lookups/s linear | speed-up | analysis ms | covered / undecided | eval()/s | checked |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.name} | ${fmt(r.rules)} | ${fmt(r.buildMs)} | ${fmt(r.bytesPerRule)} | ${fmt(r.compiled)} | ${fmt(r.linear)} | ${(r.compiled / r.linear).toFixed(1)}x | ${fmt(r.analysisMs)} | ${fmt(r.covered)} / ${fmt(r.undecided)} | ${fmt(r.evalPerSec)} | ${fmt(r.checked)} |`);
  }
  const chosen = sets.filter((s) => !only || only.some((o) => s.name.includes(o)));
  if (!process.argv.includes('--no-analysis')) analysisBench(chosen);
  if (process.argv.includes('--pipeline')) runPipeline(chosen, 5, Math.min(seconds, 0.5));
  if (process.argv.includes('--anchors')) {
    runAnchors(
      chosen.filter((s) => !s.name.includes('generated')),
      {
        anchorsDir: path.resolve(arg('anchors-dir') ?? path.resolve(__dirname, '../../../shared/anchors')),
        buildDir: path.resolve(arg('anchor-build') ?? path.join(os.tmpdir(), 'fwd-anchors-build')),
        rounds: Number(arg('anchor-rounds') ?? '5'),
        packets: Number(arg('anchor-packets') ?? '300000'),
        sample: 300,
        params,
      },
    );
  }
}

main();
