// Issue 42, point 2: ExecReload sends SIGHUP, and the daemon reads its settings file
// (FW_ENV_FILE, the unit's /etc/fwd/fwd.env) again itself: the log level and the syslog
// targets change in the running process, without dropping a connection (an open event stream
// goes on, a syslog target kept keeps its TCP connection); a changed setting that needs a
// restart is named and left as it was; a file with an invalid setting changes nothing. The
// manager hears RELOADING=1, then READY=1 with a STATUS that says what the reload did.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ADMIN_PASSWORD, Client, ok } from '../helpers/daemon';
import { FakeNotifySocket } from '../helpers/notify-socket';
import { MAIN } from '../helpers/process';
import { startService, stopService, type ServiceProcess } from '../helpers/service-unit';
import { openEvents, type SseStream } from '../helpers/sse';
import { tempDir } from '../helpers/temp-dirs';
import { parseEnvFile } from '../../src/service/env-file';

/** A syslog receiver over TCP: its connections and what it was sent. */
class Receiver {
  connections = 0;
  open = 0;
  text = '';
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((s) => {
    this.sockets.add(s);
    this.connections++;
    this.open++;
    s.on('data', (b) => { this.text += b.toString('utf8'); });
    s.on('close', () => { this.open--; });
    s.on('error', () => undefined);
  });

  port = 0;

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  get url(): string {
    return `tcp://127.0.0.1:${this.port}`;
  }

  async got(what: string, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.text.includes(what)) {
      if (Date.now() > deadline) throw new Error(`${this.url} did not receive ${what}; it has: ${this.text.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let d: ServiceProcess;
let sock: FakeNotifySocket;
let a: Receiver;
let b: Receiver;
let envFile: string;
let stream: SseStream | undefined;

beforeAll(async () => {
  a = await new Receiver().listen();
  b = await new Receiver().listen();
  sock = await FakeNotifySocket.open();
  const dir = tempDir('fwd-reload-');
  envFile = path.join(dir, 'fwd.env');
  fs.writeFileSync(envFile, `# as /etc/fwd/fwd.env\nFW_LOG_LEVEL=info\nFW_SYSLOG=${a.url}\nFW_PORT=0\n`);
  // as systemd starts the unit: the file's assignments in the environment, FW_ENV_FILE naming it
  d = await startService([process.execPath, MAIN], {
    ...parseEnvFile(fs.readFileSync(envFile, 'utf8')), FW_ENV_FILE: envFile, FW_DATA_DIR: path.join(dir, 'data'),
    FW_INTERFACES: 'eth0', FW_ADMIN_PASSWORD: ADMIN_PASSWORD, NOTIFY_SOCKET: sock.path,
  });
  await sock.next((n) => n.fields.READY === '1');
}, 60_000);

afterAll(async () => {
  stream?.close();
  await stopService(d);
  sock?.close();
  await a?.close();
  await b?.close();
});

/** Waits until the daemon's output matches `re` (its log is written out every second). */
async function logged(re: RegExp, ms = 10_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = re.exec(d.output());
    if (m) return m[0];
    if (Date.now() > deadline) throw new Error(`the log has no line matching ${re}: ${d.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const debugReads = () => d.output().split('\n').filter((l) => /"level":20[^\n]*"path":"\/api\/status"[^\n]*"msg":"request"/.test(l)).length;

/** Writes the settings file, sends SIGHUP and returns the READY=1 (or STATUS) that ends the reload. */
async function reload(content: string): Promise<string> {
  fs.writeFileSync(envFile, content);
  const from = sock.received.length;
  d.proc.kill('SIGHUP');
  const done = await sock.next((n) => n.fields.READY === '1', 15_000, from);
  expect(sock.received.slice(from)[0].fields).toEqual({ RELOADING: '1', STATUS: 'reloading the settings file' });
  return done.fields.STATUS;
}

test('SIGHUP applies a new log level and syslog targets; the port needs a restart and stays; the event stream and the kept target\'s connection stay open', async () => {
  const c = await new Client(d.url).login();
  await a.got('action="auth.login"');
  expect(a.connections).toBe(1);
  stream = await openEvents(d.url, '/api/events', { Authorization: `Bearer ${c.token}` });
  expect(stream.status).toBe(200);
  await ok(c.get('/api/status'));
  expect(d.output()).not.toMatch(/"level":20[^\n]*"path":"\/api\/status"/); // reads are logged at debug only

  const status = await reload(`FW_LOG_LEVEL=debug\nFW_SYSLOG=${a.url},${b.url}\nFW_PORT=1\n`);
  expect(status).toMatch(/^ready: serving version 0, API on http:\/\/127\.0\.0\.1:\d+; reloaded \(FW_LOG_LEVEL, FW_SYSLOG; a restart applies FW_PORT\)$/);
  await logged(/"applied":\["FW_LOG_LEVEL","FW_SYSLOG"\],"needRestart":\["FW_PORT"\],"msg":"settings reloaded"/);
  await logged(/"level":40[^\n]*"needRestart":\["FW_PORT"\][^\n]*"msg":"changed settings that only a restart applies"/);

  // the log level: reads are logged now
  await ok(c.get('/api/status'));
  await logged(/"level":20[^\n]*"path":"\/api\/status"[^\n]*"msg":"request"/);
  // both targets get the next audit entry; the kept one on the connection it had
  await c.begin();
  await a.got('action="session.begin"');
  await b.got('action="session.begin"');
  expect({ a: a.connections, b: b.connections, aOpen: a.open }).toEqual({ a: 1, b: 1, aOpen: 1 });
  // the event stream opened before the reload still carries events; the old port still serves
  await stream.next((m) => m.event === 'session', 'the session event on the stream opened before the reload');
  expect((await fetch(`${d.url}/readyz`)).status).toBe(200);
}, 60_000);

test('a file with an invalid setting changes nothing: STATUS says why, the level and targets stay', async () => {
  const status = await reload(`FW_LOG_LEVEL=info\nFW_SYSLOG=${a.url},bogus\n`);
  expect(status).toMatch(/; reload refused: FW_SYSLOG: "bogus" is not udp:\/\/host:port, tcp:\/\/host:port or tls:\/\/host:port$/);
  const c = await new Client(d.url).login();
  await b.got('action="auth.login"'); // b is still a target
  const before = debugReads();
  await ok(c.get('/api/status'));
  const until = Date.now() + 5000;
  while (debugReads() === before && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  expect(debugReads()).toBe(before + 1); // still at debug

  // a target removed is closed; with none left, nothing is forwarded
  const again = await reload('FW_LOG_LEVEL=info\n');
  expect(again).toMatch(/; reloaded \(FW_LOG_LEVEL, FW_SYSLOG; a restart applies FW_PORT\)$/);
  const deadline = Date.now() + 5000;
  while ((a.open > 0 || b.open > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect({ aOpen: a.open, bOpen: b.open }).toEqual({ aOpen: 0, bOpen: 0 });
  await c.post('/api/config/discard');
  await new Promise((r) => setTimeout(r, 500));
  expect(a.text).not.toContain('action="session.discard"');
}, 60_000);
