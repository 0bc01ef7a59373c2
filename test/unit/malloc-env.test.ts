// The glibc malloc settings (src/malloc-env.ts): npm start, npm run worker and the image set
// them (a user's own values win), and the daemon names the ones missing on Linux only.
import fs from 'node:fs';
import path from 'node:path';
import { MALLOC_ENV, missingMallocEnv } from '../../src/malloc-env';

const ROOT = path.resolve(__dirname, '../../..');

test('npm start and npm run worker set each setting unless the environment has it; the image sets them', () => {
  const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  const docker = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  for (const [k, v] of Object.entries(MALLOC_ENV)) {
    for (const s of [scripts.start, scripts.worker]) expect(s).toMatch(new RegExp(`(^| )${k}=\\$\\{${k}:-${v}\\} (\\S+=\\S+ )*node `));
    expect(docker).toMatch(new RegExp(`^ENV .*\\b${k}=${v}\\b`, 'm'));
  }
});

test('the settings missing from an environment, on Linux only', () => {
  expect(missingMallocEnv({}, 'linux')).toEqual(Object.keys(MALLOC_ENV));
  expect(missingMallocEnv({ ...MALLOC_ENV }, 'linux')).toEqual([]);
  expect(missingMallocEnv({ MALLOC_ARENA_MAX: '4' }, 'linux')).toEqual(['MALLOC_MMAP_THRESHOLD_']);
  expect(missingMallocEnv({}, 'darwin')).toEqual([]);
});
