// The daemon's YAML reader (src/config/yaml-text.ts, js-yaml since issue 43): what it reads is
// what the `yaml` package (the reader before, and the export's writer) reads, on the export's
// style and on hand-written forms (comments, flow lists, quotes, block scalars, non-ASCII
// text); YAML 1.2 core schema (no timestamps, "yes" a string); depth and alias bounds kept.
import YAML from 'yaml';
import fc from 'fast-check';
import { yamlValue } from '../../src/config/yaml-text';

const text = fc.oneof(
  fc.constantFrom('Allow web traffic', 'büro', 'Zugang für Gäste', 'a: b', '#not a comment', 'yes', 'no', '0x1F', '1e3', '', ' lead', 'null', '- x', '日本語 ✓', 'it\'s', 'say "hi"'),
  fc.string({ maxLength: 20 }),
);
const rule = fc.record({
  action: fc.constantFrom('allow', 'deny'), description: text, tags: fc.array(text, { maxLength: 3 }), position: fc.integer({ min: 1, max: 30000 }),
  disabled: fc.boolean(), note: fc.constantFrom(null, 1.5, -3, 0),
}, { requiredKeys: ['action'] });
const doc = fc.record({ format: fc.constant('fwd-config/1'), policies: fc.array(rule, { maxLength: 8 }) });

test('the export\'s style and the flow style read as the yaml package reads them', () => {
  fc.assert(fc.property(doc, (d) => {
    for (const style of [YAML.stringify(d, { aliasDuplicateObjects: false, lineWidth: 0 }), YAML.stringify(d, { collectionStyle: 'flow' })]) {
      expect(yamlValue(style)).toEqual(YAML.parse(style));
      expect(yamlValue(style)).toEqual(d);
    }
  }), { numRuns: 300 });
});

test('hand-written forms: comments, block scalars, core schema scalars', () => {
  const t = '# rules\npolicies:\n  - action: allow # inline\n    description: |\n      two\n      lines\n    when: 2024-01-01\n    ok: yes\n    hex: 0x10\n    tags: [web, "büro"]\n';
  expect(yamlValue(t)).toEqual(YAML.parse(t));
  expect(yamlValue(t)).toEqual({ policies: [{ action: 'allow', description: 'two\nlines\n', when: '2024-01-01', ok: 'yes', hex: 16, tags: ['web', 'büro'] }] });
  expect(yamlValue('')).toBeNull();
});

test('refusals: ERR_NET_1004 with the place; depth bounded at 64 levels; aliases bounded by what they expand to', () => {
  const refusal = (t: string) => {
    try {
      yamlValue(t);
    } catch (e) {
      return `${(e as { code: string }).code} ${(e as { details: string }).details}`;
    }
    return 'accepted';
  };
  expect(refusal('a: 1\na: 2\n')).toBe('ERR_NET_1004 malformed YAML: duplicated mapping key at line 2, column 1');
  expect(refusal('a: 1\n---\nb: 2\n')).toBe('ERR_NET_1004 malformed YAML: the body holds more than one document');
  expect(refusal(`a: ${'['.repeat(100)}`)).toBe('ERR_NET_1004 the document nests arrays and objects deeper than 64 levels (line 1, column 68)');
  expect(refusal(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe('accepted');
  expect(refusal(`${'['.repeat(65)}${']'.repeat(65)}`)).toMatch(/^ERR_NET_1004 the document nests arrays and objects deeper than 64 levels/);
  let laughs = 'l0: &l0 [x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i < 9; i++) laughs += `l${i}: &l${i} [${Array(9).fill(`*l${i - 1}`).join(', ')}]\n`;
  expect(refusal(laughs)).toMatch(/^ERR_NET_1004 malformed YAML: aliases stand for more than/);
  expect(refusal('a: &a [1, 2]\nb: *a\nc: *a\n')).toBe('accepted');
  expect(yamlValue('a: &a [1, 2]\nb: *a\n')).toEqual({ a: [1, 2], b: [1, 2] });
});
