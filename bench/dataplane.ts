// What the Linux data plane adds to a commit, on generated zone-based configurations of
// growing size: rendering the plan (pure), `nft -c` and `nft -f` of the script in a scratch
// network namespace, against the baseline every commit already pays in the same run:
// compiling the configuration's matchers (src/eval). Medians of 3 interleaved rounds. Needs
// root (it creates and deletes one namespace of its own).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { compileImage } from '../src/eval/compile';
import { renderPlan } from '../src/dataplane/plan';
import { generateConfig, REALISTIC } from './generate';

const SIZES = [1000, 5000, 20000];
const ROUNDS = 3;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

function main(): void {
  const ns = `fwd-bench-${process.pid}-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', ns]);
  try {
    const nft = (args: string[], input: string) => execFileSync('ip', ['netns', 'exec', ns, 'nft', ...args], { input });
    console.log('| policies | rules in script | script KiB | compile ms (baseline) | render ms | nft -c ms | nft -f ms | render+nft -f / compile |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const policies of SIZES) {
      const doc = generateConfig({ ...REALISTIC, policies, addresses: Math.min(REALISTIC.addresses, policies) });
      const t = { compile: [] as number[], render: [] as number[], check: [] as number[], apply: [] as number[] };
      let script = '';
      for (let round = 0; round < ROUNDS; round++) {
        t.compile.push(timed(() => compileImage(doc)));
        t.render.push(timed(() => { script = renderPlan(doc).nft; }));
        t.check.push(timed(() => nft(['-c', '-f', '-'], script)));
        t.apply.push(timed(() => nft(['-f', '-'], script)));
      }
      const rules = script.split('\n').filter((l) => /(accept|drop|return|dnat|snat|masquerade)( comment .*)?$/.test(l.trim())).length;
      const [c, r, k, a] = [median(t.compile), median(t.render), median(t.check), median(t.apply)];
      console.log(`| ${policies} | ${rules} | ${(script.length / 1024).toFixed(0)} | ${c.toFixed(0)} | ${r.toFixed(0)} | ${k.toFixed(0)} | ${a.toFixed(0)} | ${((r + a) / c).toFixed(2)} |`);
    }
  } finally {
    execFileSync('ip', ['netns', 'delete', ns]);
  }
}

main();
