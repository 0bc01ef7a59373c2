// `node dist/bench/commit-cpu.js --scale ...`: the commit at scale over HTTP (commit-scale.ts).
// `node dist/bench/commit-cpu.js [--rounds N] [--against DIST] [--policies N [--generator SHAPE]] [--change policy|address]`: the compile worker's part of
// a commit of the 20,000-policy generated configuration (policySpecs, compileImage, analyze),
// step by step, in a worker thread with the compile pool's resource limits (the 8 MB young
// generation shapes the GC cost). With --against DIST (another build's dist directory, e.g.
// main's) a second worker runs that build's modules on the same document; the rounds
// alternate between the builds, so load from other processes falls on both alike. Per step:
// median wall ms and CPU ms (process CPU: the worker's thread and V8's GC helpers; the main
// thread waits meanwhile), and whether both builds' answers are the same (the analysis and
// the compiled image's bytes). GC pauses: the worker thread's, of a whole round (the
// perf_hooks gc entries).
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { WORKER_RESOURCE_LIMITS } from '../src/workers/compile-pool';
import { startBuildWorker, type BuildWorker } from './build-worker';
import { median } from './stats';
import { scaleBench } from './commit-scale';
import { oneChange, type ChangeKind } from './one-change';
import { isShape, shapeConfig, SHAPES, type Shape } from './shapes';

const STEPS = ['specs', 'compile', 'analyze', 'total'] as const;
type Step = (typeof STEPS)[number];
interface RoundResult {
  wall: Record<Step, number>;
  cpu: Record<Step, number>;
  analysis: string; // sha256 of the analysis's JSON and its stats (how each policy was decided)
  image: string; // sha256 of the image's buffer
  gc: number; // ms of GC pauses of the worker's thread in the round
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Worker side: load the build in `dist`, generate the document once, run a round per message. */
function serve(dist: string, scale: number, change: ChangeKind | null, generator: string): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const compile = require(path.join(dist, 'src/eval/compile.js')) as typeof import('../src/eval/compile');
  const analysis = require(path.join(dist, 'src/eval/analysis.js')) as typeof import('../src/eval/analysis');
  const compiled = require(path.join(dist, 'src/eval/compiled.js')) as typeof import('../src/eval/compiled');
  const gen = require(path.join(dist, 'bench/generate.js')) as typeof import('./generate');
  const scaleGen = require(path.join(dist, 'bench/scale-config.js')) as typeof import('./scale-config');
  // --generator: one of bench/shapes.ts's (this build's generator, so both builds get the same document)
  let doc = scale > 0 ? (generator === 'random' ? scaleGen.scaleConfig({ policies: scale }) : shapeConfig(generator as Shape, scale)) : gen.generateConfig(gen.REALISTIC);
  // --change: each round makes one change, then compiles with this thread's last build (a
  // build without build-memo.js compiles it whole, as the compile worker did before)
  const document = require(path.join(dist, 'src/config/document.js')) as typeof import('../src/config/document');
  let memoMod: typeof import('../src/eval/build-memo') | null = null;
  try {
    memoMod = require(path.join(dist, 'src/eval/build-memo.js')) as typeof import('../src/eval/build-memo');
  } catch {
    memoMod = null;
  }
  let memo: import('../src/eval/build-memo').BuildMemo | undefined;
  let round = 0;
  if (change && memoMod) {
    memo = new memoMod.BuildMemo(null);
    compile.compileImage(doc, { specs: compile.policySpecs(doc, memo), build: memo });
    memo.done();
  }
  const sha = (b: string | ArrayBufferLike) => createHash('sha256').update(typeof b === 'string' ? b : new Uint8Array(b)).digest('hex');
  let gc = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc += e.duration;
  }).observe({ entryTypes: ['gc'] });
  parentPort!.on('message', () => {
    gc = 0;
    const wall = {} as Record<Step, number>, cpu = {} as Record<Step, number>;
    let w = performance.now(), c = cpuMs();
    const lap = (s: Step) => {
      const w1 = performance.now(), c1 = cpuMs();
      wall[s] = w1 - w;
      cpu[s] = c1 - c;
      w = w1;
      c = c1;
    };
    let build: typeof memo;
    if (change) {
      doc = oneChange(doc, change, round++, document.workingCopy);
      build = memoMod ? new memoMod.BuildMemo(memo ?? null) : undefined;
      w = performance.now();
      c = cpuMs();
    }
    // what src/workers/compile-worker.ts does, a step at a time
    const specs = compile.policySpecs(doc, build);
    lap('specs');
    const image = compile.compileImage(doc, { specs, build });
    lap('compile');
    if (build) memo = build.done();
    const stats = {} as import('../src/eval/analysis').AnalysisStats;
    // --change times the compile alone (the analysis after a change is the analysis memo's)
    const a = change ? null : analysis.analyze(doc, compiled.CompiledConfig.fromImage(image), { specs, stats });
    lap('analyze');
    // the steps' sum (--change: the change itself is not timed)
    wall.total = wall.specs + wall.compile + wall.analyze;
    cpu.total = cpu.specs + cpu.compile + cpu.analyze;
    const r = { wall, cpu, analysis: sha(JSON.stringify([a, stats])), image: sha(image.buffer) };
    // the GC entries of the round are delivered after it, on the event loop
    setTimeout(() => parentPort!.postMessage({ ...r, gc } satisfies RoundResult), 20);
  });
  parentPort!.postMessage('ready');
}

function start(label: string, dist: string, scale: number, change: ChangeKind | null, generator: string): BuildWorker<RoundResult> {
  return startBuildWorker<RoundResult>(__filename, label, { dist, scale, change, generator });
}

async function main(): Promise<void> {
  const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const rounds = Number(arg('--rounds') ?? 5);
  const against = arg('--against');
  // --scale N: issue 30's random rule base of N policies (bench/scale-config.ts) instead of
  // the realistic 20,000-policy one
  // (--policies N here: --scale is the HTTP bench)
  const scale = Number(arg('--policies') ?? 0);
  // --change policy|address: one change a round, compiled from the thread's last build
  const change = (arg('--change') ?? null) as ChangeKind | null;
  if (change && change !== 'policy' && change !== 'address') throw new Error('--change policy|address');
  // --generator random|cross-zone|grouped|ipv6-heavy|classbench (with --policies)
  const generator = arg('--generator') ?? 'random';
  if (generator !== 'random' && !isShape(generator)) throw new Error(`--generator: random, ${SHAPES.join(', ')}`);
  const builds = [start('this build', path.resolve(__dirname, '..'), scale, change, generator)];
  if (against) builds.push(start(`against ${against}`, path.resolve(against), scale, change, generator));
  await Promise.all(builds.map((b) => b.ready));
  const results = builds.map(() => [] as RoundResult[]);
  const loads: number[] = [];
  // one warm-up round each (JIT), then alternate; every other round starts with the other build
  for (const b of builds) await b.round();
  for (let k = 0; k < rounds; k++) {
    const order = k % 2 ? [...builds.keys()].reverse() : [...builds.keys()];
    for (const i of order) results[i].push(await builds[i].round());
    loads.push(os.loadavg()[0]);
    process.stderr.write(`round ${k + 1}/${rounds}: ${order.map((i) => `${builds[i].label} ${Math.round(results[i][k].cpu.total)} cpu ms`).join(', ')}\n`);
  }
  await Promise.all(builds.map((b) => b.stop()));
  process.stderr.write('\n');
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  if (change) console.log(`\nOne ${change} changed each round, then compiled (this build: from its last build; analysis not run)`);
  console.log(`\nCompile worker steps, ${scale > 0 ? `${scale.toLocaleString('en-US')} ${generator} policies (bench/${generator === 'random' ? 'scale-config' : 'shapes'}.ts)` : '20,000 generated policies'}, ${rounds} rounds each after a warm-up, young generation ${WORKER_RESOURCE_LIMITS.maxYoungGenerationSizeMb} MB; median wall ms / CPU ms`);
  console.log(`load average (1 min) during the rounds: ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}; ${os.cpus().length} cores, ${os.cpus()[0].model}, Node ${process.version}\n`);
  console.log(`| build | ${STEPS.join(' | ')} | GC pauses ms |`);
  console.log(`|---|${STEPS.map(() => '---:').join('|')}|---:|`);
  builds.forEach((b, i) => {
    const cells = STEPS.map((s) => `${fmt(median(results[i].map((r) => r.wall[s])))} / ${fmt(median(results[i].map((r) => r.cpu[s])))}`);
    console.log(`| ${b.label} | ${cells.join(' | ')} | ${fmt(median(results[i].map((r) => r.gc)))} |`);
  });
  if (builds.length > 1) {
    const same = (k: 'analysis' | 'image') => results.flat().every((r) => r[k] === results[0][0][k]);
    console.log(`\nsame analysis in every round of both builds: ${same('analysis') ? 'yes' : 'NO'}; same image bytes: ${same('image') ? 'yes' : 'no (the answers may still agree: test/eval compares them)'}`);
  }
}

if (isMainThread) {
  (process.argv.includes('--scale') ? scaleBench() : main()).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  const wd = workerData as { dist: string; scale: number; change: ChangeKind | null; generator: string };
  serve(wd.dist, wd.scale, wd.change, wd.generator);
}
