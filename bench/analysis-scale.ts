// `node dist/bench/analysis-scale.js [--policies 100000] [--deep] [--changes 3] [--against DIST]`:
// issue 30's analysis at scale, in this thread: the whole analysis of the random rule base
// (bench/scale-config.ts), then, --changes times each, after one policy's action flipped,
// after one address moved and after one policy added before the last, the incremental analysis (from the memo of the one before) against
// the whole analysis of the same document, with whether both answered the same. The policies'
// specs are built beforehand and handed over, as the compile worker does (the analysis's own
// share of a commit). Quick pass by default, --deep for the deep pass (no budget, no deadline).
// With --against DIST (another build's dist directory, e.g. main's) that build's analysis
// runs on the same documents right after this build's, each with its own memo, and its answers
// are compared with this build's. CPU ms of this process beside the wall ms; the change rows
// show the median over the --changes documents.
import os from 'node:os';
import path from 'node:path';
import { workingCopy } from '../src/config/document';
import type { ConfigDoc } from '../src/config/types';
import type { AnalysisMemo } from '../src/eval/analysis-memo';
import { fmt } from './http-load';
import { scaleCidr, scaleConfig } from './scale-config';
import { median } from './stats';

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const policies = Number(arg('--policies') ?? 100_000);
const deep = process.argv.includes('--deep');
const changes = Number(arg('--changes') ?? 3);
const against = arg('--against');

interface Build {
  label: string;
  analysis: typeof import('../src/eval/analysis');
  compile: typeof import('../src/eval/compile');
  compiled: typeof import('../src/eval/compiled');
  memo: AnalysisMemo | null;
}

/* eslint-disable @typescript-eslint/no-require-imports */
const load = (label: string, dist: string): Build => ({
  label,
  analysis: require(path.join(dist, 'src/eval/analysis.js')) as typeof import('../src/eval/analysis'),
  compile: require(path.join(dist, 'src/eval/compile.js')) as typeof import('../src/eval/compile'),
  compiled: require(path.join(dist, 'src/eval/compiled.js')) as typeof import('../src/eval/compiled'),
  memo: null,
});
const builds = [load('this build', path.resolve(__dirname, '..')), ...(against ? [load(`against ${against}`, path.resolve(against))] : [])];

function timed<T>(f: () => T): { v: T; wall: number; cpu: number } {
  const c0 = process.cpuUsage(), t0 = performance.now();
  const v = f();
  const c = process.cpuUsage(c0);
  return { v, wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}

const flip = (d: ConfigDoc, round: number) => {
  const x = workingCopy(d);
  const k = Math.floor(d.policies.length / 2) + round * 7919;
  x.policies = [...d.policies];
  x.policies[k] = { ...x.policies[k], action: x.policies[k].action === 'allow' ? 'deny' : 'allow' };
  return x;
};
const move = (d: ConfigDoc, round: number) => {
  const x = workingCopy(d);
  const name = `a${7 + round}`;
  x.addresses.set(name, { name, ips: [scaleCidr(Number(d.addresses.get(name)!.ips[0].split('.')[1]), 28, 77 + round, 0)] });
  return x;
};

interface Cell { whole: number[]; wholeCpu: number[]; inc: number[]; incCpu: number[]; same: boolean; counts: string }
const rows = new Map<string, Cell[]>();
let doc = scaleConfig({ policies });
const load0 = os.loadavg()[0];
/** a copy of a policy with a new id, inserted before the last policy (the usual place of a new rule) */
const add = (d: ConfigDoc, round: number) => {
  const x = workingCopy(d);
  x.policies = [...d.policies];
  x.policies.splice(x.policies.length - 1, 0, { ...d.policies[round * 104_729 % d.policies.length], id: ++x.counters.policy });
  return x;
};
const steps: Array<[string, ((d: ConfigDoc, round: number) => ConfigDoc) | null]> = [['whole rule base', null]];
for (let r = 0; r < changes; r++) steps.push(['one policy\'s action flipped', flip], ['one address moved', move], ['one policy added before the last', add]);
let round = 0;
for (const [label, change] of steps) {
  if (change) doc = change(doc, Math.floor(round++ / 3));
  const answers: string[] = [];
  const cells = rows.get(label) ?? builds.map(() => ({ whole: [], wholeCpu: [], inc: [], incCpu: [], same: true, counts: '' }));
  rows.set(label, cells);
  builds.forEach((b, k) => {
    const specs = b.compile.policySpecs(doc);
    const cfg = b.compiled.CompiledConfig.compile(doc, { specs });
    const whole = timed(() => b.analysis.analyze(doc, cfg, { deep, specs }));
    const slot: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: b.memo };
    const inc = timed(() => b.analysis.analyze(doc, cfg, { deep, specs, memo: slot }));
    b.memo = slot.next ?? b.memo;
    const c = cells[k];
    c.whole.push(whole.wall);
    c.wholeCpu.push(whole.cpu);
    if (change) {
      c.inc.push(inc.wall);
      c.incCpu.push(inc.cpu);
    }
    const text = JSON.stringify(inc.v);
    c.same &&= JSON.stringify(whole.v) === text;
    answers.push(text);
    c.counts = `${inc.v.shadowed.length} / ${inc.v.redundant.length} / ${inc.v.partiallyShadowed.length}`;
    process.stderr.write(`${label}, ${b.label}: whole ${fmt(whole.cpu)} cpu ms, incremental ${fmt(inc.cpu)}\n`);
  });
  // every build's answer is this build's
  if (answers.some((a) => a !== answers[0])) for (const c of cells) c.same = false;
}
console.log(`\n${deep ? 'Deep' : 'Quick'} analysis of ${fmt(policies)} random policies (bench/scale-config.ts), whole and incremental (specs built beforehand, as the compile worker does); wall ms / CPU ms, changes: median of ${changes}; load average ${load0.toFixed(1)}-${os.loadavg()[0].toFixed(1)}, ${os.cpus().length} cores, Node ${process.version}\n`);
console.log('| document | build | whole analysis | incremental (memo of the document before) | shadowed / redundant / partially shadowed | same answer (whole, incremental, every build) |');
console.log('|---|---|---:|---:|---:|---|');
for (const [label, cells] of rows) {
  cells.forEach((c, k) => {
    const inc = c.inc.length ? `${fmt(median(c.inc))} / ${fmt(median(c.incCpu))}` : '(no memo)';
    console.log(`| ${label} | ${builds[k].label} | ${fmt(median(c.whole))} / ${fmt(median(c.wholeCpu))} | ${inc} | ${c.counts} | ${c.same ? 'yes' : 'NO'} |`);
  });
}
