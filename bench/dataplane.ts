// What the Linux data plane adds to a commit, on generated zone-based configurations of
// growing size: rendering the plan (pure), `nft -c` and `nft -f` of the script in a scratch
// network namespace, against the baseline every commit already pays in the same run:
// compiling the configuration's matchers (src/eval). Medians of 3 interleaved rounds. Needs
// root (it creates and deletes one namespace of its own).
// Then the incremental commits (issue 30) against the whole table in the same run: the table
// of version 1 loaded whole, then version 2 with one policy's action changed, or one address
// object's networks changed: the difference (nft-table.ts tableUpdate) rendered, checked and
// applied, its commands counted, against `nft -f` of version 2's whole script.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { compileImage } from '../src/eval/compile';
import { renderPlan } from '../src/dataplane/plan';
import { renderNftTable } from '../src/dataplane/nft';
import { tableScript, tableUpdate } from '../src/dataplane/nft-table';
import { cloneDoc } from '../src/config/document';
import type { ConfigDoc } from '../src/config/types';
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
      const rules = script.split('\n').filter((l) => /(accept|drop|return|dnat|snat|masquerade|goto stamp)( comment .*)?$/.test(l.trim())).length;
      const [c, r, k, a] = [median(t.compile), median(t.render), median(t.check), median(t.apply)];
      console.log(`| ${policies} | ${rules} | ${(script.length / 1024).toFixed(0)} | ${c.toFixed(0)} | ${r.toFixed(0)} | ${k.toFixed(0)} | ${a.toFixed(0)} | ${((r + a) / c).toFixed(2)} |`);
    }
    incremental(nft);
  } finally {
    execFileSync('ip', ['netns', 'delete', ns]);
  }
}

/** One policy's action, or one address object's first network moved to a neighbour. */
const CHANGES: Array<[string, (doc: ConfigDoc) => void]> = [
  ['one policy', (doc) => {
    const p = doc.policies[doc.policies.length >> 1];
    p.action = p.action === 'allow' ? 'deny' : 'allow';
  }],
  ['one address', (doc) => {
    const a = doc.addresses.get(doc.policies.find((p) => p.dstAddr && doc.addresses.get(p.dstAddr)!.ips[0].includes('.'))!.dstAddr)!;
    const [ip, len] = a.ips[0].split('/');
    const o = ip.split('.').map(Number);
    a.ips = [`${o[0]}.${o[1]}.${o[2]}.${(o[3] + 64) % 256}/${len}`, ...a.ips.slice(1)];
  }],
];

function incremental(nft: (args: string[], input: string) => Buffer): void {
  console.log('\nIncremental commits: the difference from the table the kernel holds, against the whole table, in the same run\n');
  console.log('| policies | change | commands (whole script lines) | diff ms | nft -c ms | nft -f ms | whole nft -f ms | whole / incremental (nft -f) |');
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const policies of SIZES) {
    const doc = generateConfig({ ...REALISTIC, policies, addresses: Math.min(REALISTIC.addresses, policies) });
    for (const [what, change] of CHANGES) {
      const t = { diff: [] as number[], check: [] as number[], apply: [] as number[], whole: [] as number[] };
      let ops = 0;
      let lines = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const before = renderNftTable(doc, { version: 1 });
        const next = cloneDoc(doc);
        change(next);
        const after = renderNftTable(next, { version: 2 });
        const whole = tableScript(after);
        lines = whole.split('\n').length;
        nft(['-f', '-'], tableScript(before));
        let update = tableUpdate(before, after);
        t.diff.push(timed(() => { update = tableUpdate(before, after); }));
        if (!update) throw new Error(`${what} at ${policies}: the difference is too large for an incremental commit`);
        ops = update.operations;
        t.check.push(timed(() => nft(['-c', '-f', '-'], update!.script)));
        t.apply.push(timed(() => nft(['-f', '-'], update!.script)));
        nft(['-f', '-'], tableScript(before));
        t.whole.push(timed(() => nft(['-f', '-'], whole)));
      }
      const [d, k, a, w] = [median(t.diff), median(t.check), median(t.apply), median(t.whole)];
      console.log(`| ${policies} | ${what} | ${ops} (${lines}) | ${d.toFixed(0)} | ${k.toFixed(0)} | ${a.toFixed(0)} | ${w.toFixed(0)} | ${(w / a).toFixed(1)} |`);
    }
  }
}

main();
