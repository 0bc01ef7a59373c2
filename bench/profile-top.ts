// `node dist/bench/profile-top.js FILE.cpuprofile [--top N] [--inclusive NAME,NAME]`: the
// functions of a V8 CPU profile (node --cpu-prof) by self time, and the inclusive time of the
// functions named (every frame under one of them counted once), in ms. What docs/performance.md's
// "top functions" lists are made with (issue 44).
// `--blocks MS`: instead, every stretch of at least MS ms in which the thread never went idle
// and the task at the bottom of the stack (its two outermost frames) stayed the same: a task
// that held the event loop, delaying every other request. Consecutive tasks of one kind (the
// slices of a sliced load, each an immediate) count as one: read the heaviest frames, listed
// inclusive (each counted once a sample), to tell a slice run from one long step.
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

/** The stretches of at least `minMs` without an idle sample, each with its heaviest frames. */
export function blocks(p: Profile, minMs: number, top = 8): string[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idle = (id: number) => byId.get(id)!.callFrame.functionName === '(idle)';
  /** the two outermost frames under the root: which task the sample belongs to */
  const task = (id: number) => {
    const chain: string[] = [];
    for (let k: number | undefined = id; k !== undefined; k = parent.get(k)) chain.push(label(byId.get(k)!));
    return chain.slice(-3, -1).join('<');
  };
  let current = '';
  const out: string[] = [];
  let t = p.startTime;
  let start = -1;
  let from = 0;
  const close = (i: number, end: number) => {
    if (start < 0) return;
    const ms = (end - start) / 1000;
    if (ms >= minMs) {
      const frames = new Map<string, number>();
      for (let j = from; j < i; j++) {
        const seen = new Set<string>();
        for (let k: number | undefined = p.samples[j]; k !== undefined; k = parent.get(k)) {
          const n = byId.get(k)!;
          if (!n.callFrame.functionName || n.callFrame.functionName === '(root)') continue;
          const l = label(n);
          if (seen.has(l)) continue;
          seen.add(l);
          frames.set(l, (frames.get(l) ?? 0) + (p.timeDeltas[j + 1] ?? 0));
        }
      }
      const heavy = [...frames].sort((a, b) => b[1] - a[1]).slice(0, top).map(([f, us]) => `${f} ${(us / 1000).toFixed(0)}`);
      out.push(`at ${((start - p.startTime) / 1e6).toFixed(2)} s: ${ms.toFixed(0)} ms busy: ${heavy.join(' | ')}`);
    }
    start = -1;
  };
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (idle(id)) { close(i, t); return; }
    const k = task(id);
    if (start >= 0 && k !== current && !k.startsWith('(garbage collector)') && !k.startsWith('(program)')) close(i, t);
    if (start < 0) { start = t; from = i; current = k; }
  });
  close(p.samples.length, t);
  return out;
}

if (require.main === module) {
  const file = process.argv[2];
  const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const top = Number(arg('--top') ?? 25);
  const inclusive = (arg('--inclusive') ?? '').split(',').filter(Boolean);
  const minBlock = arg('--blocks');
  const files = fs.statSync(file).isDirectory() ? fs.readdirSync(file).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(file, f)) : [file];
  for (const f of files) {
    console.log(`\n${f}`);
    const prof = JSON.parse(fs.readFileSync(f, 'utf8')) as Profile;
    for (const line of minBlock ? blocks(prof, Number(minBlock), top) : summarize(prof, top, inclusive)) console.log(line);
  }
}
