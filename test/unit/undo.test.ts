// withUndo takes back any change exactly: the document after undo serializes byte for byte
// as before, for every kind of operation, including a rollback that replaces everything.
import { applyChange, type Change } from '../../src/config/changes';
import { emptyDoc, serializeDoc } from '../../src/config/document';
import type { ConfigDoc } from '../../src/config/types';
import { withUndo } from '../../src/config/undo';

function built(changes: Change[]): ConfigDoc {
  const doc = emptyDoc(['eth0', 'eth1', 'eth2']);
  for (const c of changes) applyChange(doc, c);
  return doc;
}

const SETUP: Change[] = [
  { op: 'create', kind: 'zone', body: { name: 'lan', type: 'l3' } },
  { op: 'create', kind: 'zone', body: { name: 'wan', type: 'l3' } },
  { op: 'update', kind: 'interface', key: 'eth1', body: { ip: '192.168.1.1/24', zone: 'lan' } },
  { op: 'create', kind: 'address', body: { name: 'web', ips: ['10.0.0.10/32'] } },
  { op: 'create', kind: 'address', body: { name: 'db', ips: ['10.0.0.20/32'] } },
  { op: 'create', kind: 'address', body: { name: 'spare', ips: ['10.0.0.30/32'] } },
  { op: 'create', kind: 'service', body: { name: 'https', protocol: 'tcp', ports: [443] } },
  { op: 'create', kind: 'policy', body: { action: 'allow', 'src-zone': 'lan', 'dst-addr': 'web', services: ['https'] } },
  { op: 'create', kind: 'policy', body: { action: 'deny', 'dst-addr': 'db' } },
  { op: 'create', kind: 'route', body: { destination: '172.16.0.0/12', gateway: '192.168.1.254' } },
];

const CHANGES: Change[] = [
  { op: 'create', kind: 'address', body: { name: 'new', ips: ['10.1.0.0/16'] } },
  { op: 'update', kind: 'address', key: 'web', body: { ips: ['10.0.0.11/32'] } },
  { op: 'delete', kind: 'address', key: 'spare' },
  { op: 'create', kind: 'zone', body: { name: 'dmz', type: 'l3' } },
  { op: 'delete', kind: 'zone', key: 'wan' },
  { op: 'update', kind: 'interface', key: 'eth2', body: { ip: '10.9.0.1/24', zone: 'wan' } },
  { op: 'create', kind: 'policy', body: { action: 'allow', 'dst-addr': 'web' } },
  { op: 'update', kind: 'policy', key: '1', body: { log: true } },
  { op: 'delete', kind: 'policy', key: '2' },
  { op: 'move', kind: 'policy', key: '2', body: { position: 'top' } },
  { op: 'delete', kind: 'route', key: '1' },
];

test.each(CHANGES.map((c) => [`${c.op} ${'kind' in c ? c.kind : ''}`, c] as const))('undo of %s restores the document exactly', (_, change) => {
  const doc = built(SETUP);
  const before = JSON.stringify(serializeDoc(doc));
  const { undo } = withUndo(doc, () => applyChange(doc, change));
  expect(JSON.stringify(serializeDoc(doc))).not.toBe(before); // the change did something
  undo();
  expect(JSON.stringify(serializeDoc(doc))).toBe(before);
  // the maps behave as plain maps again
  expect(Object.prototype.hasOwnProperty.call(doc.addresses, 'set')).toBe(false);
});

test('undo of a rollback that replaces every table and map', () => {
  const target = built(SETUP.slice(0, 4));
  const doc = built(SETUP);
  const before = JSON.stringify(serializeDoc(doc));
  const { undo } = withUndo(doc, () => applyChange(doc, { op: 'rollback', version: 1 }, { versionDoc: target }));
  expect(JSON.stringify(serializeDoc(doc))).not.toBe(before);
  undo();
  expect(JSON.stringify(serializeDoc(doc))).toBe(before);
});

test('a refused change leaves the document untouched and nothing patched', () => {
  const doc = built(SETUP);
  const before = JSON.stringify(serializeDoc(doc));
  expect(() => withUndo(doc, () => applyChange(doc, { op: 'delete', kind: 'address', key: 'web' }))).toThrow();
  expect(JSON.stringify(serializeDoc(doc))).toBe(before);
  expect(Object.prototype.hasOwnProperty.call(doc.services, 'delete')).toBe(false);
});
