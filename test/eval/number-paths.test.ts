// Paths that do in plain numbers what a BigInt definition does, for speed: each must equal
// its definition. The compiler splits IPv4 and service intervals into prefixes
// (eachPrefix32 = intervalPrefixes) and merges service keys (serviceKeyIntervals =
// mergeIntervals); the analysis lists a zone mask's bits (bitsOf) and cuts a painted field
// into elementary intervals (axisNum = axisBig) and draws probe packets (randomIn32 and
// draw6 = randomIn).
import fc from 'fast-check';
import { bitsOf } from '../../src/eval/coverage';
import { axisBig, axisNum } from '../../src/eval/paint-axis';
import { rng } from '../../src/eval/prng';
import { draw6, randomIn, randomIn32 } from '../../src/eval/probe-draw';
import { Work } from '../../src/eval/work';
import type { ServiceObj } from '../../src/config/types';
import { eachPrefix32, intervalPrefixes, mergeIntervals, parsePortEntry, policyServiceSet, serviceKeyIntervals, serviceSetsOf, type Interval } from '../../src/eval/sets';
import { PROTO_TCP, PROTO_UDP } from '../../src/eval/types';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

function numbered(lo: number, hi: number, bits: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  eachPrefix32(lo, hi, bits, (value, len) => out.push([value, len]));
  return out;
}

const defined = (lo: number, hi: number, bits: number) => intervalPrefixes(BigInt(lo), BigInt(hi), bits).map((p): [number, number] => [Number(p.value), p.len]);

/** Sorted, disjoint, non-adjacent intervals from a list of points (pairs of them). */
function intervals(points: bigint[]): Interval[] {
  const s = [...new Set(points)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Interval[] = [];
  for (let k = 0; k + 1 < s.length; k += 2) if (!out.length || s[k] > out[out.length - 1][1] + 1n) out.push([s[k], s[k + 1]]);
  return out;
}

describe('eachPrefix32', () => {
  test('= intervalPrefixes on random intervals of 32- and 24-bit fields', () => {
    const max = (bits: number) => 2 ** bits - 1;
    // values near the ends and near powers of two, where blocks start and stop
    const value = (bits: number) => fc.oneof(fc.integer({ min: 0, max: max(bits) }), fc.integer({ min: 0, max: bits - 1 }).chain((k) => fc.integer({ min: -3, max: 3 }).map((e) => Math.min(max(bits), Math.max(0, 2 ** k + e)))), fc.constantFrom(0, max(bits)));
    for (const bits of [32, 24]) {
      fc.assert(
        fc.property(value(bits), value(bits), (a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(numbered(lo, hi, bits)).toEqual(defined(lo, hi, bits));
        }),
        { numRuns: 500, seed },
      );
    }
  });
  test('the whole field is one prefix of length 0; one value is one of full length', () => {
    expect(numbered(0, 2 ** 32 - 1, 32)).toEqual([[0, 0]]);
    expect(numbered(80, 80, 24)).toEqual([[80, 24]]);
    expect(numbered(1, 6, 32)).toEqual([[1, 32], [2, 31], [4, 31], [6, 32]]);
  });
});

describe('bitsOf', () => {
  const defined = (mask: bigint) => {
    const out: number[] = [];
    for (let i = 0; mask > 0n; i++, mask >>= 1n) if (mask & 1n) out.push(i);
    return out;
  };
  test('= the bit-by-bit definition on random masks of up to 100 bits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 100n - 1n }), fc.array(fc.integer({ min: 0, max: 99 }), { maxLength: 5 }), (m, extra) => {
        // sparse masks too, with bits at word edges
        const sparse = extra.reduce((acc, b) => acc | (1n << BigInt(b)), 0n) | (extra.length ? 1n << 31n : 0n) | (extra.length > 2 ? 1n << 32n : 0n);
        expect(bitsOf(m)).toEqual(defined(m));
        expect(bitsOf(sparse)).toEqual(defined(sparse));
      }),
      { numRuns: 500, seed },
    );
    expect(bitsOf(0n)).toEqual([]);
    expect(bitsOf((1n << 41n) - 1n)).toEqual([...Array(41).keys()]);
  });
});

describe('serviceKeyIntervals', () => {
  const defined = (services: ServiceObj[]) => {
    const list: Interval[] = [];
    for (const s of services) {
      const proto = s.protocol === 'tcp' ? PROTO_TCP : PROTO_UDP;
      for (const e of s.ports) {
        const r = parsePortEntry(e);
        if (r) list.push([BigInt((proto << 16) | r[0]), BigInt((proto << 16) | r[1])]);
      }
    }
    return mergeIntervals(list).map(([a, b]) => [Number(a), Number(b)]);
  };
  // ports near each other, so that ranges overlap and touch
  const port = fc.integer({ min: 0, max: 40 }).map((p) => (p > 36 ? 65535 - (p - 37) : p));
  const entry = fc.oneof(port, fc.tuple(port, port).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`));
  const service = fc.record({ name: fc.constant('s'), protocol: fc.constantFrom('tcp', 'udp'), ports: fc.array(entry, { maxLength: 5 }) }) as fc.Arbitrary<ServiceObj>;
  test('= merging the BigInt intervals, on random service lists', () => {
    fc.assert(
      fc.property(fc.array(service, { maxLength: 5 }), (services) => {
        expect(serviceKeyIntervals(services)).toEqual(defined(services));
      }),
      { numRuns: 500, seed },
    );
  });
  test('serviceSetsOf (each service parsed once) = policyServiceSet, on random lists of names', () => {
    const names = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'unknown', 'any', ''), { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(service, { minLength: 4, maxLength: 4 }), fc.array(names, { maxLength: 6 }), (objs, lists) => {
        const map = new Map(['a', 'b', 'c', 'd'].map((n, i) => [n, { ...objs[i], name: n }]));
        const sets = serviceSetsOf(map);
        // twice each: the second answer comes from the parsed services
        for (const l of [...lists, ...lists]) expect(sets(l)).toEqual(policyServiceSet(l, map));
      }),
      { numRuns: 300, seed },
    );
  });
});

describe('axisNum', () => {
  // small values (boundaries meet often) and values near 2^32 and 2^53
  const value = fc.oneof(fc.bigInt({ min: 0n, max: 30n }), fc.bigInt({ min: 2n ** 32n - 8n, max: 2n ** 32n + 8n }), fc.bigInt({ min: 2n ** 53n - 40n, max: 2n ** 53n - 3n }));
  const field = fc.array(value, { minLength: 2, maxLength: 8 }).map(intervals).filter((iv) => iv.length > 0);
  // a candidate may reach past 2^53 (its numbers are then rounded, outside the box)
  const wide = fc.array(fc.oneof(value, fc.bigInt({ min: 2n ** 53n - 2n, max: 2n ** 70n })), { minLength: 2, maxLength: 8 }).map(intervals).filter((iv) => iv.length > 0);
  test('= axisBig on random fields and candidates (the same elementary intervals and runs)', () => {
    fc.assert(
      fc.property(field, fc.array(fc.oneof(field, wide), { maxLength: 6 }), fc.array(fc.nat(5), { maxLength: 3 }), (r, cs, same) => {
        // candidates that are the box's field itself, as paintBox passes them
        const cands = [...cs, ...same.map(() => r)];
        // the same work spent too: the budget decides which policies are left undecided
        const wa = new Work(1e9), wb = new Work(1e9);
        // twice: the second time from the numbers kept for each field
        axisNum(r, cands, new Work(1e9));
        const a = axisNum(r, cands, wa), b = axisBig(r, cands, wb);
        expect(Array.from(a.lo, BigInt)).toEqual(b.lo);
        expect(a.runs).toEqual(b.runs);
        expect(wa.left).toBe(wb.left);
      }),
      { numRuns: 500, seed },
    );
  });

  test('a candidate equal to the box field (another object) is the field itself: the same axis, the same work, in both paths', () => {
    // the incremental analysis makes a changed region again from an equal field object: its
    // work must be the whole analysis's, or a small budget decides another way (a CI find)
    fc.assert(
      fc.property(field, fc.array(fc.oneof(field, wide), { maxLength: 4 }), (r, cs) => {
        const copy = r.map(([lo, hi]): Interval => [lo, hi]);
        for (const cut of [axisNum, axisBig]) {
          const ws = new Work(1e9), wc = new Work(1e9);
          const same = cut(r, [...cs, r], ws), equal = cut(r, [...cs, copy], wc);
          expect(equal).toEqual(same);
          expect(wc.left).toBe(ws.left);
        }
      }),
      { numRuns: 300, seed },
    );
  });
});

describe('probe draws', () => {
  // IPv6 intervals of the three kinds draw6 tells apart: spans up to 2^52 (carries across
  // words included), aligned powers of two (prefixes, up to ::/0), anything else
  const cidr = fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }), fc.integer({ min: 0, max: 128 })).map(([v, len]): Interval => {
    const host = BigInt(128 - len);
    const lo = (v >> host) << host;
    return [lo, lo + (1n << host) - 1n];
  });
  const small = fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 128n - 2n ** 53n }), fc.bigInt({ min: 0n, max: 2n ** 52n - 1n })).map(([lo, n]): Interval => [lo, lo + n]);
  const carry = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.bigInt({ min: 1n, max: 2n ** 40n })).map(([w, n]): Interval => [(1n << BigInt(32 * w)) - n, (1n << BigInt(32 * w)) + n]);
  const other = fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 100n }), fc.bigInt({ min: 2n ** 53n, max: 2n ** 120n })).map(([lo, n]): Interval => [lo, lo + n]);
  // (randomIn reads only the chosen interval and the list's ends: any list will do)
  const v6List = fc.array(fc.oneof(cidr, small, carry, other), { minLength: 1, maxLength: 4 });
  const wordsOf = (x: bigint) => [3, 2, 1, 0].map((k) => Number((x >> BigInt(32 * k)) & 0xffffffffn) | 0);

  test('draw6 = the words of randomIn, and the same draws consumed', () => {
    fc.assert(
      fc.property(v6List, fc.integer(), fc.integer({ min: 0, max: 2 }), (list, seed, corner) => {
        const r1 = rng(seed), r2 = rng(seed);
        const q = new Int32Array(8);
        for (let k = 0; k < 4; k++) {
          draw6(list, r1, corner, q, 4);
          expect([...q.subarray(4)]).toEqual(wordsOf(randomIn(list, r2, corner)));
        }
        expect(r1()).toBe(r2());
      }),
      { numRuns: 1000, seed },
    );
  });
  test('randomIn32 = randomIn below 2^32', () => {
    const v4List = fc.array(fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }), { minLength: 2, maxLength: 8 }).map(intervals).filter((l) => l.length > 0);
    fc.assert(
      fc.property(v4List, fc.integer(), fc.integer({ min: 0, max: 2 }), (list, seed, corner) => {
        const r1 = rng(seed), r2 = rng(seed);
        for (let k = 0; k < 4; k++) expect(randomIn32(list, r1, corner)).toBe(Number(randomIn(list, r2, corner)));
        expect(r1()).toBe(r2());
      }),
      { numRuns: 500, seed },
    );
  });
});
