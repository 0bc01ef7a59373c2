// `node dist/bench/shape-cpu.js [--sizes 1000,20000] [--generators random,cross-zone,...]
// [--changes 3]`: the compile thread's work of a commit on each rule-base shape (issue 44), as
// CPU ms, which a loaded machine disturbs far less than the wall times of the HTTP bench
// (commit-scale.ts). For each generator and size, in a worker thread with the compile pool's
// resource limits, what src/workers/compile-worker.ts does: a full build (policySpecs,
// compileImage, the quick analysis, with a BuildMemo and an analysis memo), then --changes
// one-address changes and --changes one-policy changes (bench/one-change.ts), each compiled
// and analyzed from the build and memo before it. Columns: CPU ms of the full build's steps,
// the median CPU ms of a change (specs + compile + analysis), and its ratio to the smallest
// size of the same generator. CPU is the process's (the worker's thread, V8's GC helpers).
import os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { workingCopy } from '../src/config/document';
import type { ConfigDoc } from '../src/config/types';
import type { AnalysisMemo } from '../src/eval/analysis-memo';
import { analyze } from '../src/eval/analysis';
import { BuildMemo } from '../src/eval/build-memo';
import { compileImage, policySpecs } from '../src/eval/compile';
import { CompiledConfig } from '../src/eval/compiled';
import { WORKER_RESOURCE_LIMITS } from '../src/workers/compile-pool';
import { oneChange, type ChangeKind } from './one-change';
import { scaleConfig } from './scale-config';
import { isShape, shapeConfig, SHAPES } from './shapes';
import { median } from './stats';

interface Steps { specs: number; compile: number; analyze: number }
interface Result { full: Steps; covered: number; undecided: number; address: number[]; policy: number[] }

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Worker side: one generator and size. */
function run(generator: string, size: number, changes: number): Result {
  let doc: ConfigDoc = generator === 'random' ? scaleConfig({ policies: size }) : shapeConfig(generator as (typeof SHAPES)[number], size);
  let lastBuild: BuildMemo | null = null;
  let lastMemo: AnalysisMemo | null = null;
  let covered = 0, undecided = 0;
  const step = (): Steps => {
    let c = cpuMs();
    const lap = () => {
      const c1 = cpuMs(), d = c1 - c;
      c = c1;
      return d;
    };
    const build = new BuildMemo(lastBuild);
    const specs = policySpecs(doc, build);
    const s = lap();
    const image = compileImage(doc, { specs, build });
    lastBuild = build.done();
    const k = lap();
    const memo: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: lastMemo };
    const a = analyze(doc, CompiledConfig.fromImage(image), { specs, memo });
    lastMemo = memo.next ?? lastMemo;
    covered = a.shadowed.length + a.redundant.length;
    undecided = a.undecided.length;
    return { specs: s, compile: k, analyze: lap() };
  };
  const full = step();
  const fullCovered = covered, fullUndecided = undecided;
  const times = (kind: ChangeKind) => Array.from({ length: changes }, (_, r) => {
    doc = oneChange(doc, kind, r, workingCopy);
    const t = step();
    return t.specs + t.compile + t.analyze;
  });
  const address = times('address');
  const policy = times('policy');
  return { full, covered: fullCovered, undecided: fullUndecided, address, policy };
}

function inWorker(generator: string, size: number, changes: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const w = new Worker(__filename, { workerData: { generator, size, changes }, resourceLimits: WORKER_RESOURCE_LIMITS });
    w.once('message', (m: Result) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

async function main(): Promise<void> {
  const arg = (name: string, def: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : def);
  const sizes = arg('--sizes', '1000,20000').split(',').map(Number);
  const generators = arg('--generators', ['random', ...SHAPES].join(',')).split(',');
  for (const g of generators) if (g !== 'random' && !isShape(g)) throw new Error(`--generators: random, ${SHAPES.join(', ')}`);
  const changes = Number(arg('--changes', '3'));
  const low = Math.min(...sizes);
  const loads: number[] = [os.loadavg()[0]];
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  const lines: string[] = [];
  for (const g of generators) {
    let first: Result | null = null;
    for (const size of [...sizes].sort((a, b) => a - b)) {
      const r = await inWorker(g, size, changes);
      loads.push(os.loadavg()[0]);
      if (size === low) first = r;
      const x = (k: 'address' | 'policy') => (first && size !== low ? ` (${(median(r[k]) / median(first[k])).toFixed(1)}x)` : '');
      const f = r.full;
      lines.push(`| ${g} | ${fmt(size)} | ${fmt(f.specs)} / ${fmt(f.compile)} / ${fmt(f.analyze)} | ${fmt(f.specs + f.compile + f.analyze)} | ${fmt(r.covered)} / ${fmt(r.undecided)} | ${fmt(median(r.address))}${x('address')} | ${fmt(median(r.policy))}${x('policy')} |`);
      process.stderr.write(`${lines[lines.length - 1]}\n`);
    }
  }
  console.log(`\nThe compile thread's CPU ms per shape (bench/shapes.ts), in a worker with the compile pool's limits; changes: median of ${changes}, (x) over the same shape at ${fmt(low)} policies. Load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}\n`);
  console.log('| shape | policies | full build: specs / compile / quick analysis | full build | covered / undecided | one address + compile + analysis | one policy + compile + analysis |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const l of lines) console.log(l);
}

if (isMainThread) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  const wd = workerData as { generator: string; size: number; changes: number };
  parentPort!.postMessage(run(wd.generator, wd.size, wd.changes));
}
