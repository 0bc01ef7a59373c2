// `node dist/bench/groups-cpu.js [--rounds N] [--against DIST] [--seconds S] [--params JSON]`: issue 27 point
// 7, the compile worker's steps on the three documents of "Groups at scale" in
// docs/performance.md: the generated 20,000-policy configuration (no groups), the grouped one
// (bench/groups-config.ts: 2,000 nested address groups) and the same written flat (every group
// an address of its networks). Per document and build: CPU ms of policySpecs, compileImage
// and analyze (as the compile worker runs them, in a worker thread with the compile pool's
// resource limits), the image's MB, and the policy classifier's lookups per CPU second on
// 200,000 packets of the document (bench/packets.ts, drawn from the flat document: the same
// packets for the grouped one). With --against DIST (another build's dist, e.g. main's) a second
// worker runs that build on the same documents, rounds alternating, and the answers of both
// builds' classifiers to every packet are compared (they must be equal: first match).
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { startBuildWorker, type BuildWorker } from './build-worker';
import { median } from './stats';

const DOCS = ['generated, no groups', 'groups flattened', '2,000 nested groups'] as const;
const STEPS = ['specs', 'compile', 'analyze', 'total'] as const;
type Step = (typeof STEPS)[number];
interface DocResult { cpu: Record<Step, number>; mb: number; lookups: number; answers: string }

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Worker side: load the build in `dist`, make the documents and packets once, a round per message. */
function serve(dist: string, seconds: number, params: object): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const compile = require(path.join(dist, 'src/eval/compile.js')) as typeof import('../src/eval/compile');
  const analysis = require(path.join(dist, 'src/eval/analysis.js')) as typeof import('../src/eval/analysis');
  const compiled = require(path.join(dist, 'src/eval/compiled.js')) as typeof import('../src/eval/compiled');
  const gen = require(path.join(dist, 'bench/generate.js')) as typeof import('./generate');
  const groups = require(path.join(dist, 'bench/groups-config.js')) as typeof import('./groups-config');
  const packets = require(path.join(dist, 'bench/packets.js')) as typeof import('./packets');
  const plain = gen.generateConfig(gen.REALISTIC);
  const grouped = groups.groupedConfig(20_000);
  const flat = groups.flatConfig(grouped);
  const docs = [plain, flat, grouped];
  const pk = [packets.makePackets(plain, 200_000, gen.rng(5)), packets.makePackets(flat, 200_000, gen.rng(5))];
  const packetsOf = [pk[0], pk[1], pk[1]];
  parentPort!.on('message', () => {
    const out: DocResult[] = docs.map((doc, i) => {
      const cpu = {} as Record<Step, number>;
      const c0 = cpuMs();
      let c = c0;
      const lap = (s: Step) => {
        const c1 = cpuMs();
        cpu[s] = c1 - c;
        c = c1;
      };
      const specs = compile.policySpecs(doc);
      lap('specs');
      const image = compile.compileImage(doc, { specs, params: { ...(require(path.join(dist, 'src/eval/classifier.js')) as typeof import('../src/eval/classifier')).DEFAULT_BUILD_PARAMS, ...params } });
      lap('compile');
      const cfg = compiled.CompiledConfig.fromImage(image);
      analysis.analyze(doc, cfg, { specs });
      lap('analyze');
      cpu.total = cpuMs() - c0;
      const { lookups, answers } = timeLookups(cfg, packetsOf[i], seconds);
      return { cpu, mb: image.buffer.byteLength / 2 ** 20, lookups, answers };
    });
    parentPort!.postMessage(out);
  });
  parentPort!.postMessage('ready');
}

/** The policy classifiers' first match of every packet, timed (CPU) over `seconds`; and a
 * digest of the answers. */
function timeLookups(cfg: import('../src/eval/compiled').CompiledConfig, pk: import('./packets').PacketSet, seconds: number): { lookups: number; answers: string } {
  const c4 = cfg.policyClassifier(4), c6 = cfg.policyClassifier(6);
  const { fam, sz, dz, words: w, key, sport, n } = pk;
  const out = new Int32Array(n);
  const pass = () => {
    for (let i = 0; i < n; i++) {
      const c = fam[i] === 4 ? c4 : c6;
      const o = i * 8;
      for (let k = 0; k < 8; k++) c.q[k] = w[o + k];
      c.q[8] = key[i];
      c.q[9] = sport[i];
      out[i] = c.first(sz[i], dz[i], 0);
    }
  };
  pass(); // warm-up
  let count = 0;
  const t0 = cpuMs();
  while (cpuMs() - t0 < seconds * 1000) {
    pass();
    count += n;
  }
  const lookups = (count / (cpuMs() - t0)) * 1000;
  return { lookups, answers: createHash('sha256').update(new Uint8Array(out.buffer)).digest('hex') };
}

function start(label: string, dist: string, seconds: number, params: object): BuildWorker<DocResult[]> {
  return startBuildWorker<DocResult[]>(__filename, label, { dist, seconds, params });
}

async function main(): Promise<void> {
  const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const rounds = Number(arg('--rounds') ?? 1);
  const seconds = Number(arg('--seconds') ?? 2);
  const against = arg('--against');
  // build parameters over the defaults (classifier.ts), for both builds
  const params = JSON.parse(arg('--params') ?? '{}') as object;
  const builds = [start('this build', path.resolve(__dirname, '..'), seconds, params)];
  if (against) builds.unshift(start(`against ${against}`, path.resolve(against), seconds, params));
  await Promise.all(builds.map((b) => b.ready));
  const results = builds.map(() => [] as DocResult[][]);
  const loads: number[] = [os.loadavg()[0]];
  const t0 = new Date();
  for (const b of builds) await b.round(); // warm-up (JIT), not counted
  for (let k = 0; k < rounds; k++) {
    const order = k % 2 ? [...builds.keys()].reverse() : [...builds.keys()];
    for (const i of order) {
      results[i].push(await builds[i].round());
      loads.push(os.loadavg()[0]);
      process.stderr.write(`round ${k + 1}/${rounds}: ${builds[i].label} done\n`);
    }
  }
  await Promise.all(builds.map((b) => b.stop()));
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(`\nCompile worker steps and policy lookups, ${rounds} round(s) after a warm-up, medians; CPU ms; ${t0.toISOString().slice(11, 16)}-${new Date().toISOString().slice(11, 16)} UTC`);
  console.log(`load average (1 min): ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}; ${os.cpus().length} cores, ${os.cpus()[0].model}, Node ${process.version}\n`);
  console.log('| configuration | build | specs ms | compile ms | analyze ms | total CPU ms | image MB | lookups/s |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  DOCS.forEach((label, d) => {
    builds.forEach((b, i) => {
      const m = (f: (r: DocResult) => number) => median(results[i].map((r) => f(r[d])));
      const cells = [...STEPS.map((s) => fmt(m((r) => r.cpu[s]))), m((r) => r.mb).toFixed(1), fmt(m((r) => r.lookups))];
      console.log(`| ${label} | ${b.label} | ${cells.join(' | ')} |`);
    });
  });
  if (builds.length > 1) {
    const same = DOCS.map((_, d) => results.flat().every((r) => r[d].answers === results[0][0][d].answers));
    console.log(`\nsame classifier answer for every packet in both builds: ${DOCS.map((l, d) => `${l} ${same[d] ? 'yes' : 'NO'}`).join(', ')}`);
  }
}

if (isMainThread) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  const wd = workerData as { dist: string; seconds: number; params: object };
  serve(wd.dist, wd.seconds, wd.params);
}
