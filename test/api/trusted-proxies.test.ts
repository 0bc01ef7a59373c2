// FW_TRUSTED_PROXIES: behind a load balancer every connection comes from the proxy; a proxy the
// operator lists names the client in X-Forwarded-For, and the login limit, the audit trail and
// the FW_METRICS allow-list then see that client. Without the setting the header is ignored
// (any client could write it). The test client stands in for the proxy: it connects from
// 127.0.0.1 and sends the header as haproxy and nginx append it.
import net from 'node:net';
import { ADMIN, ADMIN_PASSWORD, Client, expectError, startTestDaemon, type TestDaemon } from '../helpers/daemon';

const daemons: TestDaemon[] = [];
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()));
});

async function daemon(env: Record<string, string>): Promise<Client> {
  const d = await startTestDaemon(env);
  daemons.push(d);
  return new Client(d.url).login();
}

/** A login refused (wrong password) as forwarded by a proxy: its audit entry's "from ...". */
async function failedLoginFrom(c: Client, forwardedFor: string, username = ADMIN): Promise<string> {
  const r = await c.raw('POST', '/api/login', JSON.stringify({ username, password: 'not-the-password' }), { 'X-Forwarded-For': forwardedFor });
  expectError(r, 401, 'ERR_SEC_5005');
  const audit = await c.get('/api/audit?action=auth.login-failed&limit=1');
  expect(audit.body.entries[0].requestId).toBe(r.headers.get('x-request-id'));
  return audit.body.entries[0].details;
}

test('without FW_TRUSTED_PROXIES, X-Forwarded-For is ignored: the client is the connection\'s peer', async () => {
  const c = await daemon({});
  const from = await failedLoginFrom(c, '198.51.100.7');
  expect(from).toMatch(/^from (::ffff:)?127\.0\.0\.1$/);
});

describe('behind a trusted proxy', () => {
  let c: Client;
  beforeAll(async () => {
    c = await daemon({ FW_TRUSTED_PROXIES: '127.0.0.1, 10.9.0.0/16', FW_LOGIN_MAX_FAILURES: '1', FW_METRICS: '198.51.100.30' });
  });

  test('the client is the last address the proxies did not add; what the client wrote left of it is not believed', async () => {
    expect(await failedLoginFrom(c, '198.51.100.7', 'u1')).toBe('from 198.51.100.7');
    expect(await failedLoginFrom(c, '203.0.113.1, 198.51.100.7', 'u2')).toBe('from 198.51.100.7');
    // 10.9.1.1 is a trusted proxy (a second hop): skipped
    expect(await failedLoginFrom(c, '198.51.100.8, 10.9.1.1', 'u3')).toBe('from 198.51.100.8');
    // only proxies: the first one is the client
    expect(await failedLoginFrom(c, '10.9.1.1,10.9.1.2', 'u4')).toBe('from 10.9.1.1');
    // a proxy that wrote no address: the peer stays the client
    expect(await failedLoginFrom(c, 'unknown', 'u5')).toMatch(/^from (::ffff:)?127\.0\.0\.1$/);
  });

  test('X-Forwarded-For on several lines (haproxy adds its own line after the client\'s) is read as one list', async () => {
    const body = JSON.stringify({ username: 'w1', password: 'not-the-password' });
    const { hostname, port } = new URL(c.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const s = net.connect(Number(port), hostname, () => s.write(
        `POST /api/login HTTP/1.1\r\nHost: fwd\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`
        + 'X-Forwarded-For: 203.0.113.66\r\nX-Forwarded-For: 198.51.100.9\r\nX-Request-Id: two-lines\r\n\r\n' + body,
      ));
      let out = '';
      s.on('data', (b) => { out += b.toString(); });
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    const audit = await c.get('/api/audit?action=auth.login-failed&limit=1');
    expect(audit.body.entries[0]).toEqual(expect.objectContaining({ requestId: 'two-lines', details: 'from 198.51.100.9' }));
  });

  test('the login limit per client address counts each client behind the proxy on its own', async () => {
    // FW_LOGIN_MAX_FAILURES 1: four failures from one address close it (the address limit is 4x)
    for (const u of ['v1', 'v2', 'v3', 'v4']) await failedLoginFrom(c, '198.51.100.20', u);
    const refused = await c.raw('POST', '/api/login', JSON.stringify({ username: ADMIN, password: ADMIN_PASSWORD }), { 'X-Forwarded-For': '198.51.100.20' });
    expectError(refused, 429, 'ERR_SEC_5007');
    // another client through the same proxy logs in
    const other = await c.raw('POST', '/api/login', JSON.stringify({ username: ADMIN, password: ADMIN_PASSWORD }), { 'X-Forwarded-For': '198.51.100.21' });
    expect(other.status).toBe(200);
  });

  test('FW_METRICS allows the client the proxy names, not the proxy', async () => {
    const anonymous = new Client(c.url);
    expect((await anonymous.raw('GET', '/metrics', undefined, { 'X-Forwarded-For': '198.51.100.30' })).status).toBe(200);
    expectError(await anonymous.raw('GET', '/metrics', undefined, { 'X-Forwarded-For': '198.51.100.31' }), 401, 'ERR_SEC_5001');
    expectError(await anonymous.get('/metrics'), 401, 'ERR_SEC_5001');
  });
});

test('an FW_TRUSTED_PROXIES entry that is not an address or a network stops the start, naming it', async () => {
  await expect(startTestDaemon({ FW_TRUSTED_PROXIES: '127.0.0.1, proxy.example' })).rejects.toThrow('FW_TRUSTED_PROXIES: "proxy.example" is not an address or a network');
});
