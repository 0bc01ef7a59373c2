// One daemon per data directory: a second one refuses to start, a dead one's lock is taken over.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { EmbeddedStore } from '../../src/store/embedded';
import { markerDoc, openStore, removeTmpDirs, tmpDir } from './helpers';

afterAll(removeTmpDirs);

const CHILD = path.join(__dirname, 'fixtures', 'crash-child.js');

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

const lockOf = (dir: string) => path.join(dir, 'daemon.pid');

test('a second open in the same process fails with a clear message', async () => {
  const dir = await tmpDir();
  const first = await openStore(dir);
  await expect(new EmbeddedStore({ dir }).open(() => markerDoc(0))).rejects.toThrow(
    `data directory ${dir} is in use by another daemon (pid ${process.pid})`,
  );
  expect((await first.runningVersion()).version).toBe(0); // the first one is unharmed
  await first.close();
  expect(fs.existsSync(lockOf(dir))).toBe(false);
  const again = await openStore(dir);
  await again.close();
});

test('a second daemon refuses to start while the first runs, and starts once it is gone', async () => {
  const dir = await tmpDir();
  const child = spawn(process.execPath, [CHILD, dir, 'hold'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const lines = readline.createInterface({ input: child.stdout! });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  try {
    const err = await new EmbeddedStore({ dir }).open(() => markerDoc(0)).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe(`data directory ${dir} is in use by another daemon (pid ${child.pid})`);
    expect(err?.name).toBe('DataDirLocked');
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  const store = await openStore(dir); // its pid is dead now: the stale lock is taken over
  expect(fs.readFileSync(lockOf(dir), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
  await store.close();
});

test('a stale pid file of a dead process is taken over', async () => {
  const dir = await tmpDir();
  const pid = await deadPid();
  fs.writeFileSync(lockOf(dir), `${pid}\n`);
  const warnings: object[] = [];
  const store = new EmbeddedStore({ dir, logger: { info: () => undefined, warn: (o) => warnings.push(o) } });
  await store.open(() => markerDoc(0));
  expect(warnings).toContainEqual(expect.objectContaining({ pid }));
  expect(fs.readFileSync(lockOf(dir), 'utf8').split(' ')[0]).toBe(String(process.pid));
  await store.close();
  expect(fs.existsSync(lockOf(dir))).toBe(false);
});

test('a pid file with our own pid (a previous life, e.g. a restarted container) is taken over', async () => {
  const dir = await tmpDir();
  fs.writeFileSync(lockOf(dir), `${process.pid} 1\n`);
  const store = await openStore(dir);
  await store.close();
});

test('a pid file of a live process started at another time (pid reused) is taken over', async () => {
  const dir = await tmpDir();
  fs.writeFileSync(lockOf(dir), `${process.ppid} 12345\n`); // alive, but not the process that wrote it
  const store = await openStore(dir);
  await store.close();
});

test('a pid file without a pid is taken over', async () => {
  const dir = await tmpDir();
  fs.writeFileSync(lockOf(dir), 'garbage');
  const store = await openStore(dir);
  await store.close();
});
