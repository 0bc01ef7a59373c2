// Graceful shutdown of the real daemon process on SIGTERM: it stops accepting connections,
// finishes the request in flight (here a commit whose body is still arriving when the signal
// comes), flushes its log and exits 0; the commit is durable. It also stops when nobody reads
// its log any more, and exits 1 on a disk that fills up.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { EmbeddedStore } from '../../src/store/embedded';
import { ADMIN_PASSWORD, Client, ok, tempDir } from '../helpers/daemon';

const dir = tempDir('fwd-shutdown-');
let proc: ChildProcess | undefined;
let out = '';

afterAll(() => {
  if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Whether a new TCP connection to the port is accepted. */
function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/** Resolves once the daemon's output matches `re` (no deadline: jest's timeout bounds it). */
function waitFor(re: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve) => {
    const look = () => {
      const m = re.exec(out);
      if (m) {
        proc!.stdout!.off('data', look);
        resolve(m);
      }
    };
    proc!.stdout!.on('data', look);
    look();
  });
}

test('SIGTERM: the commit in flight completes and is durable, new connections are refused, the log is flushed, exit 0', async () => {
  proc = spawn(process.execPath, [path.resolve(__dirname, '../../src/main.js')], {
    env: { ...process.env, FW_PORT: '0', FW_HOST: '127.0.0.1', FW_DATA_DIR: dir, FW_ADMIN_PASSWORD: ADMIN_PASSWORD, FW_INTERFACES: 'eth0,eth1', FW_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  proc.stdout!.on('data', (b: Buffer) => { out += b.toString(); });
  const exited = new Promise<number | null>((resolve) => proc!.on('exit', (code) => resolve(code)));
  const port = Number((await waitFor(/"port":(\d+)[^\n]*"msg":"listening"/))[1]);
  const c = await new Client(`http://127.0.0.1:${port}`).login();
  await c.begin();
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3' }));

  // the commit request: headers and the first half of the body, then the signal
  const body = JSON.stringify({ description: 'committed while stopping' });
  const sock = net.connect(port, '127.0.0.1');
  await new Promise<void>((r) => sock.once('connect', () => r()));
  const answer = new Promise<string>((resolve) => {
    let text = '';
    sock.on('data', (b: Buffer) => { text += b.toString(); });
    sock.on('close', () => resolve(text));
  });
  sock.write(`POST /api/config/commit HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${c.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`);
  // signal once the daemon counts the commit in flight (beside the scrape asking)
  while (Number(/^fwd_http_requests_in_flight (\d+)$/m.exec((await ok(c.get('/metrics'))).text)?.[1]) < 2) {
    await new Promise((r) => setTimeout(r, 20));
  }
  proc.kill('SIGTERM');
  // the daemon has taken the signal once a new connection is refused (the log is buffered:
  // its lines come out at the end)
  while (await connects(port)) await new Promise((r) => setTimeout(r, 20));
  sock.write(body.slice(10));
  const text = await answer;
  expect(text).toMatch(/^HTTP\/1\.1 200 /);
  expect(text).toContain('"message":"commit successful"');
  expect(await exited).toBe(0);
  expect(out).toMatch(/"signal":"SIGTERM","msg":"shutting down"/);
  expect(out).toMatch(/"msg":"stopped"/); // the last line reached the log

  const store = new EmbeddedStore({ dir });
  await store.open(() => { throw new Error('the store exists'); });
  try {
    expect(await store.runningVersion()).toEqual(expect.objectContaining({ version: 1, description: 'committed while stopping' }));
  } finally {
    await store.close();
  }
}, 60_000);

test('SIGTERM when the log\'s reader is gone (a broken pipe on stdout): the daemon still exits, at once', async () => {
  const quiet = tempDir('fwd-shutdown-epipe-');
  const child = spawn(process.execPath, [path.resolve(__dirname, '../../src/main.js')], {
    env: { ...process.env, FW_PORT: '0', FW_HOST: '127.0.0.1', FW_DATA_DIR: quiet, FW_ADMIN_PASSWORD: ADMIN_PASSWORD, FW_INTERFACES: 'eth0', FW_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let text = '';
    const port = await new Promise<number>((resolve) => {
      const look = (b: Buffer) => {
        text += b.toString();
        const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(text);
        if (m) { child.stdout!.off('data', look); resolve(Number(m[1])); }
      };
      child.stdout!.on('data', look);
    });
    // requests whose log lines wait in the daemon's buffer, then nobody reads its stdout any
    // more (a log shipper that died), then the signal: the lines cannot be written anywhere
    const c = await new Client(`http://127.0.0.1:${port}`).login();
    for (let i = 0; i < 20; i++) await ok(c.get('/api/me'));
    child.stdout!.destroy();
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'hung'>((r) => { timer = setTimeout(() => r('hung'), 10_000); })]);
    clearTimeout(timer);
    expect(code).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(quiet, { recursive: true, force: true });
  }
}, 30_000);

test('a disk that fills up: the failed write is refused with 503, the daemon logs why and exits 1', async () => {
  // a small tmpfs of its own (root, as the data-plane tests): ENOSPC comes from a real disk
  const mount = tempDir('fwd-shutdown-full-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount]);
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [path.resolve(__dirname, '../../src/main.js')], {
      env: { ...process.env, FW_PORT: '0', FW_HOST: '127.0.0.1', FW_DATA_DIR: mount, FW_ADMIN_PASSWORD: ADMIN_PASSWORD, FW_INTERFACES: 'eth0', FW_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    let text = '';
    child.stdout!.on('data', (b: Buffer) => { text += b.toString(); });
    while (!/"msg":"listening"/.test(text)) await new Promise((r) => setTimeout(r, 20));
    const port = Number(/"port":(\d+)/.exec(text)![1]);
    const c = await new Client(`http://127.0.0.1:${port}`).login();
    await c.begin();
    fillDisk(path.join(mount, 'filler'));
    // the journal's last page still has room for a few changes
    let r = await c.post('/api/addresses', { name: 'a0', ips: ['10.0.0.1/32'] });
    for (let i = 1; r.status === 200 && i < 1000; i++) r = await c.post('/api/addresses', { name: `a${i}`, ips: ['10.0.0.1/32'] });
    expect(r.status).toBe(503);
    expect(r.body.code).toBe('ERR_SYS_4002');
    expect(await exited).toBe(1);
    expect(text).toMatch(/"msg":"store write failed; exiting"/);
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    execFileSync('umount', ['-l', mount]);
    fs.rmSync(mount, { recursive: true, force: true });
  }
}, 30_000);

/** Writes zeros to `file` until the file system has no room left. */
function fillDisk(file: string): void {
  const chunk = Buffer.alloc(64 * 1024);
  const fd = fs.openSync(file, 'w');
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    fs.closeSync(fd);
  }
}
