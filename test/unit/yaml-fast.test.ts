// The fast YAML reader (src/config/yaml-fast.ts) against the `yaml` library: whatever it
// accepts, it reads exactly as the library does (after the JSON round trip the load makes);
// the export's own YAML is always accepted; anything outside its subset is left to the library.
import fc from 'fast-check';
import YAML from 'yaml';
import { NOT_SIMPLE, parseSimpleYaml } from '../../src/config/yaml-fast';

const json = (v: unknown) => JSON.parse(JSON.stringify(v ?? null)) as unknown;

/** The library's value, or 'error' when it refuses the text. */
function library(text: string): unknown {
  try {
    return json(YAML.parse(text));
  } catch {
    return 'error';
  }
}

const TRICKY = ['', ' ', 'true', 'True', 'false', 'null', 'NULL', '~', '1', '-1', '01', '1.5', '1e3', '0x1F', '0o17', '.inf', '-.Inf', '.nan',
  'a: b', 'a:b', 'x #y', '#x', '- a', '"', "'", "it's", 'quo"te', '[a]', '{a}', 'a, b', '&x', '*x', '!t', '|', '>', '%', '@x', '`x`',
  '10.0.0.0/24', '2001:db8::10/128', 'fe80::1%eth0', 'any', 'src-zone', ' lead', 'trail ', 'tab\there', 'line\nbreak', 'é', '9007199254740993', '-0', '1_000'];
const key = fc.oneof(fc.constantFrom(...TRICKY, 'name', 'ips', 'src-zone', '__proto__x'), fc.string({ maxLength: 6 }));
const leaf = fc.oneof(fc.constantFrom(...TRICKY), fc.string({ maxLength: 8 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
})).node;

test('every value written by YAML.stringify is read as the library reads it, or left to it', () => {
  fc.assert(fc.property(value, fc.boolean(), (v, indentSeq) => {
    const text = YAML.stringify(v, { aliasDuplicateObjects: false, lineWidth: 0, indentSeq });
    const fast = parseSimpleYaml(text);
    if (fast !== NOT_SIMPLE) expect(fast).toEqual(library(text));
  }), { numRuns: 3000 });
});

test('any text it accepts, the library reads the same way', () => {
  const lineish = fc.array(fc.oneof(fc.constantFrom(...TRICKY.map((t) => `k: ${t}`), '- x', '  - y', 'a:', '  b: 1', '- a: 1', '  c: 2', '-', '  - - z', 'k: []', 'k: {}', '"q": 1'), fc.string({ maxLength: 10 })), { maxLength: 8 });
  fc.assert(fc.property(lineish, (lines) => {
    const text = lines.join('\n');
    const fast = parseSimpleYaml(text);
    if (fast !== NOT_SIMPLE) expect(fast).toEqual(library(text));
  }), { numRuns: 5000 });
});

test('an export-shaped document is read by the fast path; comments, anchors and flow lists are left to the library', () => {
  const doc = {
    format: 'fwd-config/1', version: 3,
    zones: [{ name: 'lan', type: 'l3', color: '', networks: ['10.0.0.0/8'] }],
    addresses: [{ name: 'web', ips: ['2001:db8::10/128', '10.0.0.10/32'] }],
    services: [{ name: 'alt', protocol: 'tcp', ports: [8443, '8000-8080'] }],
    policies: [{ id: 1, action: 'allow', 'src-zone': 'any', services: ['any'], log: true }],
    nat: [], dhcp: [],
  };
  const text = YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
  expect(parseSimpleYaml(text)).toEqual(doc);
  for (const other of ['a: 1 # why', 'a: &x 1\nb: *x', 'a: [1, 2]', 'a: |\n  text', 'a: 1\na: 2', '--- \na: 1', 'a: !!str 1', 'a: 0x10']) {
    expect(parseSimpleYaml(other)).toBe(NOT_SIMPLE);
  }
});
