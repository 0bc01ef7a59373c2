// FQDN addresses over HTTP (issue 40, item 1): an address holds ips or fqdn (exactly one),
// the daemon resolves the name (A and AAAA) at a DNS server of the test's own (dnsmasq on a
// free loopback port answering from a hosts file the test rewrites and SIGHUPs), the read
// model and eval follow a changed answer without a commit (the running version stays), a
// failing server keeps the last good answer with lastError set, and the analysis claims
// nothing that depends on what the name resolves to.
import { Client, expectError, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { TestDns } from '../helpers/dnsmasq';
import { lanWan } from '../helpers/lan-wan';

const dir = tempDir();
const dns = new TestDns(dir, 'example.test');
let d: TestDaemon;
const c = new Client('');

const NAME = 'api.example.test';
const evalTo = async (dst: string) => (await ok(c.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': dst, protocol: 'tcp', 'dst-port': 443 }))).body;
const saas = async () => (await ok(c.get('/api/addresses/saas'))).body;

/** Polls until `check` passes (a generous deadline against a hang, no speed asserted). */
async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  await dns.start([`192.0.2.10 ${NAME}`, `2001:db8::10 ${NAME}`]);
  d = await startTestDaemon({ FW_DNS_SERVERS: dns.server, FW_FQDN_REFRESH_MIN: '1', FW_FQDN_REFRESH_MAX: '5' }, dir);
  c.url = d.url;
  await c.login();
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
  expect(cand).toMatchObject({ name: 'saas', ips: [], fqdn: NAME });
  await ok(c.post('/api/config/discard'));
});

test('the read model and eval follow the name; a changed answer arrives without a commit', async () => {
  await until(async () => (await saas()).resolved?.length === 2, 'the first resolution');
  const first = await saas();
  expect(first).toMatchObject({ name: 'saas', ips: [], fqdn: NAME, resolved: ['192.0.2.10/32', '2001:db8::10/128'], lastError: null });
  expect(Date.parse(first.resolvedAt)).toBeGreaterThan(Date.now() - 60_000);
  const before = await evalTo('192.0.2.10');
  expect(before).toMatchObject({ action: 'allow', policy: { id: 3 } });
  expect(await evalTo('192.0.2.20')).toMatchObject({ action: 'allow', policy: { id: 5 } });

  dns.answer([`192.0.2.20 ${NAME}`]);
  await until(async () => (await saas()).resolved?.join() === '192.0.2.20/32', 'the changed answer');
  // 192.0.2.10 now falls to policy 4, 192.0.2.20 to policy 3; the running version is the same
  const after = await evalTo('192.0.2.10');
  expect(after).toMatchObject({ action: 'deny', policy: { id: 4 } });
  expect(after.version).toBe(before.version);
  expect(await evalTo('192.0.2.20')).toMatchObject({ action: 'allow', policy: { id: 3 } });
  // the list shows the same state (not a per-version cached answer)
  const list = (await ok(c.get('/api/addresses'))).body;
  expect(list.saas.resolved).toEqual(['192.0.2.20/32']);
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
  expect(text).toContain('a DNS name resolved at run time (A and AAAA); exactly one of ips and fqdn');
  expect(text).toContain('FQDN address: the prefixes in use (the last good answer)');
});

test('export carries the name', async () => {
  const exported = (await ok(c.get('/api/config/export'))).body;
  expect(exported.addresses).toContainEqual({ name: 'saas', fqdn: NAME });
});

test('a failing server keeps the last good answer and says why', async () => {
  await dns.stop();
  await until(async () => (await saas()).lastError !== null, 'the failure to show');
  const s = await saas();
  expect(s.resolved).toEqual(['192.0.2.20/32']);
  expect(typeof s.lastError).toBe('string');
  expect(await evalTo('192.0.2.20')).toMatchObject({ action: 'allow', policy: { id: 3 } });
});
