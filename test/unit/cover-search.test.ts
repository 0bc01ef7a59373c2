// The cover search's ordering of candidates counts against the work budget (issue 44): with a
// budget smaller than the sort of the candidates, the question ends over budget before any
// painting, where it used to sort them all first, outside any budget.
import { unionCover, sortUnits } from '../../src/eval/cover-search';
import type { Region } from '../../src/eval/coverage';
import { OverBudget, Work } from '../../src/eval/work';

const region = (lo: bigint, hi: bigint): Region => ({ zs: 2n, zd: 2n, s: [[lo, hi]], d: [[0n, 0xffffffffn]], v: [[0n, 65535n]] });

/** n narrow rules inside R (none covers it), so the search must order and paint them. */
function narrowRules(n: number): Region[] {
  return Array.from({ length: n }, (_, i) => region(BigInt(i * 4), BigInt(i * 4 + 1)));
}

test('ordering 20,000 candidates is charged to the budget, also when a few rules paint the answer', () => {
  // one wide rule among 20,000 narrow ones covers R: the largest rules are painted first, so
  // painting is cheap, and the sort is most of the question's work
  const C = narrowRules(20_000);
  C.splice(10_000, 0, region(0n, 200_000n));
  const R = region(0n, 100_000n);
  const work = new Work(1e9);
  expect(unionCover(R, C, work)).toMatchObject({ covered: true, cover: [10_000] });
  expect(1e9 - work.left).toBeGreaterThanOrEqual(sortUnits(C.length));
  expect(() => unionCover(R, C, new Work(sortUnits(C.length) - 1))).toThrow(OverBudget);
});

test('with enough budget the answer is the same as before: not covered, a point outside every rule', () => {
  const C = narrowRules(2_000);
  const R = region(0n, 8_000n);
  const work = new Work(Infinity);
  const answer = unionCover(R, C, work);
  expect(answer.covered).toBe(false);
  expect(answer.uncovered).not.toBeNull();
  const s = answer.uncovered!.s;
  expect(C.some((c) => c.s[0][0] <= s && s <= c.s[0][1])).toBe(false);
});

test('a union of adjacent rules that tiles R is a cover, naming only rules that add something', () => {
  const C = [region(0n, 9n), region(10n, 19n), region(5n, 6n), region(20n, 29n)];
  const answer = unionCover(region(0n, 29n), C, new Work(Infinity));
  expect(answer).toEqual({ covered: true, cover: [0, 1, 3], uncovered: null });
});
