// FW_SYSLOG against a real receiver: Debian's rsyslogd, started here on free ports (imudp,
// imtcp, imtcp with TLS), which writes what it parsed of each message to a file read back.
// Audited changes made over HTTP arrive as RFC 5424 messages on udp://, tcp:// and tls://;
// a restarted receiver gets what was buffered meanwhile; a receiver that is down costs the
// API nothing and every message lost is counted.
import os from 'node:os';
import pino from 'pino';
import { Client, ok, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { fixedPort } from '../helpers/redis';
import { startRsyslog, type Input, type Received, type TestRsyslog } from '../helpers/rsyslog';
import { makeCert, type TestCert } from '../helpers/tls';
import { tempDir } from '../helpers/temp-dirs';
import { SyslogForwarder } from '../../src/syslog/forwarder';
import { parseSyslogTargets } from '../../src/syslog/targets';
import { trafficRecord } from '../../src/syslog/records';

jest.setTimeout(90_000);

let cert: TestCert;
let rs: TestRsyslog;

beforeAll(async () => {
  cert = makeCert(tempDir(), 'rsyslog');
  rs = await startRsyslog(cert);
});

afterAll(async () => {
  await rs?.stop();
});

const daemons: TestDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.close()));
});

async function daemon(env: Record<string, string>): Promise<{ d: TestDaemon; c: Client }> {
  const d = await startTestDaemon(env);
  daemons.push(d);
  return { d, c: await new Client(d.url).login() };
}

function url(input: Input, port = rs.ports[input]): string {
  return `${input}://127.0.0.1:${port}`;
}

/** The audit message of the creation of user `name`. */
const userCreated = (name: string) => (r: Received) => r.msgid === 'AUDIT' && r.sd['audit@32473']?.action === 'user.create' && r.msg === name;

async function createUser(c: Client, name: string, reqId = `req-${name}`): Promise<void> {
  const r = await c.raw('POST', '/api/users', JSON.stringify({ username: name, password: 'a-long-password-1' }), { 'X-Request-Id': reqId });
  expect(r.status).toBe(200);
}

/** The value of a /metrics series with label target="`target`". */
async function metric(c: Client, name: string, target: string): Promise<number> {
  const text = (await ok(c.get('/metrics'))).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{target="${target}"}`));
  if (!line) throw new Error(`no ${name} for ${target} in /metrics`);
  return Number(line.split(' ').pop());
}

async function targetStatus(c: Client, target: string) {
  const all = (await ok(c.get('/api/status'))).body.syslog as Array<{ target: string }>;
  return all.find((s) => s.target === target) as { target: string; connected: boolean; buffered: number; sent: number; dropped: number; lastError: string | null };
}

/** Polls the status of `target` until `ok` holds (the forwarder's state changes on its own). */
async function statusUntil(c: Client, target: string, cond: (s: Awaited<ReturnType<typeof targetStatus>>) => boolean) {
  for (let i = 0; ; i++) {
    const s = await targetStatus(c, target);
    if (cond(s)) return s;
    if (i > 400) throw new Error(`status of ${target} never matched: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('an audited change made over HTTP reaches udp, tcp and tls receivers as RFC 5424 messages', async () => {
  const targets = [url('udp'), url('tcp'), url('tls')];
  const { c } = await daemon({ FW_SYSLOG: targets.join(','), FW_SYSLOG_CA: cert.cert });
  await createUser(c, 'syslog-bob', 'syslog-req-1');
  for (const input of ['udp', 'tcp', 'tls'] as const) {
    const r = await rs.waitFor(input, userCreated('syslog-bob'));
    expect(r).toEqual({
      pri: 13 * 8 + 5, // facility log audit, severity notice
      version: '1',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|\+00:00)$/),
      hostname: os.hostname(),
      app: 'fwd',
      procid: String(process.pid),
      msgid: 'AUDIT',
      sd: { 'audit@32473': { action: 'user.create', user: 'admin', role: 'admin', req_id: 'syslog-req-1' } },
      msg: 'syslog-bob',
      raw: expect.stringMatching(/^<109>1 \S+Z \S+ fwd \d+ AUDIT \[audit@32473 action="user\.create" user="admin" role="admin" req_id="syslog-req-1"\] syslog-bob$/),
    });
    expect(Math.abs(Date.parse(r.timestamp) - Date.now())).toBeLessThan(60_000);
  }
  // the login before it went the same way
  await rs.waitFor('tcp', (r) => r.sd['audit@32473']?.action === 'auth.login' && r.sd['audit@32473']?.user === 'admin');
  for (const t of targets) {
    expect(await targetStatus(c, t)).toEqual({ target: t, connected: true, buffered: 0, sent: expect.any(Number), dropped: 0, lastError: null });
    expect(await metric(c, 'fwd_syslog_messages_sent_total', t)).toBeGreaterThanOrEqual(2);
    expect(await metric(c, 'fwd_syslog_messages_dropped_total', t)).toBe(0);
    expect(await metric(c, 'fwd_syslog_connected', t)).toBe(1);
  }
});

test('a traffic record: structured data escaped as RFC 5424 says, the receiver decodes every value as it was sent', async () => {
  const forwarder = new SyslogForwarder({ targets: parseSyslogTargets(`${url('tcp')},${url('udp')}`), buffer: 100, verify: true, log: pino({ level: 'silent' }) });
  try {
    const policy = 'web "prod" \\ with a backslash ] and a bracket ✓';
    forwarder.forward(trafficRecord({
      time: Date.UTC(2026, 0, 2, 3, 4, 5, 678), policyId: 'p-17', policyName: policy, action: 'accept', protocol: 'tcp',
      src: '10.0.0.5', sport: 40000, dst: '2001:db8::10', dport: 443, srcZone: 'lan', dstZone: 'réseau', inInterface: 'eth1', outInterface: 'eth0',
      nat: { src: '192.0.2.1', sport: 61000 },
    }));
    for (const input of ['tcp', 'udp'] as const) {
      const r = await rs.waitFor(input, (m) => m.msgid === 'TRAFFIC' && m.timestamp.startsWith('2026-01-02T03:04:05.678'));
      expect(r.pri).toBe(16 * 8 + 6); // local0, info
      expect(r.sd).toEqual({ 'traffic@32473': {
        action: 'accept', policy_id: 'p-17', policy, proto: 'tcp', src: '10.0.0.5', sport: '40000', dst: '2001:db8::10', dport: '443',
        src_zone: 'lan', dst_zone: 'réseau', in_if: 'eth1', out_if: 'eth0', nat_src: '192.0.2.1', nat_sport: '61000',
      } });
      // a UTF-8 MSG starts with the byte order mark (RFC 5424 6.4)
      expect(r.raw.endsWith(` \ufeffaccept tcp 10.0.0.5:40000 -> [2001:db8::10]:443 by ${policy}`)).toBe(true);
    }
  } finally {
    await forwarder.close();
  }
});

test('a restarted receiver: forwarding resumes by itself, and what was buffered meanwhile arrives in order', async () => {
  const targets = [url('tcp'), url('tls')];
  const { c } = await daemon({ FW_SYSLOG: targets.join(','), FW_SYSLOG_CA: cert.cert });
  await createUser(c, 'before-stop');
  await rs.waitFor('tls', userCreated('before-stop'));
  await rs.stop();
  try {
    for (const t of targets) await statusUntil(c, t, (s) => !s.connected);
    await createUser(c, 'while-down-1');
    await createUser(c, 'while-down-2');
    for (const t of targets) expect(await targetStatus(c, t)).toMatchObject({ connected: false, buffered: 2, dropped: 0, lastError: expect.any(String) });
  } finally {
    await rs.start();
  }
  for (const input of ['tcp', 'tls'] as const) {
    const first = await rs.waitFor(input, userCreated('while-down-1'));
    const second = await rs.waitFor(input, userCreated('while-down-2'));
    const order = rs.received(input);
    expect(order.indexOf(order.find(userCreated('while-down-1'))!)).toBeLessThan(order.indexOf(order.find(userCreated('while-down-2'))!));
    expect([first.msg, second.msg]).toEqual(['while-down-1', 'while-down-2']);
  }
  await createUser(c, 'after-restart');
  for (const input of ['tcp', 'tls'] as const) await rs.waitFor(input, userCreated('after-restart'));
  for (const t of targets) expect(await targetStatus(c, t)).toMatchObject({ connected: true, buffered: 0, dropped: 0, lastError: null });
});

test('a receiver that is down: the API answers as usual, and every message lost is counted', async () => {
  const target = `tcp://127.0.0.1:${await fixedPort()}`; // nothing listens there
  const { c } = await daemon({ FW_SYSLOG: target, FW_SYSLOG_BUFFER: '2' });
  await createUser(c, 'fill-1');
  await createUser(c, 'fill-2'); // with the login: 3 entries, the buffer holds 2
  const before = await statusUntil(c, target, (s) => s.lastError !== null);
  expect(before).toMatchObject({ connected: false, buffered: 2, sent: 0, lastError: expect.stringMatching(/ECONNREFUSED/) });
  for (let i = 0; i < 5; i++) await createUser(c, `lost-${i}`);
  const after = await targetStatus(c, target);
  expect(after).toMatchObject({ connected: false, buffered: 2, sent: 0, dropped: before.dropped + 5 });
  expect(await metric(c, 'fwd_syslog_messages_dropped_total', target)).toBe(after.dropped);
  expect(await metric(c, 'fwd_syslog_messages_buffered', target)).toBe(2);
  expect(await metric(c, 'fwd_syslog_connected', target)).toBe(0);
  // the trail itself holds every entry
  expect((await ok(c.get('/api/audit?action=user.create'))).body.entries.length).toBe(7);
});

test('tls:// checks the receiver\'s certificate by default; FW_SYSLOG_TLS_VERIFY=off does not', async () => {
  const target = url('tls');
  const strict = await daemon({ FW_SYSLOG: target });
  expect(await statusUntil(strict.c, target, (s) => s.lastError !== null)).toMatchObject({ connected: false, lastError: expect.stringMatching(/self-signed certificate/) });
  const lax = await daemon({ FW_SYSLOG: target, FW_SYSLOG_TLS_VERIFY: 'off' });
  await createUser(lax.c, 'unverified');
  await rs.waitFor('tls', userCreated('unverified'));
  expect(await targetStatus(lax.c, target)).toMatchObject({ connected: true, lastError: null });
});
