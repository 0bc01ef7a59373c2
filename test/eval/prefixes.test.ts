// The compiler splits IPv4 and service intervals into prefixes in plain numbers
// (eachPrefix32); the BigInt intervalPrefixes is the definition it must equal.
import fc from 'fast-check';
import { eachPrefix32, intervalPrefixes } from '../../src/eval/sets';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

function numbered(lo: number, hi: number, bits: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  eachPrefix32(lo, hi, bits, (value, len) => out.push([value, len]));
  return out;
}

const defined = (lo: number, hi: number, bits: number) => intervalPrefixes(BigInt(lo), BigInt(hi), bits).map((p): [number, number] => [Number(p.value), p.len]);

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
