// `node dist/bench/analysis-scale.js [--policies 100000] [--deep]`: issue 30's analysis at
// scale, in this thread: the whole analysis of the random rule base (bench/scale-config.ts),
// then after one policy's action flipped and after one address moved, the incremental
// analysis (from the memo of the one before) against the whole analysis of the same document,
// with whether both answered the same. Quick pass by default, --deep for the deep pass (no
// budget, no deadline). CPU ms of this process beside the wall ms.
import os from 'node:os';
import { workingCopy } from '../src/config/document';
import type { ConfigDoc } from '../src/config/types';
import { analyze, type AnalysisStats } from '../src/eval/analysis';
import type { AnalysisMemo } from '../src/eval/analysis-memo';
import { CompiledConfig } from '../src/eval/compiled';
import { fmt } from './http-load';
import { scaleCidr, scaleConfig } from './scale-config';

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const policies = Number(arg('--policies') ?? 100_000);
const deep = process.argv.includes('--deep');

function timed<T>(f: () => T): { v: T; wall: number; cpu: number } {
  const c0 = process.cpuUsage(), t0 = performance.now();
  const v = f();
  const c = process.cpuUsage(c0);
  return { v, wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}

const doc0 = scaleConfig({ policies });
const flip = (d: ConfigDoc) => {
  const x = workingCopy(d);
  const k = Math.floor(d.policies.length / 2);
  x.policies = [...d.policies];
  x.policies[k] = { ...x.policies[k], action: x.policies[k].action === 'allow' ? 'deny' : 'allow' };
  return x;
};
const move = (d: ConfigDoc) => {
  const x = workingCopy(d);
  x.addresses.set('a7', { name: 'a7', ips: [scaleCidr(Number(d.addresses.get('a7')!.ips[0].split('.')[1]), 28, 77, 0)] });
  return x;
};
const rows: string[] = [];
const memo: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: null };
let doc = doc0;
const load0 = os.loadavg()[0];
for (const [label, change] of [['whole rule base', null], ['one policy\'s action flipped', flip], ['one address moved', move]] as const) {
  if (change) doc = change(doc);
  const cfg = CompiledConfig.compile(doc);
  const whole = timed(() => analyze(doc, cfg, { deep }));
  const stats = {} as AnalysisStats;
  const slot = { previous: memo.next ?? null } as typeof memo;
  const inc = timed(() => analyze(doc, cfg, { deep, memo: slot, stats }));
  memo.next = slot.next;
  const same = JSON.stringify(whole.v) === JSON.stringify(inc.v);
  rows.push(`| ${label} | ${fmt(whole.wall)} / ${fmt(whole.cpu)} | ${change ? `${fmt(inc.wall)} / ${fmt(inc.cpu)}` : '(no memo)'} | ${inc.v.shadowed.length} / ${inc.v.redundant.length} / ${inc.v.partiallyShadowed.length} | ${same ? 'yes' : 'NO'} |`);
  process.stderr.write(`${rows[rows.length - 1]}\n`);
}
console.log(`\n${deep ? 'Deep' : 'Quick'} analysis of ${fmt(policies)} random policies (bench/scale-config.ts), whole and incremental; wall ms / CPU ms; load average ${load0.toFixed(1)}-${os.loadavg()[0].toFixed(1)}, ${os.cpus().length} cores, Node ${process.version}\n`);
console.log('| document | whole analysis | incremental (memo of the row before) | shadowed / redundant / partially shadowed | same answer |');
console.log('|---|---:|---:|---:|---|');
for (const r of rows) console.log(r);
