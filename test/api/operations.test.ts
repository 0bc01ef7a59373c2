// What operators' tools call: /healthz, /readyz (with checks other modules register),
// /metrics (Prometheus text, protected by a token or FW_METRICS), X-Request-Id.
import { Client, TEST_STORE, expectError, ok, startTestDaemon, useDaemon } from '../helpers/daemon';

const d = useDaemon();

/** The value of one series of a Prometheus text exposition (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function scrape(c: Client): Promise<string> {
  const r = await c.get('/metrics');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
  return r.text;
}

test('GET /healthz answers without a token', async () => {
  const r = await new Client(d.url).get('/healthz');
  expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { status: 'ok' } });
});

test('GET /readyz: 200 when the store answers and the running version is compiled; a registered check that fails is 503 with its reason', async () => {
  const anon = new Client(d.url);
  const r = await anon.get('/readyz');
  // the redis project's throwaway Redis takes commands without a password (on loopback): warned, still ready
  const warned = TEST_STORE === 'redis' ? { warnings: { redis_auth: expect.stringContaining('accepts commands without authentication') } } : {};
  expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'ok', running: 'ok' }, ...warned } });
  const readiness = d.daemon.daemon.ctx.readiness;
  readiness.register('dataplane', () => { throw new Error('rules not applied yet'); });
  const bad = await anon.get('/readyz');
  expect({ status: bad.status, body: bad.body }).toEqual({
    status: 503, body: { status: 'not ready', checks: { store: 'ok', running: 'ok', dataplane: 'rules not applied yet' }, ...warned },
  });
  readiness.register('dataplane', async () => undefined);
  expect((await anon.get('/readyz')).status).toBe(200);
});

test('GET /readyz is 503 when the store cannot serve', async () => {
  const t = await startTestDaemon();
  try {
    await t.daemon.ctx.store.close(); // as after a failed write: every store call is refused
    const r = await new Client(t.url).get('/readyz');
    expect(r.status).toBe(503);
    expect(r.body.status).toBe('not ready');
    expect(r.body.checks.store).toMatch(/closed/);
    expect(r.body.checks.running).toBe('ok');
  } finally {
    await t.close();
  }
});

test('GET /metrics needs an admin token; with one it is the Prometheus text format', async () => {
  expectError(await new Client(d.url).get('/metrics'), 401, 'ERR_SEC_5001');
  const text = await scrape(d.client);
  expect(text).toMatch(/^# HELP fwd_http_request_duration_seconds /m);
  expect(text).toMatch(/^# TYPE fwd_http_request_duration_seconds histogram$/m);
  expect(sample(text, 'fwd_process_cpu_user_seconds_total')).toBeGreaterThan(0);
});

test('FW_METRICS lets the listed client addresses scrape without a token, and only them', async () => {
  const open = await startTestDaemon({ FW_METRICS: '10.1.0.0/16, 127.0.0.1' });
  const closed = await startTestDaemon({ FW_METRICS: '10.1.0.0/16' });
  try {
    expect((await new Client(open.url).get('/metrics')).status).toBe(200);
    expectError(await new Client(closed.url).get('/metrics'), 401, 'ERR_SEC_5001');
  } finally {
    await open.close();
    await closed.close();
  }
});

test('request metrics are labelled by route template, method and status: no series per path', async () => {
  const c = d.client;
  for (const name of ['m-one', 'm-two', 'm-three']) expectError(await c.get(`/api/addresses/${name}`), 404, 'ERR_NET_1003');
  expectError(await c.get('/api/no/such/thing/1'), 404, 'ERR_NET_1011');
  expectError(await c.get('/api/no/such/thing/2'), 404, 'ERR_NET_1011');
  const text = await scrape(c);
  expect(sample(text, 'fwd_http_request_duration_seconds_count', { route: '/api/addresses/:name', method: 'GET', status: '404' })).toBe(3);
  expect(sample(text, 'fwd_http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status: '404' })).toBe(2);
  expect(text).not.toMatch(/m-one|no\/such/);
  const bucketInf = sample(text, 'fwd_http_request_duration_seconds_bucket', { route: '/api/addresses/:name', status: '404', le: '+Inf' });
  expect(bucketInf).toBe(3);
});

test('commit, compile, session, store, login and eval metrics move with what happens', async () => {
  const c = d.client;
  const before = await scrape(c);
  const count = (text: string, name: string, labels: Record<string, string> = {}) => sample(text, name, labels) ?? 0;
  await c.begin();
  await ok(c.post('/api/zones', { name: 'mz', type: 'l3' }));
  let text = await scrape(c);
  expect(sample(text, 'fwd_session_active')).toBe(1);
  expect(sample(text, 'fwd_session_changes')).toBe(1);
  // a shared store appends in groups (one appendChanges call for all changes ready)
  const append = { op: TEST_STORE === 'redis' ? 'appendChanges' : 'appendChange' };
  expect(count(text, 'fwd_store_operation_duration_seconds_count', append)).toBe(
    count(before, 'fwd_store_operation_duration_seconds_count', append) + 1);
  await c.commit();
  // a commit the checks refuse: a DHCP pool on an interface without an address
  await c.begin();
  await ok(c.post('/api/dhcp', { interface: 'eth2', start_ip: '10.9.0.10', end_ip: '10.9.0.20' }));
  expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  await ok(c.post('/api/config/discard'));
  await ok(c.post('/api/eval', { 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'tcp', 'dst-port': 80 }));
  expectError(await new Client(d.url).post('/api/login', { username: 'admin', password: 'wrong-password-1' }), 401, 'ERR_SEC_5005');
  text = await scrape(c);
  expect(sample(text, 'fwd_session_active')).toBe(0);
  expect(count(text, 'fwd_commits_total', { result: 'ok' })).toBe(count(before, 'fwd_commits_total', { result: 'ok' }) + 1);
  expect(count(text, 'fwd_commits_total', { result: 'failed' })).toBe(count(before, 'fwd_commits_total', { result: 'failed' }) + 1);
  expect(count(text, 'fwd_commit_duration_seconds_count')).toBe(count(before, 'fwd_commit_duration_seconds_count') + 2);
  expect(count(text, 'fwd_compile_duration_seconds_count')).toBeGreaterThan(count(before, 'fwd_compile_duration_seconds_count'));
  expect(sample(text, 'fwd_compiled_bytes')).toBeGreaterThan(0);
  expect(count(text, 'fwd_eval_packets_total', { endpoint: 'eval' })).toBe(count(before, 'fwd_eval_packets_total', { endpoint: 'eval' }) + 1);
  expect(count(text, 'fwd_login_failures_total')).toBe(count(before, 'fwd_login_failures_total') + 1);
});

test('logins refused with 429 are counted', async () => {
  const t = await startTestDaemon({ FW_LOGIN_MAX_FAILURES: '1' });
  try {
    const admin = await new Client(t.url).login();
    const anon = new Client(t.url);
    expectError(await anon.post('/api/login', { username: 'nobody', password: 'wrong-password-1' }), 401, 'ERR_SEC_5005');
    expectError(await anon.post('/api/login', { username: 'nobody', password: 'wrong-password-1' }), 429, 'ERR_SEC_5007');
    const text = await scrape(admin);
    expect(sample(text, 'fwd_login_throttled_total')).toBe(1);
    expect(sample(text, 'fwd_login_failures_total')).toBe(1);
  } finally {
    await t.close();
  }
});

test('X-Request-Id: a valid one sent is answered back; otherwise each answer gets a new one', async () => {
  const c = d.client;
  const given = await c.raw('GET', '/api/me', undefined, { 'X-Request-Id': 'lb-trace.42' });
  expect(given.headers.get('x-request-id')).toBe('lb-trace.42');
  const a = (await c.get('/api/me')).headers.get('x-request-id');
  const b = (await c.get('/api/me')).headers.get('x-request-id');
  expect(a).toMatch(/^[A-Za-z0-9._-]+$/);
  expect(a).not.toBe(b);
  const bad = await c.raw('GET', '/api/me', undefined, { 'X-Request-Id': 'has spaces and "quotes"' });
  expect(bad.headers.get('x-request-id')).not.toMatch(/quotes/);
});
