// Footprints are what lets the Redis store append a change after other instances' entries it
// has not seen (src/config/footprint.ts). The claim that makes it safe, checked on random
// documents and changes of every kind: when two changes both have footprints and share no
// key, each one's outcome (its answer or its error code) is the same whether the other came
// first or not, and both orders leave the same document.
import fc from 'fast-check';
import { applyChange, type Change, type ObjectChange } from '../../src/config/changes';
import { emptyDoc, serializeDoc, workingCopy } from '../../src/config/document';
import { footprint, MAX_FOOTPRINT_KEYS } from '../../src/config/footprint';
import type { ConfigDoc } from '../../src/config/types';
import { isFwError } from '../../src/errors';

const NAMES = ['a', 'b', 'c'];
const name = fc.constantFrom(...NAMES);
const ips = fc.constantFrom(['10.0.0.1/32'], ['10.1.0.0/16', '2001:db8::/64'], []);

const objectChange: fc.Arbitrary<ObjectChange> = fc.oneof(
  fc.record({ op: fc.constant('create' as const), kind: fc.constant('address' as const), body: fc.record({ name, ips }) }),
  fc.record({ op: fc.constant('update' as const), kind: fc.constant('address' as const), key: name, body: fc.record({ ips }) }),
  fc.record({ op: fc.constant('delete' as const), kind: fc.constant('address' as const), key: name }),
  fc.record({ op: fc.constant('create' as const), kind: fc.constant('service' as const), body: fc.record({ name, protocol: fc.constantFrom('tcp', 'udp'), ports: fc.constantFrom([443], [80, '8000-8080']) }) }),
  fc.record({ op: fc.constant('update' as const), kind: fc.constant('service' as const), key: name, body: fc.record({ protocol: fc.constantFrom('tcp', 'udp') }) }),
  fc.record({ op: fc.constant('delete' as const), kind: fc.constant('service' as const), key: name }),
  fc.record({ op: fc.constant('create' as const), kind: fc.constant('policy' as const), body: fc.record({ action: fc.constantFrom('allow', 'deny'), 'dst-addr': name, services: fc.constantFrom([], ['a'], ['b']) }) }),
  fc.record({ op: fc.constant('delete' as const), kind: fc.constant('policy' as const), key: fc.constantFrom('1', '2') }),
  fc.record({ op: fc.constant('create' as const), kind: fc.constant('zone' as const), body: fc.record({ name, type: fc.constant('l3') }) }),
);

const change: fc.Arbitrary<Change> = fc.oneof(
  { weight: 4, arbitrary: objectChange },
  { weight: 1, arbitrary: fc.array(objectChange, { minLength: 1, maxLength: 3 }).map((changes): Change => ({ op: 'batch', changes })) },
);

/** A document built by applying whichever of `setup` apply. */
function docOf(setup: Change[]): ConfigDoc {
  const doc = emptyDoc(['eth0']);
  for (const c of setup) tryApply(doc, c);
  return doc;
}

/** The change's answer, or its error code; the document is changed only when it applies. */
function tryApply(doc: ConfigDoc, c: Change): string {
  try {
    return JSON.stringify(applyChange(doc, c));
  } catch (e) {
    if (!isFwError(e)) throw e;
    return e.code;
  }
}

const disjoint = (x: string[], y: string[]) => !x.some((k) => y.includes(k));

test('changes with disjoint footprints: same outcome in either order, same document after both', () => {
  let pairs = 0;
  fc.assert(
    fc.property(fc.array(change, { maxLength: 12 }), change, change, (setup, x, y) => {
      const fx = footprint(x);
      const fy = footprint(y);
      fc.pre(fx !== null && fy !== null && disjoint(fx, fy));
      pairs++;
      const base = docOf(setup);
      const xy = workingCopy(base);
      const yx = workingCopy(base);
      const alone = { x: tryApply(workingCopy(base), x), y: tryApply(workingCopy(base), y) };
      const xFirst = { x: tryApply(xy, x), y: tryApply(xy, y) };
      const yFirst = { y: tryApply(yx, y), x: tryApply(yx, x) };
      expect(xFirst).toEqual(alone);
      expect(yFirst).toEqual(alone);
      expect(JSON.stringify(serializeDoc(xy))).toBe(JSON.stringify(serializeDoc(yx)));
    }),
    { numRuns: 3000 },
  );
  expect(pairs).toBeGreaterThan(300); // the property was not vacuous
});

test('what may touch anything has no footprint: policies, zones, moves, loads, rollbacks, and batches holding one', () => {
  expect(footprint({ op: 'create', kind: 'policy', body: { action: 'allow' } })).toBeNull();
  expect(footprint({ op: 'create', kind: 'zone', body: { name: 'z', type: 'l3' } })).toBeNull();
  expect(footprint({ op: 'load', mode: 'merge', config: {} })).toBeNull();
  expect(footprint({ op: 'rollback', version: 1 })).toBeNull();
  expect(footprint({ op: 'batch', changes: [{ op: 'delete', kind: 'address', key: 'a' }, { op: 'delete', kind: 'policy', key: '1' }] })).toBeNull();
  expect(footprint({ op: 'batch', changes: [{ op: 'delete', kind: 'address', key: 'a' }, { op: 'create', kind: 'service', body: { name: 'a' } }, { op: 'delete', kind: 'address', key: 'a' }] }))
    .toEqual(['address:a', 'service:a']);
  // a body without a usable name (refused when applied anyway) and a batch past the key limit
  expect(footprint({ op: 'create', kind: 'address', body: { name: 7 } })).toBeNull();
  const many = Array.from({ length: MAX_FOOTPRINT_KEYS + 1 }, (_, i): ObjectChange => ({ op: 'delete', kind: 'address', key: `n${i}` }));
  expect(footprint({ op: 'batch', changes: many })).toBeNull();
});
