// The analysis of generated configurations of the realistic shape (bench/generate.ts), pinned
// to what main's code (194a195) answered: the commit-speed work (candidate index, number
// paths, scratch arrays) must change no answer. The tiny-universe tests in analysis.test.ts
// prove the method exact; these catch a faster path that answers differently on a real-sized
// table (which candidates, in which order, how much work each decision spends: a small
// budget leaves policies undecided, so the work counted must not move either).
import { createHash } from 'node:crypto';
import { generateConfig, REALISTIC } from '../../bench/generate';
import { analyze, type AnalysisStats } from '../../src/eval/analysis';
import { CompiledConfig } from '../../src/eval/compiled';

const sha = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex');

describe('analysis of generated configurations = main before the commit-speed work', () => {
  const doc4k = generateConfig({ ...REALISTIC, policies: 4000, addresses: 1000 });
  const cfg4k = CompiledConfig.compile(doc4k);

  test.each([
    // budget, shadowed, redundant, undecided, sha256 of the analysis
    [undefined, 66, 122, 0, '5fff5f531613e4a856583a850a681aadb05662073b25cb8cd78e486b28041ef5'],
    [10_000, 65, 122, 1, 'a58d685f4a727ab7635ec042179192f1ecd113401c2e93847f1fd25c35a150e4'],
    [3_000, 65, 119, 4, '8b4ce719e1c05ffc9fbb21287d5a43c87b524d5d95f8b86eb6763cf1c17847d2'],
  ])('quick pass, 4,000 policies, budget %p', (budget, shadowed, redundant, undecided, hash) => {
    const stats = {} as AnalysisStats;
    const a = analyze(doc4k, cfg4k, { stats, budget });
    expect([a.shadowed.length, a.redundant.length, a.undecided.length]).toEqual([shadowed, redundant, undecided]);
    expect(stats).toMatchObject({ reached: 3212, painted: 188 - undecided });
    expect(sha(a)).toBe(hash);
  });

  test('deep pass, 1,500 policies: partial shadows with their example packets, NAT rules', () => {
    const doc = generateConfig({ ...REALISTIC, policies: 1500, addresses: 1000 });
    const stats = {} as AnalysisStats;
    const a = analyze(doc, CompiledConfig.compile(doc), { stats, deep: true });
    expect([a.shadowed.length, a.redundant.length, a.partiallyShadowed.length, a.unreachableNat.length, a.complete]).toEqual([12, 18, 50, 9, true]);
    expect(sha([a, stats])).toBe('9dd8633255243f15fd61cba35aec662306b47d5127be31b5f60f133fcd173213');
  });
});
