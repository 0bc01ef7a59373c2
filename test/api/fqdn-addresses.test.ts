// FQDN addresses over HTTP (issue 40, item 1): an address holds ips or fqdn (exactly one),
// the daemon resolves the name (A and AAAA) at a DNS server of the test's own (dnsmasq on a
// free loopback port answering from a hosts file the test rewrites and SIGHUPs), the read
// model and eval follow a changed answer without a commit (the running version stays), a
// failing server keeps the last good answer with lastError set, and the analysis claims
// nothing that depends on what the name resolves to.
import { until } from '../helpers/poll';
import { Client, expectError, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { TestDns } from '../helpers/dnsmasq';
import { lanWan } from '../helpers/lan-wan';
import { openEvents, type SseStream } from '../helpers/sse';
import { fwctl } from '../helpers/fwctl';

const dir = tempDir();
const dns = new TestDns(dir, 'example.test');
let d: TestDaemon;
let events: SseStream | undefined;
const c = new Client('');
const env = () => ({ FW_DNS_SERVERS: dns.server, FW_FQDN_REFRESH_MIN: '1', FW_FQDN_REFRESH_MAX: '5' });

const NAME = 'api.example.test';
const evalTo = async (dst: string) => (await ok(c.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': dst, protocol: 'tcp', 'dst-port': 443 }))).body;
const saas = async () => (await ok(c.get('/api/addresses/saas'))).body;

beforeAll(async () => {
  await dns.start([`192.0.2.10 ${NAME}`, `2001:db8::10 ${NAME}`]);
  d = await startTestDaemon(env(), dir);
  c.url = d.url;
  await c.login();
  events = await openEvents(c.url, '/api/events?types=fqdn', { Authorization: `Bearer ${c.token}` });
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/addresses', { name: 'saas', fqdn: 'API.example.test.' }));
  await ok(c.post('/api/addresses', { name: 'h10', ips: ['192.0.2.10'] }));
  // 1, 2: allow, then deny one host (2 shadowed by 1 whatever the name is: claimed); 3: allow to the
  // name; 4: deny 192.0.2.10 (covered by 3 only while the name resolves to it: never claimed);
  // 5: allow lan to wan; 6: deny lan to wan (covered by 3 or 5 depending on the name: not claimed)
  await ok(c.post('/api/addresses', { name: 'h77', ips: ['10.0.0.77'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'h77' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'h77' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'saas' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'h10' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await c.commit();
}, 60_000);

afterAll(async () => {
  events?.close();
  try {
    await d?.close();
  } finally {
    await dns.stop();
  }
});

test('an address has either ips or fqdn: both, neither, a bad name and an FQDN group member are refused', async () => {
  await c.begin();
  const both = expectError(await c.post('/api/addresses', { name: 'x', ips: ['10.1.1.1'], fqdn: 'a.example' }), 400, 'ERR_NET_1004');
  expect(both.body.details).toMatch(/either ips or fqdn/);
  expectError(await c.post('/api/addresses', { name: 'x' }), 400, 'ERR_NET_1004');
  const bad = expectError(await c.post('/api/addresses', { name: 'x', fqdn: 'no spaces.example' }), 400, 'ERR_NET_1004');
  expect(bad.body.details).toMatch(/fqdn/);
  expectError(await c.post('/api/addresses', { name: 'x', fqdn: 'nodot' }), 400, 'ERR_NET_1004');
  const member = expectError(await c.post('/api/address-groups', { name: 'g', members: ['saas'] }), 400, 'ERR_NET_1004');
  expect(member.body.details).toMatch(/members\[0\].*FQDN/);
  const nat = expectError(await c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'dst-addr': 'saas', 'translated-ip': '203.0.113.2' }), 400, 'ERR_NET_2003');
  expect(nat.body.details).toMatch(/dst-addr/);
  // an address a group holds cannot become an FQDN address
  await ok(c.post('/api/address-groups', { name: 'g', members: ['h10'] }));
  expectError(await c.put('/api/addresses/h10', { fqdn: 'b.example.test' }), 400, 'ERR_NET_1004');
  // the candidate shows the name, not a resolution
  const cand = (await ok(c.get('/api/addresses/saas?config=candidate'))).body;
  expect(cand).toEqual({ name: 'saas', ips: [], fqdn: NAME });
  await ok(c.post('/api/config/discard'));
});

test('the read model and eval follow the name; a changed answer arrives without a commit', async () => {
  await until(async () => (await saas()).resolved?.length === 2, 'the first resolution');
  const first = await saas();
  expect(first).toMatchObject({ name: 'saas', ips: [], fqdn: NAME, resolved: ['192.0.2.10/32', '2001:db8::10/128'], lastError: null });
  expect(Date.parse(first.resolvedAt)).toBeGreaterThan(Date.now() - 60_000);
  expect(first.changedAt).toBe(first.resolvedAt);
  const before = await evalTo('192.0.2.10');
  expect(before).toMatchObject({ action: 'allow', policy: { id: 3 } });
  // the tracer names the FQDN, the prefix and the time of the answer in use
  expect(before.fqdn).toEqual([{ address: 'saas', fqdn: NAME, field: 'dst-addr', entry: '192.0.2.10/32', resolvedAt: expect.any(String) }]);
  expect(Date.parse(before.fqdn[0].resolvedAt)).toBeGreaterThanOrEqual(Date.parse(first.changedAt));
  const other = await evalTo('192.0.2.20');
  expect(other).toMatchObject({ action: 'allow', policy: { id: 5 } });
  expect(other.fqdn).toBeUndefined();
  // the first answer was an event
  const firstEvent = (await events!.next((m) => m.data.address === 'saas', 'the first fqdn event')).data;
  expect(firstEvent).toMatchObject({ type: 'fqdn', state: 'changed', fqdn: NAME, previous: [], resolved: ['192.0.2.10/32', '2001:db8::10/128'] });
  const etag = (await ok(c.get('/api/addresses/saas'))).headers.get('etag');

  dns.answer([`192.0.2.20 ${NAME}`]);
  await until(async () => (await saas()).resolved?.join() === '192.0.2.20/32', 'the changed answer');
  // 192.0.2.10 now falls to policy 4, 192.0.2.20 to policy 3; the running version is the same
  const after = await evalTo('192.0.2.10');
  expect(after).toMatchObject({ action: 'deny', policy: { id: 4 } });
  expect(after.version).toBe(before.version);
  expect(await evalTo('192.0.2.20')).toMatchObject({ action: 'allow', policy: { id: 3 } });
  // the list shows the same state (not a per-version cached answer): its ETag changed
  const list = (await ok(c.get('/api/addresses'))).body;
  expect(list.saas.resolved).toEqual(['192.0.2.20/32']);
  const now = await c.raw('GET', '/api/addresses/saas', undefined, { 'If-None-Match': etag! });
  expect(now.status).toBe(200);
  expect(now.headers.get('etag')).not.toBe(etag);
  // a change of resolution is an event, not a version
  const changed = (await events!.next((m) => m.data.address === 'saas', 'the change event')).data;
  expect(changed).toMatchObject({ type: 'fqdn', state: 'changed', previous: ['192.0.2.10/32', '2001:db8::10/128'], resolved: ['192.0.2.20/32'] });
  expect(Date.parse(changed.resolvedAt)).toBe(Date.parse((await saas()).changedAt));
});

test('the analysis claims nothing that depends on the resolution', async () => {
  const a = (await ok(c.get('/api/analysis'))).body;
  const ids = (l: Array<{ id: number }>) => l.map((x) => x.id);
  expect(ids(a.shadowed)).toEqual([2]);
  expect(a.shadowed[0].coveredBy).toEqual([1]);
  for (const l of [a.shadowed, a.redundant]) for (const x of l) expect([x.id, ...x.coveredBy]).not.toContain(3);
  expect(ids(a.redundant)).not.toContain(4);
});

test('the OpenAPI document describes fqdn in the address body and read model', async () => {
  const text = JSON.stringify((await ok(c.get('/api/openapi.json'))).body);
  expect(text).toContain('a DNS name resolved at run time (A and AAAA); exactly one of ips, fqdn and url');
  expect(text).toContain('FQDN address: the prefixes in use (the last good answer)');
});

test('export carries the name', async () => {
  const exported = (await ok(c.get('/api/config/export'))).body;
  expect(exported.addresses).toContainEqual({ name: 'saas', fqdn: NAME });
});

test('fwctl fqdn shows the resolutions; fwctl trace names the FQDN; fwctl watch words the event', async () => {
  const env = { FWCTL_URL: d.url, FWCTL_TOKEN: c.token, FWCTL_CONFIG: `${dir}/fwctl-none.json` };
  const json = await fwctl(['fqdn', '--json'], env);
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual([{ name: 'saas', fqdn: NAME, resolved: ['192.0.2.20/32'], resolvedAt: expect.any(String), changedAt: expect.any(String), lastError: null }]);
  const text = await fwctl(['fqdn'], env);
  expect(text.stdout).toMatch(/^ADDRESS +FQDN +RESOLVED/);
  expect(text.stdout).toMatch(new RegExp(`saas +${NAME} +192\\.0\\.2\\.20/32`));
  const traced = await fwctl(['trace', '--src', '10.0.0.5', '--dst', '192.0.2.20', '--proto', 'tcp', '--dport', '443'], env);
  expect(traced.stdout).toMatch(new RegExp(`fqdn +dst-addr saas \\(${NAME}\\) 192\\.0\\.2\\.20/32, resolved \\d{4}-`));
  const since = String(events!.messages.find((m) => m.data.address === 'saas')!.data.id - 1);
  const watched = await fwctl(['watch', '--types', 'fqdn', '--since', since, '--count', '1'], env);
  expect(watched.stdout).toMatch(new RegExp(`fqdn +address saas \\(${NAME}\\) now 192\\.0\\.2\\.10/32 2001:db8::10/128, was nothing`));
});

test('a failing server keeps the last good answer and says why', async () => {
  await dns.stop();
  await until(async () => (await saas()).lastError !== null, 'the failure to show');
  const s = await saas();
  expect(s.resolved).toEqual(['192.0.2.20/32']);
  expect(typeof s.lastError).toBe('string');
  expect(await evalTo('192.0.2.20')).toMatchObject({ action: 'allow', policy: { id: 3 } });
  // the failure is an event, once (not one per retry)
  const failed = (await events!.next((m) => m.data.address === 'saas', 'the failure event')).data;
  expect(failed).toMatchObject({ type: 'fqdn', state: 'failed', resolved: ['192.0.2.20/32'], error: expect.any(String) });
  await new Promise((r) => setTimeout(r, 2500));
  expect(events!.messages.filter((m) => m.data.state === 'failed')).toHaveLength(1);
  // every try counts in /metrics, the good ones before and the failures since
  const metrics = (await c.get('/metrics')).text;
  expect(metrics).toMatch(/^fwd_fqdn_resolutions_total\{result="ok"\} [1-9]/m);
  expect(metrics).toMatch(/^fwd_fqdn_resolutions_total\{result="failed"\} [1-9]/m);
});

test('the last good answer survives a restart, with no DNS server to ask', async () => {
  events?.close();
  await d.close();
  d = await startTestDaemon(env(), dir);
  c.url = d.url;
  await c.login();
  // the published answer (no server answers now)
  await until(async () => (await saas()).resolved?.join() === '192.0.2.20/32', 'the kept answer', 5000);
  expect(await evalTo('192.0.2.20')).toMatchObject({ action: 'allow', policy: { id: 3 }, fqdn: [{ entry: '192.0.2.20/32' }] });
  await until(async () => (await saas()).lastError !== null, 'the failure to show again');
  expect((await saas()).resolved).toEqual(['192.0.2.20/32']);
  // and the server back: resolved again
  await dns.start([`192.0.2.30 ${NAME}`]);
  await until(async () => (await saas()).resolved?.join() === '192.0.2.30/32', 'the answer of the new server', 30_000);
}, 90_000);
