// Graceful shutdown of the real daemon process on SIGTERM: it stops accepting connections,
// finishes the request in flight (here a commit whose body is still arriving when the signal
// comes), flushes its log and exits 0; the commit is durable.
import { spawn, type ChildProcess } from 'node:child_process';
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
