// A reordered rule table stored as its order and its changed rules (src/store/version-deltas.ts
// packDelta/unpackDelta): put back together on the base it was made on, it is the table
// docDelta sent whole, with the base's unchanged rules and the new ones; ids of any size.
import { emptyDoc, workingCopy } from '../../src/config/document';
import { docDelta } from '../../src/config/doc-delta';
import type { ConfigDoc } from '../../src/config/types';
import { packDelta, unpackDelta, versionChange } from '../../src/store/version-deltas';

function withPolicies(ids: number[]): ConfigDoc {
  const doc = emptyDoc(['eth0']);
  doc.policies = ids.map((id) => ({ id, name: `p${id}` })) as never;
  return doc;
}

for (const [label, ids] of [['small ids', [1, 2, 3, 4, 5]], ['ids far apart (a Map)', [7, 1e9, 3, 5e12, 42]]] as const) {
  test(`a move and a change in one commit: the order and the changed rule only (${label})`, () => {
    const base = withPolicies([...ids]);
    const next = workingCopy(base);
    const rules = [...base.policies];
    const [moved] = rules.splice(3, 1);
    rules.unshift(moved);
    rules[2] = { ...rules[2], name: 'changed' };
    next.policies = rules;
    const delta = docDelta(base, next);
    expect('all' in delta.rules.policies!).toBe(true);
    const stored = packDelta(base, delta);
    expect(stored.rules.policies).toEqual({ order: { ids: rules.map((r) => r.id), set: [[rules[2].id, rules[2]]] } });
    const back = unpackDelta(base, JSON.parse(JSON.stringify(stored)));
    expect(back.rules.policies).toEqual({ all: rules });
    // the unchanged rules are the base's own objects (an instance following shares them)
    expect((back.rules.policies as { all: unknown[] }).all[0]).toBe(base.policies[3]);
  });
}

test('a stored order naming a rule neither it nor the base holds is refused', () => {
  const base = withPolicies([1, 2]);
  expect(() => unpackDelta(base, { named: {}, rules: { policies: { order: { ids: [2, 9], set: [] } } }, counters: base.counters })).toThrow(/rule 9/);
});

test('a change of most of the document (a rollback\'s copy, a load) is stored whole; a move of one rule among many is not', () => {
  const base = withPolicies(Array.from({ length: 200 }, (_, i) => i + 1));
  const copy = workingCopy(base);
  copy.policies = base.policies.map((p) => ({ ...p }));
  expect(versionChange({ meta: { version: 1, time: 1, author: 'a' }, doc: base }, copy, docDelta(base, copy))).toBeUndefined();
  const moved = workingCopy(base);
  moved.policies = [base.policies[199], ...base.policies.slice(0, 199)];
  expect(versionChange({ meta: { version: 1, time: 1, author: 'a' }, doc: base }, moved, docDelta(base, moved))?.delta.rules.policies).toEqual({ order: { ids: moved.policies.map((p) => p.id), set: [] } });
});
