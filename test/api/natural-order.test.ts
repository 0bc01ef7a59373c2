// Named objects are listed in natural order (issue 43, item 8): h-ext-2, h-ext-12, h-ext-102,
// not the string order that put h-ext-102 before h-ext-12; the session diff lists them alike.
import { naturalCompare } from '../../src/config/natural-order';
import { ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();
const names = ['h-ext-102', 'h-ext-12', 'h-ext-2', 'h-ext-012', 'db', 'H-ext-3'];
const natural = ['H-ext-3', 'db', 'h-ext-2', 'h-ext-012', 'h-ext-12', 'h-ext-102'];

test('natural order: digit runs compare as numbers, the rest by code unit, 0 only for equal names', () => {
  expect([...names].sort(naturalCompare)).toEqual(natural);
  expect(naturalCompare('a', 'a')).toBe(0);
  expect(naturalCompare('a1', 'a1b')).toBeLessThan(0);
  expect(naturalCompare('a01', 'a1')).not.toBe(0); // distinct names never tie
});

test('address lists and the session diff put h-ext-12 before h-ext-102', async () => {
  await d.client.begin();
  try {
    for (const [i, name] of names.entries()) await ok(d.client.post('/api/addresses', { name, ips: [`192.0.2.${i + 1}`] }));
    const listed = Object.keys((await ok(d.client.get('/api/addresses?config=candidate'))).body).filter((n) => names.includes(n));
    expect(listed).toEqual(natural);
    const diff = (await ok(d.client.get('/api/config/diff'))).body as { added: Array<{ kind: string; key: string }> };
    expect(diff.added.filter((a) => a.kind === 'address').map((a) => a.key)).toEqual(natural);
  } finally {
    await d.client.post('/api/config/discard');
  }
});
