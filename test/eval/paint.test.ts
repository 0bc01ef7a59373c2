// Parts of the painting (paint.ts) that have a plain definition to be checked against.
import fc from 'fast-check';
import { zoneClasses } from '../../src/eval/paint';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

/** The definition: zone values keyed by the list of candidates holding them, one
 * representative a key (its first value, or the second when the first is "none", 0), in the
 * order the keys first appear. */
function byKey(mask: bigint, sets: readonly bigint[]): number[] {
  const reps = new Map<string, number>();
  for (let z = 0; 1n << BigInt(z) <= mask; z++) {
    const bit = 1n << BigInt(z);
    if (!(mask & bit)) continue;
    const key = sets.map((s, c) => (s & bit ? `${c},` : '')).join('');
    const rep = reps.get(key);
    if (rep === undefined || rep === 0) reps.set(key, z);
  }
  return [...reps.values()];
}

describe('zoneClasses', () => {
  // masks over 8 zone values (0 is "none") and over 70, with sets of one value, all of them,
  // or any mixture
  const zoneSet = (width: number) => fc.oneof(fc.bigInt({ min: 0n, max: (1n << BigInt(width)) - 1n }), fc.nat(width - 1).map((z) => 1n << BigInt(z)), fc.constant((1n << BigInt(width)) - 1n));
  test('= grouping the values by the candidates that hold them, on random zone sets', () => {
    for (const width of [8, 70]) {
      fc.assert(
        fc.property(zoneSet(width), fc.array(zoneSet(width), { maxLength: 8 }), (mask, sets) => {
          expect(zoneClasses(mask, sets)).toEqual(byKey(mask, sets));
        }),
        { numRuns: 400, seed },
      );
    }
  });
  test('a named zone represents a class rather than "none"', () => {
    expect(zoneClasses(0b111n, [0b110n])).toEqual([0, 1]);
    expect(zoneClasses(0b111n, [0b001n])).toEqual([0, 1]);
    expect(zoneClasses(0b011n, [])).toEqual([1]);
  });
});
