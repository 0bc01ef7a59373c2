// `node dist/bench/profile-top.js FILE.cpuprofile [--top N] [--inclusive NAME,NAME]`: the
// functions of a V8 CPU profile (node --cpu-prof) by self time, and the inclusive time of the
// functions named (every frame under one of them counted once), in ms. What docs/performance.md's
// "top functions" lists are made with (issue 44).
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

export function summarize(p: Profile, top: number, inclusive: string[]): string[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const self = new Map<string, number>();
  const incl = new Map<string, number>(inclusive.map((n) => [n, 0]));
  let total = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    total += us;
    self.set(label(n), (self.get(label(n)) ?? 0) + us);
    // every named function on the stack, once
    const seen = new Set<string>();
    for (let k: number | undefined = id; k !== undefined; k = parent.get(k)) {
      const f = byId.get(k)!.callFrame.functionName;
      if (incl.has(f) && !seen.has(f)) {
        seen.add(f);
        incl.set(f, incl.get(f)! + us);
      }
    }
  }
  const ms = (us: number) => (us / 1000).toFixed(0);
  const out = [`total ${ms(total)} ms sampled (wall ${ms(p.endTime - p.startTime)} ms)`];
  for (const [f, us] of [...self].filter(([f]) => !f.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`  self ${ms(us).padStart(7)} ms  ${f}`);
  for (const [f, us] of incl) out.push(`  inclusive ${ms(us).padStart(7)} ms  ${f}`);
  return out;
}

if (require.main === module) {
  const file = process.argv[2];
  const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const top = Number(arg('--top') ?? 25);
  const inclusive = (arg('--inclusive') ?? '').split(',').filter(Boolean);
  const files = fs.statSync(file).isDirectory() ? fs.readdirSync(file).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(file, f)) : [file];
  for (const f of files) {
    console.log(`\n${f}`);
    for (const line of summarize(JSON.parse(fs.readFileSync(f, 'utf8')) as Profile, top, inclusive)) console.log(line);
  }
}
