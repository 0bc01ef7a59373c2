// The error catalogue and docs/api.md agree: every code is documented with its status, and
// every documented code exists.
import fs from 'node:fs';
import path from 'node:path';
import { ERRORS } from '../../src/errors';

const doc = fs.readFileSync(path.resolve(__dirname, '../../../docs/api.md'), 'utf8');

test('every catalogued code is in the docs error table with its HTTP status', () => {
  for (const [code, { status }] of Object.entries(ERRORS)) {
    expect({ code, row: new RegExp(`^\\| ${status} \\| ${code} \\|`, 'm').test(doc) }).toEqual({ code, row: true });
  }
});

test('every code the docs mention exists in the catalogue', () => {
  const mentioned = new Set(doc.match(/ERR_[A-Z]{3}_\d{4}/g));
  for (const code of mentioned) expect(Object.keys(ERRORS)).toContain(code);
  expect(mentioned.size).toBeGreaterThanOrEqual(Object.keys(ERRORS).length);
});
