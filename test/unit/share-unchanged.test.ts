// shareUnchanged (src/config/doc-delta.ts): a version loaded from the store shares with the
// running version every object equal to one there, so that its compile on this instance is a
// delta (docDelta) of what actually changed, and reads the same as the document loaded.
import { parseDoc, serializeDoc, workingCopy } from '../../src/config/document';
import { applyDelta, docDelta, shareUnchanged } from '../../src/config/doc-delta';
import type { ConfigDoc } from '../../src/config/types';
import { scaleConfig } from '../../bench/scale-config';

/** `doc` as another instance reads it: through the store's JSON, no object shared. */
const loaded = (doc: ConfigDoc): ConfigDoc => parseDoc(JSON.parse(JSON.stringify(serializeDoc(doc))));

function check(base: ConfigDoc, committed: ConfigDoc) {
  const doc = loaded(committed);
  const text = JSON.stringify(serializeDoc(doc));
  expect(shareUnchanged(base, doc)).toBe(doc);
  expect(JSON.stringify(serializeDoc(doc))).toBe(text); // reads the same
  const delta = docDelta(base, doc);
  expect(JSON.stringify(serializeDoc(applyDelta(base, delta)))).toBe(text);
  return delta;
}

const base = loaded(scaleConfig({ policies: 2000 }));

test('one policy changed: the delta is that policy alone', () => {
  const next = workingCopy(base);
  next.policies = [...next.policies];
  next.policies[700] = { ...next.policies[700], action: next.policies[700].action === 'allow' ? 'deny' : 'allow' };
  const delta = check(base, next);
  expect(delta.named).toEqual({});
  expect(delta.rules).toEqual({ policies: { at: [[700, expect.objectContaining({ id: next.policies[700].id })]] } });
});

test('one address changed and one added: those two alone', () => {
  const next = workingCopy(base);
  const [name, a] = [...next.addresses][3];
  next.addresses.set(name, { ...a, ips: ['10.1.250.1/32'] });
  next.addresses.set('zz-new', { ...a, name: 'zz-new', ips: ['10.1.251.0/24'] });
  const delta = check(base, next);
  expect(delta.named.addresses?.set.map(([k]) => k).sort()).toEqual([name, 'zz-new']);
  expect(delta.rules).toEqual({});
});

test('a policy moved: the table goes whole, its rules still shared with the base', () => {
  const next = workingCopy(base);
  const p = [...next.policies];
  p.splice(10, 0, ...p.splice(1500, 1));
  next.policies = p;
  const doc = loaded(next);
  shareUnchanged(base, doc);
  const byId = new Map(base.policies.map((r) => [r.id, r]));
  expect(doc.policies.every((r) => byId.get(r.id) === r)).toBe(true);
  expect('all' in (check(base, next).rules.policies ?? {})).toBe(true);
});

test('without sharing, every object of a loaded version would travel', () => {
  const delta = docDelta(base, loaded(base));
  expect((delta.rules.policies as { at: unknown[] }).at).toHaveLength(base.policies.length);
});
