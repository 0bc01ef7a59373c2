// A large JSON body crosses from the parse thread in pieces (src/config/json-pieces.ts, issue
// 38): the value joined is JSON.parse's, its kept text is JSON.stringify's, and a journal entry
// holding it is written as JSON.stringify would write it.
import { joinJson, knownText, splitJson, stringifyKnown, textPieces } from '../../src/config/json-pieces';

const doc = {
  format: 'fwd-config/1',
  version: 3,
  addresses: Array.from({ length: 500 }, (_v, i) => ({ name: `a${i}`, ips: [`10.0.${i >> 8}.${i & 255}/32`], description: 'é 😀 "q" \\' })),
  policies: [],
  ha: null,
  empty: {},
};

test('the joined value is the parsed one, and its text JSON.stringify of it', async () => {
  const parts = splitJson(JSON.parse(JSON.stringify(doc)), 2000); // small runs: many of them
  expect(parts.find((p) => p.key === 'addresses' && 'runs' in p && p.runs.length > 10)).toBeDefined();
  const value = await joinJson(parts, 0);
  expect(value).toEqual(doc);
  expect(knownText(value)).toBe(JSON.stringify(doc));
});

test('a "__proto__" key stays an own member, as JSON.parse makes it', async () => {
  const text = '{"__proto__":[{"x":1}],"a":{"__proto__":2}}';
  const value = (await joinJson(splitJson(JSON.parse(text)), 0)) as Record<string, unknown>;
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  expect(Object.keys(value)).toEqual(['__proto__', 'a']);
  expect(knownText(value)).toBe(text);
});

test('documents that are not objects: a top-level array, a string, null', async () => {
  for (const v of [[1, [2], { b: 3 }], 'text', null, []]) {
    const joined = await joinJson(splitJson(v, 4), 0);
    expect(joined).toEqual(v);
    if (typeof v === 'object' && v !== null) expect(knownText(joined)).toBe(JSON.stringify(v));
  }
});

test('a journal entry holding a joined document is written as JSON.stringify writes it', async () => {
  const config = await joinJson(splitJson(JSON.parse(JSON.stringify(doc)), 1000), 0);
  const entry = { seq: 4, at: 1700000000000, user: 'ad"min', change: { op: 'load', mode: 'replace', config } };
  expect(stringifyKnown(entry)).toBe(JSON.stringify(entry));
  // and an entry without one is stringified as always
  const other = { seq: 1, change: { op: 'create', body: { name: 'x' } } };
  expect(stringifyKnown(other)).toBe(JSON.stringify(other));
});

test('a long text is cut in pieces that never split a surrogate pair', () => {
  const text = 'ab😀'.repeat(1000); // pairs at every offset modulo 4
  for (const size of [3, 4, 5, 64]) {
    const pieces = [...textPieces(text, size)];
    expect(pieces.join('')).toBe(text);
    expect(Buffer.concat(pieces.map((p) => Buffer.from(p))).toString()).toBe(text);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(size);
  }
});
