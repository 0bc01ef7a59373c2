// Dynamic address sets over HTTP (issue 40, item 1): the committed object, its entries fed
// without a session by a feeder API token (which may do nothing else), bounds and refusals
// with the contract's codes, eval and the packet tracer on the current entries (the entry and
// its expiry named), expiry, the bulk audit entry, the analysis claiming nothing that depends
// on a set's contents, export, and entries surviving a restart. Runs on both stores.
import { Client, expectError, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';
import { fwctl } from '../helpers/fwctl';

const dir = tempDir();
let d: TestDaemon;
const c = new Client('');
const feeder = new Client('');

const packet = (src: string) => ({ 'src-ip': src, 'dst-ip': '198.51.100.7', protocol: 'tcp', 'dst-port': 443 });
const evalOf = async (src: string) => (await ok(c.post('/api/eval', packet(src)))).body;
const entries = (set: string, body: unknown) => feeder.post(`/api/dynamic-sets/${set}/entries`, body);

async function start(): Promise<void> {
  d = await startTestDaemon({}, dir);
  c.url = d.url;
  feeder.url = d.url;
  await c.login();
}

beforeAll(async () => {
  await start();
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/dynamic-sets', { name: 'blocked', family: 'ipv4', 'max-entries': 3, 'default-ttl': 600 }));
  await ok(c.post('/api/dynamic-sets', { name: 'blocked6', family: 'ipv6' }));
  // 1: deny what the set holds; 2: deny one host (covered by 1 only while the set holds it:
  // never reported); 3: allow lan to wan; 4: deny lan to wan (shadowed by 3, whatever the set holds)
  await ok(c.post('/api/addresses', { name: 'host77', ips: ['10.0.0.77'] }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'blocked' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'host77' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await c.commit();
  const made = await ok(c.post('/api/tokens', { name: 'fail2ban', role: 'feeder' }));
  feeder.token = made.body.token;
});

afterAll(async () => {
  await d?.close();
});

test('the committed object: read model, defaults, one namespace with addresses, in use', async () => {
  expect((await ok(c.get('/api/dynamic-sets'))).body).toEqual([
    { name: 'blocked', family: 'ipv4', 'max-entries': 3, 'default-ttl': 600 },
    { name: 'blocked6', family: 'ipv6', 'max-entries': 65536, 'default-ttl': 3600 },
  ]);
  await c.begin();
  expectError(await c.post('/api/addresses', { name: 'blocked', ips: ['10.9.9.9'] }), 409, 'ERR_NET_2006');
  expectError(await c.post('/api/dynamic-sets', { name: 'x', family: 'ipv5' }), 400, 'ERR_NET_1005');
  expectError(await c.post('/api/dynamic-sets', { name: 'x', family: 'ipv4', 'max-entries': 0 }), 400, 'ERR_NET_1008');
  const inUse = expectError(await c.del('/api/dynamic-sets/blocked'), 409, 'ERR_NET_2007');
  expect(inUse.body.details).toMatch(/policy 1/);
  const exported = (await ok(c.get('/api/config/export'))).body;
  expect(exported['dynamic-sets']).toEqual([
    { name: 'blocked', family: 'ipv4', 'max-entries': 3, 'default-ttl': 600 },
    { name: 'blocked6', family: 'ipv6', 'max-entries': 65536, 'default-ttl': 3600 },
  ]);
  await ok(c.post('/api/config/discard'));
});

test('a feeder token feeds entries and may do nothing else', async () => {
  expectError(await feeder.get('/api/addresses'), 403, 'ERR_SEC_5008');
  expectError(await feeder.post('/api/config/begin'), 403, 'ERR_SEC_5008');
  expectError(await feeder.post('/api/eval', packet('10.0.0.5')), 403, 'ERR_SEC_5008');
  expect((await evalOf('10.0.0.5'))).toMatchObject({ action: 'allow', policy: { id: 3 } });
  const versions = async () => (await ok(c.get('/api/config/versions'))).body.length;
  const before = await versions();
  const r = await ok(entries('blocked', { ips: ['10.0.0.5'] }));
  expect(r.body).toEqual({ message: 'entries added', added: 1, refreshed: 0, removed: 0, size: 1 });
  // no commit: the running version did not change
  expect(await versions()).toBe(before);
  const listed = (await ok(feeder.get('/api/dynamic-sets/blocked/entries'))).body;
  expect(listed).toMatchObject({ name: 'blocked', size: 1, entries: [{ ip: '10.0.0.5/32' }] });
  const expires = Date.parse(listed.entries[0].expiresAt);
  expect(expires).toBeGreaterThan(Date.now() + 590_000);
  expect(expires).toBeLessThan(Date.now() + 610_000);
  // the tracer names the set, the entry and its expiry
  const answer = await evalOf('10.0.0.5');
  expect(answer).toMatchObject({ action: 'deny', policy: { id: 1 } });
  expect(answer.dynamic).toEqual([{ set: 'blocked', field: 'src-addr', entry: '10.0.0.5/32', expiresAt: listed.entries[0].expiresAt }]);
  expect(await evalOf('10.0.0.6')).toMatchObject({ action: 'allow', policy: { id: 3 } });
  // one audit entry for the request, with the count
  const audit = (await ok(c.get('/api/audit?action=dynamic-set.entries-added'))).body;
  const found = (audit.entries ?? audit).filter((e: { user: string }) => e.user === 'admin');
  expect(found.length).toBe(1);
  expect(found[0].details).toMatch(/1 entries to dynamic set blocked \(ttl 600 s\): 1 new/);
});

test('refusals: family, bad prefix, bound, overlap, unknown set, ttl', async () => {
  expectError(await entries('blocked', { ips: ['2001:db8::1'] }), 400, 'ERR_NET_1001');
  expectError(await entries('blocked', { ips: ['10.0.0.300'] }), 400, 'ERR_NET_1001');
  expectError(await entries('blocked', { ips: [] }), 400, 'ERR_NET_1004');
  expectError(await entries('blocked', { ips: ['10.0.0.7'], ttl: -1 }), 400, 'ERR_NET_1008');
  expectError(await entries('blocked', { ips: ['10.0.0.7'], extra: 1 }), 400, 'ERR_NET_1004');
  expectError(await entries('nope', { ips: ['10.0.0.7'] }), 404, 'ERR_NET_1003');
  const overlap = expectError(await entries('blocked', { ips: ['10.0.0.0/24'] }), 400, 'ERR_NET_1004');
  expect(overlap.body.details).toMatch(/overlaps/);
  // the bound is 3: one is there, three more are one too many, and nothing of the request lands
  const full = expectError(await entries('blocked', { ips: ['10.0.0.7', '10.0.0.8', '10.0.0.9'] }), 400, 'ERR_NET_1008');
  expect(full.body.details).toMatch(/at most 3 entries/);
  expect((await ok(c.get('/api/dynamic-sets/blocked/entries'))).body.size).toBe(1);
});

test('entries expire at their ttl; DELETE removes', async () => {
  await ok(entries('blocked', { ips: ['10.0.0.9'], ttl: 1 }));
  expect(await evalOf('10.0.0.9')).toMatchObject({ action: 'deny', policy: { id: 1 } });
  await new Promise((r) => setTimeout(r, 2500));
  expect(await evalOf('10.0.0.9')).toMatchObject({ action: 'allow', policy: { id: 3 } });
  await ok(entries('blocked', { ips: ['10.0.0.10'], ttl: 0 }));
  const r = await ok(feeder.req('DELETE', '/api/dynamic-sets/blocked/entries', { ips: ['10.0.0.10', '10.0.0.11'] }));
  expect(r.body).toMatchObject({ removed: 1, size: 1 });
  expect(await evalOf('10.0.0.10')).toMatchObject({ action: 'allow' });
});

test('fwctl dynamic-set add/list/del with a feeder token, as a fail2ban action runs it', async () => {
  const env = { FWCTL_URL: d.url, FWCTL_TOKEN: feeder.token, FWCTL_CONFIG: `${dir}/fwctl-none.json` };
  const add = await fwctl(['dynamic-set', 'add', 'blocked', '10.0.0.40', '--ttl', '120'], env);
  expect({ code: add.code, out: add.stdout }).toEqual({ code: 0, out: '1 added, 0 refreshed; 2 entries\n' });
  const list = await fwctl(['dynamic-set', 'list', 'blocked', '--json'], env);
  expect(list.code).toBe(0);
  expect(JSON.parse(list.stdout).entries.map((e: { ip: string }) => e.ip)).toEqual(['10.0.0.40/32', '10.0.0.5/32']);
  const text = await fwctl(['dynamic-set', 'list', 'blocked'], env);
  expect(text.stdout).toMatch(/^blocked: 2 of at most 3 entries\n/);
  expect(text.stdout).toMatch(/10\.0\.0\.40\/32/);
  const del = await fwctl(['dynamic-set', 'del', 'blocked', '10.0.0.40'], env);
  expect({ code: del.code, out: del.stdout }).toEqual({ code: 0, out: '1 removed; 1 entries\n' });
  const bad = await fwctl(['dynamic-set', 'add', 'blocked', 'not-an-ip'], env);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/ERR_NET_1001|not an address/);
  const usage = await fwctl(['dynamic-set', 'add', 'blocked'], env);
  expect(usage.code).toBe(64); // EXIT.usage
});

test('the analysis claims nothing that depends on what a set holds', async () => {
  const a = (await ok(c.get('/api/analysis'))).body;
  const ids = (l: Array<{ id: number }>) => l.map((x) => x.id);
  // 4 is shadowed by 3 (static): reported; 2 (covered by the set only when it holds
  // 10.0.0.77) is not, and nothing names policy 1 either way
  expect(ids(a.shadowed)).toEqual([4]);
  expect(a.shadowed[0].coveredBy).toEqual([3]);
  expect(ids(a.redundant)).not.toContain(2);
  for (const l of [a.shadowed, a.redundant]) for (const x of l) expect([x.id, ...x.coveredBy]).not.toContain(1);
});

test('entries survive a restart', async () => {
  await d.close();
  await start();
  const listed = (await ok(c.get('/api/dynamic-sets/blocked/entries'))).body;
  expect(listed.entries.map((e: { ip: string }) => e.ip)).toEqual(['10.0.0.5/32']);
  expect(await evalOf('10.0.0.5')).toMatchObject({ action: 'deny', dynamic: [{ set: 'blocked', entry: '10.0.0.5/32' }] });
});
