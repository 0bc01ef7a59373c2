// The Debian packages the suites need (test/helpers/packages.ts): every one is named in
// README's table, so a fresh machine's operator reads what `npm test` installs or asks for
// (issue 43: rsyslog-gnutls and ulogd2-json were named nowhere but .ci/run); the probes find
// a plugin under any multiarch folder and tell a missing command from a present one.
import fs from 'node:fs';
import path from 'node:path';
import * as packages from '../helpers/packages';
import { tempDir } from '../helpers/temp-dirs';

const ROOT = path.resolve(__dirname, '../../..');

const sets = Object.entries(packages).filter(([name]) => name.endsWith('_PACKAGES')) as Array<[string, packages.Need[]]>;

test('README\'s package table names every package a suite requires', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const table = readme.split('\n').filter((l) => l.startsWith('| ')).join('\n');
  expect(sets.length).toBeGreaterThanOrEqual(8);
  const named = new Set(table.split(/[|,\s()]+/));
  const missing = sets.flatMap(([, needs]) => needs.map(([, pkg]) => pkg)).filter((pkg) => !named.has(pkg));
  expect(missing).toEqual([]);
  expect(named.has('rsyslog-gnutls') && named.has('ulogd2-json')).toBe(true);
});

test('probes: a file under any multiarch folder, a command on PATH; missingPackages lists only what is absent', () => {
  const dir = tempDir('fwd-probe-');
  fs.mkdirSync(path.join(dir, 'x86_64-linux-gnu', 'rsyslog'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'x86_64-linux-gnu', 'rsyslog', 'lmnsd_gtls.so'), '');
  expect(packages.present(`${dir}/*/rsyslog/lmnsd_gtls.so`)).toBe(true);
  expect(packages.present(`${dir}/*/ulogd/ulogd_output_JSON.so`)).toBe(false);
  expect(packages.present('sh')).toBe(true);
  expect(packages.present('fwd-no-such-command')).toBe(false);
  expect(packages.missingPackages([['sh', 'dash'], ['fwd-no-such-command', 'fwd-none'], [`${dir}/*/x/y.so`, 'fwd-none']])).toEqual(['fwd-none']);
});
