// Issue 42, points 2 and 3: the daemon tells the service manager the truth, without systemd on
// the test machine: a notification socket played by the test (NOTIFY_SOCKET) receives
// READY=1 once GET /readyz answers 200 and not before (also when the data plane only becomes
// able to enforce later, and never when it lacks a capability: a STATUS line says why),
// WATCHDOG=1 at half the watchdog interval and none while the process is stopped, STOPPING=1
// on SIGTERM. The daemon runs as a child process (dist/src/main.js), as systemd would run it.
import { randomBytes } from 'node:crypto';
import { ADMIN_PASSWORD, Client, ok } from '../helpers/daemon';
import { requireLab, sh } from '../helpers/netns';
import { FakeNotifySocket, type Notification } from '../helpers/notify-socket';
import { MAIN } from '../helpers/process';
import { startService, stopService, type ServiceProcess } from '../helpers/service-unit';
import { tempDir } from '../helpers/temp-dirs';
import { requirePackages } from '../helpers/packages';

const sockets: FakeNotifySocket[] = [];
const daemons: ServiceProcess[] = [];
const namespaces: string[] = [];

afterAll(async () => {
  for (const d of daemons) await stopService(d, 'SIGKILL');
  for (const s of sockets) s.close();
  for (const ns of namespaces) {
    try {
      sh(['ip', 'netns', 'delete', ns]);
    } catch {
      // not made, or gone
    }
  }
});

async function start(env: Record<string, string>, wrapper: string[] = []): Promise<{ d: ServiceProcess; sock: FakeNotifySocket }> {
  const sock = await FakeNotifySocket.open();
  sockets.push(sock);
  const d = await startService([...wrapper, process.execPath, MAIN], {
    FW_PORT: '0', FW_DATA_DIR: tempDir('fwd-notify-data-'), FW_INTERFACES: 'fw1', FW_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FW_LOG_LEVEL: 'info', NOTIFY_SOCKET: sock.path, ...env,
  });
  daemons.push(d);
  return { d, sock };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls /readyz every 50 ms until READY=1 arrives; what it saw, with its times. */
async function readyzUntilReady(url: string, sock: FakeNotifySocket, ms = 60_000): Promise<{ ready: Notification; answers: Array<{ sent: number; status: number }> }> {
  const answers: Array<{ sent: number; status: number }> = [];
  const ready = sock.next((n) => n.fields.READY === '1', ms);
  let got: Notification | null = null;
  void ready.then((n) => { got = n; }, () => undefined);
  while (!got) {
    const sent = Date.now();
    answers.push({ sent, status: (await fetch(`${url}/readyz`)).status });
    await Promise.race([sleep(50), ready.catch(() => undefined)]);
    if (Date.now() - answers[0].sent > ms) break;
  }
  return { ready: await ready, answers };
}

test('READY=1 within 1 s of /readyz turning 200, not before; STATUS lines; WATCHDOG=1 at half the interval, none while stopped; STOPPING=1 on SIGTERM', async () => {
  const { d, sock } = await start({ WATCHDOG_USEC: '600000' });
  const { ready, answers } = await readyzUntilReady(d.url, sock);
  // the manager hears READY only of a daemon whose /readyz answers 200 ...
  expect((await fetch(`${d.url}/readyz`)).status).toBe(200);
  const first200 = answers.find((a) => a.status === 200);
  // ... and within a second of the first 200 seen (READY may come before the poll saw it)
  if (first200) expect(ready.at - first200.sent).toBeLessThanOrEqual(1000);
  expect(ready.fields.STATUS).toMatch(/^ready: serving version 0, API on http:\/\/127\.0\.0\.1:\d+$/);
  expect(sock.received[0].fields.STATUS).toBe('starting: opening the store, compiling and enforcing the running version');
  expect(sock.with('READY')).toHaveLength(1);

  // WATCHDOG=1 every 300 ms (half of 0.6 s): about 10 in 3 s, never more (one at a time; a
  // loaded machine may send fewer, each ping being a process to start)
  const from = sock.received.length;
  await sleep(3000);
  const pings = sock.received.slice(from).filter((n) => n.fields.WATCHDOG === '1');
  expect(pings.length).toBeGreaterThanOrEqual(3);
  expect(pings.length).toBeLessThanOrEqual(11);
  // a stopped process (as stuck as an event loop can be) sends none; it sends again once resumed
  d.proc.kill('SIGSTOP');
  await sleep(200); // one already on its way may still arrive
  const stoppedAt = Date.now();
  await sleep(1500);
  const whileStopped = sock.received.filter((n) => n.fields.WATCHDOG === '1' && n.at > stoppedAt);
  d.proc.kill('SIGCONT');
  expect(whileStopped).toEqual([]);
  await sock.next((n) => n.fields.WATCHDOG === '1' && n.at > stoppedAt, 5000);

  d.proc.kill('SIGTERM');
  const stopping = await sock.next((n) => n.fields.STOPPING === '1', 10_000);
  expect(stopping.fields.STATUS).toBe('stopping: finishing the requests in flight');
  expect(await d.exited).toBe(0);
  expect(sock.with('READY')).toHaveLength(1);
}, 120_000);

describe('with the data plane in a network namespace', () => {
  beforeAll(() => {
    requireLab();
    requirePackages([['setpriv', 'util-linux']], 'the notify tests');
  });

  function makeNamespace(ns: string): void {
    sh(['ip', 'netns', 'add', ns]);
    sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
    sh(['ip', '-n', ns, 'link', 'add', 'fw1', 'type', 'veth', 'peer', 'name', 'fw1p']);
  }

  test('without CAP_SYS_ADMIN (needed to enter the namespace): no READY, and a STATUS line that says why', async () => {
    const ns = `fwd-${process.pid}-${randomBytes(3).toString('hex')}-nc`;
    namespaces.push(ns);
    makeNamespace(ns);
    const { d, sock } = await start({ FW_DATAPLANE: 'linux', FW_NETNS: ns }, ['setpriv', '--inh-caps=-all', '--bounding-set=-sys_admin']);
    const status = await sock.next((n) => /^not ready: dataplane: /.test(n.fields.STATUS ?? ''));
    expect(status.fields.STATUS).toMatch(/needs root, or CAP_NET_ADMIN and CAP_SYS_ADMIN \(FW_NETNS\).*this process lacks CAP_SYS_ADMIN/);
    await sleep(3000); // what a READY would need: more than enough
    expect((await fetch(`${d.url}/readyz`)).status).toBe(503);
    expect(sock.with('READY')).toEqual([]);
  }, 90_000);

  test('a namespace that appears later: not ready (STATUS says why) until a commit enforces there, then READY=1 after /readyz turns 200', async () => {
    const ns = `fwd-${process.pid}-${randomBytes(3).toString('hex')}-late`;
    namespaces.push(ns);
    const { d, sock } = await start({ FW_DATAPLANE: 'linux', FW_NETNS: ns });
    const status = await sock.next((n) => /^not ready: dataplane: /.test(n.fields.STATUS ?? ''));
    expect(status.fields.STATUS).toMatch(/the kernel holds no version of ours, not the running version 0/);
    expect(status.fields.STATUS).toContain(ns);
    expect((await fetch(`${d.url}/readyz`)).status).toBe(503);
    expect(sock.with('READY')).toEqual([]);
    makeNamespace(ns);
    const c = await new Client(d.url).login();
    await c.begin();
    await ok(c.post('/api/addresses', { name: 'web', ips: ['10.0.0.10/32'] }));
    await c.commit();
    const { ready, answers } = await readyzUntilReady(d.url, sock);
    // no 503 was answered to a request sent after READY=1 arrived
    expect(answers.filter((a) => a.sent >= ready.at && a.status !== 200)).toEqual([]);
    const first200 = answers.find((a) => a.status === 200);
    if (first200) expect(ready.at - first200.sent).toBeLessThanOrEqual(1000);
    expect(ready.fields.STATUS).toMatch(new RegExp(`^ready: enforcing on ${ns} version 1, API on `));
  }, 120_000);
});
