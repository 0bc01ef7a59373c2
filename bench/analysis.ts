// The analysis part of `npm run bench:eval`: per rule set, the commit's quick pass (median of
// 3, CPU time) and the deep pass (CPU time, one run: it decides every policy), how many
// covered policies each decides, and the deep pass's other reports. The deep pass is the
// reference: "covered" is what it finds, and the quick pass is measured against it.
import type { ConfigDoc } from '../src/config/types';
import { analyze, type Analysis, type AnalysisStats } from '../src/eval/analysis';
import { CompiledConfig } from '../src/eval/compiled';

interface AnalysisRow {
  name: string;
  policies: number;
  covered: number; // by the deep pass
  quickDecided: number; // covered policies the quick pass reports
  quickUndecided: number;
  quickMs: number;
  deepMs: number;
  deepUndecided: number;
  partial: number;
  nat: number;
  complete: boolean;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function timed(run: () => Analysis): { a: Analysis; ms: number } {
  const t0 = cpuMs();
  const a = run();
  return { a, ms: cpuMs() - t0 };
}

function row(name: string, doc: ConfigDoc): AnalysisRow {
  const cfg = CompiledConfig.compile(doc);
  const quick: Array<{ a: Analysis; ms: number }> = [];
  const stats = {} as AnalysisStats;
  for (let k = 0; k < 3; k++) quick.push(timed(() => analyze(doc, cfg, { stats })));
  quick.sort((x, y) => x.ms - y.ms);
  const deep = timed(() => analyze(doc, cfg, { deep: true }));
  const ids = (a: Analysis) => new Set([...a.shadowed, ...a.redundant].map((c) => c.id));
  const want = ids(deep.a);
  const q = ids(quick[1].a);
  return {
    name,
    policies: doc.policies.length,
    covered: want.size,
    quickDecided: [...want].filter((id) => q.has(id)).length,
    quickUndecided: stats.undecided,
    quickMs: quick[1].ms,
    deepMs: deep.ms,
    deepUndecided: deep.a.undecided.length,
    partial: deep.a.partiallyShadowed.length,
    nat: deep.a.unreachableNat.length,
    complete: deep.a.complete,
  };
}

/** Runs and prints the analysis table for the rule sets. */
export function analysisBench(sets: ReadonlyArray<{ name: string; doc: () => ConfigDoc }>): void {
  const rows: AnalysisRow[] = [];
  for (const s of sets) {
    rows.push(row(s.name, s.doc()));
    process.stderr.write(`${s.name}: analysis done\n`);
  }
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log('');
  console.log('Analysis (CPU ms of this process; quick: median of 3; deep: one run, no budget):');
  console.log('');
  console.log('| rule set | policies | covered | quick decided / undecided | quick share | quick ms | deep ms | deep undecided | partially shadowed | NAT never matching | complete |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    const share = r.covered === 0 ? 100 : (100 * r.quickDecided) / r.covered;
    console.log(`| ${r.name} | ${fmt(r.policies)} | ${fmt(r.covered)} | ${fmt(r.quickDecided)} / ${fmt(r.quickUndecided)} | ${share.toFixed(0)}% | ${fmt(r.quickMs)} | ${fmt(r.deepMs)} | ${fmt(r.deepUndecided)} | ${fmt(r.partial)} | ${fmt(r.nat)} | ${r.complete ? 'yes' : 'no'} |`);
  }
}
