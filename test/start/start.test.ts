// npm start from a fresh checkout (no dist/) and again with nothing changed: the first start
// compiles (esbuild, no type check) and answers; the second compiles nothing; a changed
// source makes the daemon's part stale again. Both print the address they listen on.
// (It compiled everything with tsc on every start and said nothing like "listening on"; issue 29.)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/daemon';
import { startChild, type Child } from '../helpers/process';

const ROOT = path.resolve(__dirname, '../../..');
jest.setTimeout(180_000);

/** A checkout without dist/: the sources the start needs, node_modules linked. */
function freshCheckout(): string {
  const dir = tempDir('start-');
  for (const p of ['src', 'console', 'scripts', 'package.json', 'tsconfig.json']) fs.cpSync(path.join(ROOT, p), path.join(dir, p), { recursive: true });
  fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
  return dir;
}

const check = (dir: string) => spawnSync(process.execPath, [path.join(dir, 'scripts', 'start.mjs'), '--check'], { encoding: 'utf8' });

async function start(dir: string): Promise<Child> {
  return startChild({ FW_DATA_DIR: path.join(dir, 'data'), FW_LOG_LEVEL: 'warn' }, path.join(dir, 'scripts', 'start.mjs'), /^listening on http:\/\/127\.0\.0\.1:(\d+)$/m);
}

async function stop(c: Child): Promise<void> {
  c.proc.kill('SIGTERM');
  expect(await c.exited).toBe(0);
}

test('npm start runs scripts/start.mjs', () => {
  // after the malloc settings (test/unit/malloc-env.test.ts)
  expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start).toMatch(/^(\S+=\S+ )*node scripts\/start\.mjs$/);
});

test('a fresh checkout starts and answers; started again with nothing changed, nothing is compiled; a changed source is', async () => {
  const dir = freshCheckout();
  expect({ status: check(dir).status, out: check(dir).stdout }).toEqual({ status: 1, out: 'to compile: daemon, console\n' });
  const first = await start(dir);
  expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
  expect((await fetch(`${first.url}/`, { headers: { Accept: 'text/html' } })).status).toBe(200); // the console was built too
  await stop(first);
  expect(check(dir)).toEqual(expect.objectContaining({ status: 0, stdout: 'dist is current\n' }));

  const outputs = ['dist/src/main.js', 'dist/src/app.js', 'dist/console/index.html'].map((f) => path.join(dir, f));
  const before = outputs.map((f) => fs.statSync(f).mtimeMs);
  const second = await start(dir);
  expect((await fetch(`${second.url}/api/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status).toBe(400);
  await stop(second);
  expect(outputs.map((f) => fs.statSync(f).mtimeMs)).toEqual(before);

  const later = new Date(Date.now() + 2000);
  fs.utimesSync(path.join(dir, 'src', 'errors.ts'), later, later);
  expect({ status: check(dir).status, out: check(dir).stdout }).toEqual({ status: 1, out: 'to compile: daemon\n' });
});
