// The compile's cost of rules over several zones (issue 41): the generated configuration of
// 20,000 policies (one zone a side), then with a share of its policies over two or three
// source zones. Each compile (compileImage, this thread) is timed three times; the median.
// Run: node dist/bench/zone-lists.js [share...] (default 0 0.1 0.5)
import { compileImage, policySpecs } from '../src/eval/compile';
import { firstZone } from '../src/config/zone-list';
import type { ConfigDoc } from '../src/config/types';
import { generateConfig, REALISTIC, rng } from './generate';

function withLists(base: ConfigDoc, share: number): ConfigDoc {
  const r = rng(11);
  const zones = [...base.zones.keys()];
  const policies = base.policies.map((p) => {
    const z = firstZone(p.srcZone);
    if (z === '' || r() >= share) return p;
    const more = zones.filter((x) => x !== z).sort(() => r() - 0.5).slice(0, 1 + Math.floor(r() * 2));
    return { ...p, srcZone: [z, ...more] };
  });
  return { ...base, policies };
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

const base = generateConfig(REALISTIC);
const shares = process.argv.slice(2).map(Number);
for (const share of shares.length ? shares : [0, 0.1, 0.5]) {
  const doc = withLists(base, share);
  const ms: number[] = [];
  let rows = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const image = compileImage(doc, { specs: policySpecs(doc) });
    ms.push(performance.now() - t0);
    rows = image.buffer.byteLength;
  }
  console.log(`share ${share}: compile ${median(ms).toFixed(0)} ms (runs ${ms.map((x) => x.toFixed(0)).join(', ')}), image ${(rows / 1e6).toFixed(1)} MB`);
}
