// RuleSpace.candidates finds the earlier rules that may meet a rule through an index
// (earlier-index.ts). Its answer must be exactly the one of the definition, a scan over every
// earlier rule: the same rules in the same order, ending at the first that holds the rule
// whole (the painting of the analysis depends on both). A space made from another by edits
// (the incremental analysis) answers as one made whole, and leaves the other as it was.
import fc from 'fast-check';
import type { Family } from '../../src/config/net';
import { covers, type Region } from '../../src/eval/coverage';
import { hullOf, regionMaker, regionOf, RuleSpace, type RuleRegions } from '../../src/eval/rule-space';
import { ANY_ZONE, NEVER, type RuleSpec } from '../../src/eval/rules';
import type { Interval } from '../../src/eval/sets';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const ZONES = 3;

/** The hull of a region's field as the index compares it (IPv6 by its top 64 bits, rounded). */
function hull(f: Family, iv: Interval[], addr: boolean): [number, number] {
  const top = (x: bigint) => (addr && f === 6 ? Number(x >> 64n) : Number(x));
  return [top(iv[0][0]), top(iv[iv.length - 1][1])];
}

function hullsOf(f: Family, R: Region): Array<[number, number]> {
  return [hull(f, R.s, true), hull(f, R.d, true), hull(f, R.v, false)];
}

/** The definition: every earlier rule in order, kept when it has a space of family f, `use`
 * takes it, its hull meets rule i's and it shares a source and a destination zone; the first
 * kept one whose hull and space hold rule i's ends the list. */
function scan(rules: RuleRegions[], i: number, f: Family, use: (j: number) => boolean): number[] {
  const R = regionOf(rules[i], f)!;
  const hi = hullsOf(f, R);
  const ids: number[] = [];
  for (let j = 0; j < i; j++) {
    const o = regionOf(rules[j], f);
    if (!o || !use(j) || !(o.zs & R.zs) || !(o.zd & R.zd)) continue;
    const hj = hullsOf(f, o);
    if (!hi.every(([a, b], k) => a <= hj[k][1] && hj[k][0] <= b)) continue;
    ids.push(j);
    if (hi.every(([a, b], k) => hj[k][0] <= a && b <= hj[k][1]) && covers(o, R)) break;
  }
  return ids;
}

/** Sorted, disjoint, non-adjacent intervals from a list of points (pairs of them). */
const intervals = (points: bigint[]): Interval[] => {
  const s = [...new Set(points)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Interval[] = [];
  for (let k = 0; k + 1 < s.length; k += 2) if (!out.length || s[k] > out[out.length - 1][1] + 1n) out.push([s[k], s[k + 1]]);
  return out;
};

// small universes, so that hulls often meet and spaces often hold one another; IPv6 values
// spread over the top 64 bits and below them, where the rounding of the hulls matters
const v4Arb = fc.array(fc.bigInt({ min: 0n, max: 63n }), { minLength: 0, maxLength: 6 }).map(intervals);
const v6Arb = fc.array(fc.oneof(fc.bigInt({ min: 0n, max: 7n }).map((x) => x << 120n), fc.bigInt({ min: 0n, max: 2n ** 70n })), { minLength: 0, maxLength: 6 }).map(intervals);
const svcArb = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 2, maxLength: 6 }).map((p) => intervals(p.map(BigInt)).map(([a, b]): [number, number] => [Number(a), Number(b)]));
const zoneArb = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: ZONES }) }, { weight: 1, arbitrary: fc.constant(ANY_ZONE) }, { weight: 1, arbitrary: fc.constant(NEVER) });
const specArb: fc.Arbitrary<RuleSpec> = fc.record({
  sz: zoneArb,
  dz: zoneArb,
  src: fc.record({ v4: v4Arb, v6: v6Arb }),
  dst: fc.record({ v4: v4Arb, v6: v6Arb }),
  svc: svcArb,
  families: fc.integer({ min: 0, max: 3 }),
}).map((r) => ({ ...r, srcKey: '', dstKey: '', svcKey: '' }));

describe('RuleSpace.candidates', () => {
  test('= the scan over every earlier rule, on random rule sets (same rules, same order)', () => {
    fc.assert(
      fc.property(fc.array(specArb, { minLength: 1, maxLength: 60 }), fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }), (specs, used) => {
        const rules = specs.map(regionMaker(ZONES));
        const space = new RuleSpace(rules);
        for (const use of [() => true, (j: number) => used[j]]) {
          for (let i = 0; i < rules.length; i++) {
            for (const f of [4, 6] as const) {
              if (!regionOf(rules[i], f)) continue;
              const got = space.candidates(i, f, use);
              expect(got.ids).toEqual(scan(rules, i, f, use));
              expect(got.C).toEqual(got.ids.map((j) => regionOf(rules[j], f)));
            }
          }
        }
      }),
      { numRuns: 300, seed },
    );
  });

  test('a rule held whole by an earlier one ends the list there; rules of other zones are left out', () => {
    const spec = (sz: number, dz: number, lo: bigint, hi: bigint): RuleSpec => ({
      sz, dz, src: { v4: [[lo, hi]], v6: [] }, dst: { v4: [[0n, 255n]], v6: [] }, svc: [[0, 10]], srcKey: '', dstKey: '', svcKey: '', families: 1,
    });
    const rules = [
      spec(1, 2, 0n, 10n), // meets rule 4
      spec(2, 2, 0n, 255n), // another source zone
      spec(ANY_ZONE, 2, 5n, 200n), // holds rule 4
      spec(1, ANY_ZONE, 0n, 255n), // after the one that holds it
      spec(1, 2, 6n, 100n),
    ].map(regionMaker(ZONES));
    const space = new RuleSpace(rules);
    expect(space.candidates(4, 4).ids).toEqual([0, 2]);
    expect(space.candidates(4, 4, (j) => j !== 2).ids).toEqual([0, 3]);
  });
});

/** Every rule's candidates, both families, as the definition gives them. */
function expectCandidates(space: RuleSpace, rules: RuleRegions[]): void {
  for (let i = 0; i < rules.length; i++) {
    for (const f of [4, 6] as const) {
      if (regionOf(rules[i], f)) expect(space.candidates(i, f).ids).toEqual(scan(rules, i, f, () => true));
    }
  }
}

/** The later rules rule `at`'s space reaches, as the incremental analysis marks them. */
function expectMarks(space: RuleSpace, rules: RuleRegions[], at: number): void {
  for (const f of [4, 6] as const) {
    const R = regionOf(rules[at], f);
    if (!R) continue;
    const mark = new Uint8Array(rules.length);
    space.markLater(at, rules[at].sz, rules[at].dz, f, hullOf(f, R), mark);
    const zoneMeets = (a: number, b: number) => a === ANY_ZONE || b === ANY_ZONE || a === b;
    const want = rules.map((r, j) => {
      const o = regionOf(r, f);
      return j > at && o !== null && zoneMeets(r.sz, rules[at].sz) && zoneMeets(r.dz, rules[at].dz) &&
        hullsOf(f, o).every(([a, b], k) => a <= hullsOf(f, R)[k][1] && hullsOf(f, R)[k][0] <= b) ? 1 : 0;
    });
    expect([...mark]).toEqual(want);
  }
}

describe('a space made from another (the incremental analysis, issue 30)', () => {
  test('shrunk, then grown again from the shrunk one: the rows that went are in no list', () => {
    const spec = (sz: number, dz: number): RuleSpec => ({
      sz, dz, src: { v4: [[0n, 255n]], v6: [] }, dst: { v4: [[0n, 255n]], v6: [] }, svc: [[0, 10]], srcKey: '', dstKey: '', svcKey: '', families: 1,
    });
    const make = regionMaker(ZONES);
    const [a, b, c, d, e, f] = [spec(1, 2), spec(1, 2), spec(1, 2), spec(2, 1), spec(2, 1), spec(1, 2)].map(make);
    const s0 = new RuleSpace([a, b, c]);
    const s1 = new RuleSpace([a], { space: s0, changed: [] });
    const grown = [a, d, e, f];
    const s2 = new RuleSpace(grown, { space: s1, changed: [1, 2, 3] });
    expectCandidates(s2, grown);
    expectMarks(s2, grown, 0); // rule 0 reaches rule 3, not rules 1 and 2 (other zones)
  });

  test('after random edits, inserts and deletes, from the last space or any earlier one: the candidates and later rules of a space made whole; the spaces it was made from unchanged', () => {
    // a rule replaced (0), inserted (1) or deleted (2): the rules after an insert or a delete
    // shift, as after a policy added, deleted or moved
    const editArb = fc.array(fc.tuple(fc.nat(2), fc.nat(), specArb), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(specArb, { minLength: 1, maxLength: 40 }), fc.array(fc.tuple(fc.nat(), editArb), { minLength: 1, maxLength: 5 }), fc.nat(), (specs, edits, sourceAt) => {
        const make = regionMaker(ZONES);
        const chain: Array<{ rules: RuleRegions[]; space: RuleSpace }> = [{ rules: specs.map(make), space: new RuleSpace(specs.map(make)) }];
        for (const [from, edit] of edits) {
          const base = chain[from % chain.length];
          const rules = base.rules.slice();
          for (const [kind, at, spec] of edit) {
            if (kind === 0 && rules.length) rules[at % rules.length] = make(spec);
            else if (kind === 1 || rules.length === 1) rules.splice(at % (rules.length + 1), 0, make(spec));
            else rules.splice(at % rules.length, 1);
          }
          // the positions whose rule is not the base's rule there, as the analysis finds them
          const changed = rules.map((r, j) => j).filter((j) => rules[j] !== base.rules[j]);
          const space = new RuleSpace(rules, { space: base.space, changed });
          expectCandidates(space, rules);
          expectMarks(space, rules, sourceAt % rules.length);
          chain.push({ rules, space });
        }
        for (const { rules, space } of chain) expectCandidates(space, rules);
      }),
      { numRuns: 200, seed },
    );
  });
});
