// Issue 42, point 2: under systemd standard output is the journal, and JOURNAL_STREAM names it
// (device:inode). Then each log line starts with its sd-daemon(3) priority (<3> error, <4>
// warning, <6> info, <7> debug) and reads as text; the generated first admin password goes
// to a file only the daemon's user reads, never to the journal. A JOURNAL_STREAM that names
// another stream (inherited by a process whose output goes elsewhere) changes nothing: JSON,
// as everywhere else.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '../helpers/daemon';
import { MAIN } from '../helpers/process';
import { ownChild } from '../helpers/watchdog';
import { tempDir } from '../helpers/temp-dirs';

interface Run {
  dir: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** The daemon with its output to a file, JOURNAL_STREAM naming that file, or `stream` when given. */
async function start(stream?: string): Promise<Run> {
  const dir = tempDir('fwd-journal-');
  const out = path.join(dir, 'out');
  const fd = fs.openSync(out, 'w');
  const st = fs.fstatSync(fd, { bigint: true });
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, FW_PORT: '0', FW_DATA_DIR: path.join(dir, 'data'), FW_INTERFACES: 'eth0', JOURNAL_STREAM: stream ?? `${st.dev}:${st.ino}` },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  ownChild(proc);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const output = () => fs.readFileSync(out, 'utf8');
  const deadline = Date.now() + 60_000;
  while (!/^listening on /m.test(output())) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`the daemon did not start: ${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { dir, output, stop: async () => { proc.kill('SIGTERM'); await exited; } };
}

test('connected to the journal: priority prefixes and text; the first password in a 0600 file, not in the journal', async () => {
  const run = await start();
  try {
    const url = /^listening on (http:\S+)$/m.exec(run.output())![1];
    const file = path.join(run.dir, 'data', 'initial-admin-password');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const password = /with password: (\S+)/.exec(fs.readFileSync(file, 'utf8'))![1];
    await new Client(url).login('admin', password);
    expect((await new Client(url).post('/api/login', { username: 'admin', password: 'not-the-password' })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 1500)); // the log is written out every second
    const out = run.output();
    expect(out).not.toContain(password);
    expect(out).toContain(`initial admin account "admin": its password is in ${file} (readable by the daemon's user only)`);
    const lines = out.split('\n').filter((l) => l && !/^(listening on|initial admin account)/.test(l));
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.filter((l) => !/^<[2-7]>\S/.test(l))).toEqual([]);
    expect(lines.filter((l) => l.includes('"level":'))).toEqual([]);
    expect(out).toMatch(/^<6>listening port=\d+ host=127\.0\.0\.1 tls=false store=embedded /m);
    expect(out).toMatch(/^<4>glibc malloc settings missing from the environment: .* missing=\["MALLOC_ARENA_MAX","MALLOC_MMAP_THRESHOLD_"\]/m);
    expect(out).toMatch(/^<4>login failed reqId=\S+ username=admin ip=127\.0\.0\.1$/m);
  } finally {
    await run.stop();
  }
  expect(run.output()).toMatch(/^<6>stopped$/m);
}, 90_000);

test('JOURNAL_STREAM naming another stream: JSON lines, as everywhere else', async () => {
  const run = await start('1:1');
  try {
    await new Promise((r) => setTimeout(r, 1500));
    const logLines = run.output().split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(3);
    expect(logLines.map((l) => JSON.parse(l).msg)).toContain('listening');
    expect(run.output()).not.toMatch(/^<\d>/m);
    expect(run.output()).toMatch(/^initial admin account "admin" with password: \S+$/m); // the terminal's case
  } finally {
    await run.stop();
  }
}, 90_000);
