// External lists over HTTP (issue 40, items 3 and 5): an address with `url` is fetched by the
// daemon from an HTTP server of the test's own (node http on a free loopback port) whose
// answers the test changes: a good list (text with comments, and JSON), a changed list (eval
// and the read model follow, the running version stays, an event says what changed), a server
// that fails and one that serves garbage or too much (the last good list stays, lastError says
// exactly why), a list past FW_LIST_MAX_ENTRIES and past FW_DYNAMIC_MAX_ENTRIES (the cut is in
// the read model and /metrics), the analysis, export, refusals, and a restart that enforces
// the last good list before any fetch succeeds. Runs on both stores.
import { until as pollUntil } from '../helpers/poll';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, expectError, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';
import { openEvents, type SseStream } from '../helpers/sse';
import { fwctl } from '../helpers/fwctl';

const dir = tempDir();
let d: TestDaemon;
const c = new Client('');

/** What the test's list server answers, by path. */
const answers = new Map<string, { status: number; body: string | Buffer; type?: string }>();
const server = http.createServer((req, res) => {
  const a = answers.get(req.url ?? '') ?? { status: 404, body: 'not found' };
  res.writeHead(a.status, { 'content-type': a.type ?? 'text/plain' });
  res.end(a.body);
});
let base = '';
const serve = (p: string, body: string | Buffer, status = 200, type?: string) => answers.set(p, { status, body, type });

const evalTo = async (dst: string) => (await ok(c.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': dst, protocol: 'tcp', 'dst-port': 443 }))).body;
const addr = async (name: string) => (await ok(c.get(`/api/addresses/${name}`))).body;

const until = (check: () => Promise<boolean>, what: string, ms = 20_000) => pollUntil(check, what, ms, 150);

const ENV = { FW_LIST_REFRESH_MIN: '1', FW_LIST_MAX_ENTRIES: '5', FW_DYNAMIC_MAX_ENTRIES: '8' };
let events: SseStream;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  serve('/block.txt', '# a blocklist\n198.51.100.7 ; spam\n\n198.51.100.0/30   # a prefix\n2001:db8:bad::/48\n');
  d = await startTestDaemon(ENV, dir);
  c.url = d.url;
  await c.login();
  events = await openEvents(c.url, '/api/events?types=list,commit', { Authorization: `Bearer ${c.token}` });
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/addresses', { name: 'blocklist', url: `${base}/block.txt`, refresh: 1 }));
  await ok(c.post('/api/addresses', { name: 'h8', ips: ['198.51.100.8'] }));
  // 1, 2: allow, then deny one host (2 shadowed by 1 whatever the list holds: claimed);
  // 3: deny to the list; 4: deny to h8 (covered by 3 only if the list holds it: never claimed);
  // 5: allow lan to wan; 6: deny lan to wan (covered by 3 or 5 depending on the list: not claimed)
  await ok(c.post('/api/addresses', { name: 'h77', ips: ['10.0.0.77'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'h77' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'h77' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'blocklist' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'h8' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await c.commit();
}, 60_000);

afterAll(async () => {
  events?.close();
  try {
    await d?.close();
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a good list: the read model shows it, eval and the tracer use it', async () => {
  await until(async () => (await addr('blocklist')).fetchedAt !== null, 'the first fetch');
  const a = await addr('blocklist');
  expect(a).toMatchObject({ name: 'blocklist', ips: [], url: `${base}/block.txt`, refresh: 1, entries: 3, cut: 0, truncated: false, lastError: null });
  const hit = await evalTo('198.51.100.7');
  expect(hit).toMatchObject({ action: 'deny', policy: { id: 3 }, lists: [{ list: 'blocklist', field: 'dst-addr', entry: '198.51.100.7/32', url: `${base}/block.txt`, fetchedAt: a.fetchedAt }] });
  expect(await evalTo('198.51.100.2')).toMatchObject({ action: 'deny', policy: { id: 3 }, lists: [{ entry: '198.51.100.0/30' }] });
  const miss = await evalTo('198.51.100.9');
  expect(miss).toMatchObject({ action: 'allow', policy: { id: 5 } });
  expect(miss.lists).toBeUndefined();
  const e = await events.next((m) => m.event === 'list', 'the first list event');
  expect(e.data).toMatchObject({ type: 'list', address: 'blocklist', state: 'updated', entries: 3, added: 3, removed: 0 });
});

test('a changed list reaches eval without a commit, and is an event', async () => {
  const version = (await evalTo('198.51.100.7')).version;
  serve('/block.txt', JSON.stringify(['198.51.100.8', '198.51.100.7']), 200, 'application/json');
  const e = await events.next((m) => m.event === 'list' && m.data.added === 1, 'the change event');
  expect(e.data).toMatchObject({ address: 'blocklist', state: 'updated', entries: 2, added: 1, removed: 2 });
  await until(async () => (await addr('blocklist')).entries === 2, 'the changed list');
  const now = await evalTo('198.51.100.8');
  expect(now).toMatchObject({ action: 'deny', policy: { id: 3 }, lists: [{ entry: '198.51.100.8/32' }] });
  expect(now.version).toBe(version);
  expect((await evalTo('198.51.100.2')).action).toBe('allow');
  // the collection shows the same (not an answer cached per version)
  expect((await ok(c.get('/api/addresses'))).body.blocklist.entries).toBe(2);
  expect(events.messages.filter((m) => m.event === 'commit')).toHaveLength(1);
});

test('a failing server keeps the last good list and says why', async () => {
  serve('/block.txt', 'down for maintenance', 503);
  await until(async () => (await addr('blocklist')).lastError !== null, 'the failure');
  expect(await addr('blocklist')).toMatchObject({ entries: 2, lastError: 'HTTP 503 Service Unavailable' });
  expect((await evalTo('198.51.100.8')).action).toBe('deny');
  const e = await events.next((m) => m.event === 'list' && m.data.state === 'failed', 'the failure event');
  expect(e.data).toMatchObject({ address: 'blocklist', entries: 2, error: 'HTTP 503 Service Unavailable' });
});

test('garbage keeps the last good list, with an error that says where', async () => {
  const garbage: Array<[string | Buffer, string]> = [
    ['<!DOCTYPE html>\n<html><body>Login</body></html>\n', 'line 1: "<!DOCTYPE html>" is not an address or a prefix'],
    ['198.51.100.1\n198.51.100.300\n', 'line 2: "198.51.100.300" is not an address or a prefix'],
    ['[1, "198.51.100.1"]', 'item 0 of the JSON array is a number, not a string'],
    ['[ "198.51.100.1", ', 'the body starts as a JSON array but is no JSON'],
    [Buffer.from([0xff, 0xfe, 0x00, 0x31]), 'the body is not UTF-8 text'],
    [Buffer.alloc(8 * 1024 * 1024 + 10, 0x0a), 'the body is larger than 8388608 bytes'],
  ];
  for (const [body, error] of garbage) {
    serve('/block.txt', body);
    await until(async () => (await addr('blocklist')).lastError?.startsWith(error) ?? false, `the error "${error}"`);
    expect(await addr('blocklist')).toMatchObject({ entries: 2 });
    expect((await evalTo('198.51.100.8')).action).toBe('deny');
  }
  serve('/block.txt', '198.51.100.8\n198.51.100.7\n');
  await until(async () => (await addr('blocklist')).lastError === null, 'a good fetch again');
  expect((await addr('blocklist')).entries).toBe(2);
}, 60_000);

test('the analysis claims nothing that depends on a list', async () => {
  const a = (await ok(c.get('/api/analysis'))).body;
  const claims = [...a.shadowed, ...a.redundant];
  for (const x of claims) for (const id of [x.id, ...x.coveredBy]) expect([await policyAddr(id)]).not.toContain('list');
  // the static claim is still made
  expect(a.shadowed.map((x: { id: number }) => x.id)).toEqual([2]);
  expect(a.shadowed[0].coveredBy).toEqual([1]);
});

/** 'list' when policy `id` names a list, else 'static'. */
async function policyAddr(id: number): Promise<string> {
  const p = (await ok(c.get(`/api/policies/${id}`))).body;
  return p['dst-addr'] === 'blocklist' || p['dst-addr'] === 'zbig' ? 'list' : 'static';
}

test('past FW_LIST_MAX_ENTRIES and FW_DYNAMIC_MAX_ENTRIES the cut is shown and counted', async () => {
  serve('/big.txt', Array.from({ length: 7 }, (_x, i) => `192.0.2.${i + 1}`).join('\n'));
  await c.begin();
  await ok(c.post('/api/addresses', { name: 'zbig', url: `${base}/big.txt`, refresh: 1 }));
  await ok(c.post('/api/dynamic-sets', { name: 'feed', family: 'ipv4' }));
  const zbig = (await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'zbig' }))).body.id;
  await ok(c.post(`/api/policies/${zbig}/move`, { position: 'top' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'feed' }));
  await c.commit();
  // 7 listed, 5 kept (FW_LIST_MAX_ENTRIES), 2 cut
  await until(async () => (await addr('zbig')).fetchedAt !== null, 'the big list');
  expect(await addr('zbig')).toMatchObject({ entries: 5, cut: 2, truncated: true, lastError: null });
  // 3 set entries + 2 of blocklist leave 3 of FW_DYNAMIC_MAX_ENTRIES (8) to zbig
  await ok(c.post('/api/dynamic-sets/feed/entries', { ips: ['10.9.0.1', '10.9.0.2', '10.9.0.3'] }));
  await until(async () => (await addr('zbig')).entries === 3, 'the list cut to what the sets leave');
  expect(await addr('zbig')).toMatchObject({ entries: 3, cut: 4, truncated: true });
  expect(await addr('blocklist')).toMatchObject({ entries: 2, cut: 0, truncated: false });
  // what is cut is not enforced: 192.0.2.3 is in, 192.0.2.4 was cut
  expect(await evalTo('192.0.2.3')).toMatchObject({ action: 'deny', lists: [{ list: 'zbig', entry: '192.0.2.3/32' }] });
  expect((await evalTo('192.0.2.4')).lists).toBeUndefined();
  const metrics = (await c.get('/metrics')).text;
  expect(metrics).toMatch(/^fwd_dynamic_entries 8$/m);
  expect(metrics).toMatch(/^fwd_dynamic_entries_max 8$/m);
  expect(metrics).toMatch(/^fwd_dynamic_entries_cut 4$/m);
  expect(metrics).toMatch(/^fwd_list_fetches_total\{result="failed"\} [1-9]/m);
  // the sets alone stay within the limit: a POST past it is refused whole
  const refused = expectError(await c.post('/api/dynamic-sets/feed/entries', { ips: ['10.9.1.1', '10.9.1.2', '10.9.1.3', '10.9.1.4', '10.9.1.5', '10.9.1.6'] }), 400, 'ERR_NET_1008');
  expect(refused.body.details).toMatch(/FW_DYNAMIC_MAX_ENTRIES.*hold 3 entries of at most 8.*6 would be new/);
  expect((await ok(c.get('/api/dynamic-sets/feed/entries'))).body.size).toBe(3);
  // removed entries give the room back
  await ok(c.req('DELETE', '/api/dynamic-sets/feed/entries', { ips: ['10.9.0.1', '10.9.0.2', '10.9.0.3'] }));
  await until(async () => (await addr('zbig')).entries === 5, 'the list back to its own limit');
}, 60_000);

test('refusals: exactly one of ips, fqdn and url; http(s) only; refresh bounds; no group or NAT', async () => {
  await c.begin();
  try {
    const both = expectError(await c.post('/api/addresses', { name: 'x', ips: ['10.1.1.1'], url: `${base}/a` }), 400, 'ERR_NET_1004');
    expect(both.body.details).toMatch(/exactly one of ips, fqdn and url/);
    expect(expectError(await c.post('/api/addresses', { name: 'x', url: 'ftp://example.test/list' }), 400, 'ERR_NET_1004').body.details).toMatch(/"ftp" is not http or https/);
    expect(expectError(await c.post('/api/addresses', { name: 'x', url: 'not a url' }), 400, 'ERR_NET_1004').body.details).toMatch(/not a URL/);
    expect(expectError(await c.post('/api/addresses', { name: 'x', url: 'https://u:p@example.test/l' }), 400, 'ERR_NET_1004').body.details).toMatch(/user name or password/);
    expect(expectError(await c.post('/api/addresses', { name: 'x', url: `${base}/a`, refresh: 0 }), 400, 'ERR_NET_1008').body.details).toMatch(/"refresh": 0 is not within 1-604800/);
    expect(expectError(await c.post('/api/addresses', { name: 'x', ips: ['10.1.1.1'], refresh: 60 }), 400, 'ERR_NET_1004').body.details).toMatch(/exactly one/);
    const member = expectError(await c.post('/api/address-groups', { name: 'g', members: ['blocklist'] }), 400, 'ERR_NET_1004');
    expect(member.body.details).toMatch(/members\[0\].*external list/);
    const nat = expectError(await c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'blocklist', 'translated-ip': '203.0.113.2' }), 400, 'ERR_NET_2003');
    expect(nat.body.details).toMatch(/blocklist/);
    // a PUT of refresh alone keeps the URL
    await ok(c.put('/api/addresses/blocklist', { refresh: 5 }));
    expect((await ok(c.get('/api/addresses/blocklist?config=candidate'))).body).toMatchObject({ url: `${base}/block.txt`, refresh: 5 });
    expect(expectError(await c.put('/api/addresses/h8', { refresh: 5 }), 400, 'ERR_NET_1004').body.details).toMatch(/only an external list/);
  } finally {
    await ok(c.post('/api/config/discard', {}));
  }
});

test('the OpenAPI document describes url in the address body and read model, and the list event', async () => {
  const text = JSON.stringify((await ok(c.get('/api/openapi.json'))).body);
  expect(text).toContain('an external list (issue 40): an http or https URL fetched by the daemon');
  expect(text).toContain('external list: prefixes of the list not in force, past FW_LIST_MAX_ENTRIES or FW_DYNAMIC_MAX_ENTRIES');
  expect(text).toContain('present when the deciding policy names an external list');
});

test('export carries url and refresh, and a load takes them back', async () => {
  const exported = (await ok(c.get('/api/config/export'))).body;
  expect(exported.addresses).toContainEqual({ name: 'blocklist', url: `${base}/block.txt`, refresh: 1 });
  const changed = { ...exported, addresses: exported.addresses.map((a: { name: string }) => (a.name === 'blocklist' ? { ...a, refresh: 7 } : a)) };
  await c.begin();
  try {
    await ok(c.put('/api/config/candidate', changed));
    expect((await ok(c.get('/api/addresses/blocklist?config=candidate'))).body).toEqual({ name: 'blocklist', ips: [], url: `${base}/block.txt`, refresh: 7 });
  } finally {
    await ok(c.post('/api/config/discard', {}));
  }
});

test('fwctl lists shows the status, fwctl trace names the list and its fetch', async () => {
  const env = { FWCTL_URL: d.url, FWCTL_TOKEN: c.token, FWCTL_CONFIG: `${dir}/fwctl-none.json` };
  const text = await fwctl(['lists'], env);
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/^NAME\s+ENTRIES\s+CUT/);
  expect(text.stdout).toMatch(new RegExp(`blocklist\\s+2\\s+0\\s+20\\S+\\s+1s\\s+${base}/block.txt\\s+-`));
  expect(text.stdout).toMatch(/zbig\s+5\s+2\s/);
  const json = await fwctl(['lists', 'zbig', '--json'], env);
  expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ name: 'zbig', entries: 5, cut: 2, truncated: true })]);
  expect((await fwctl(['lists', 'nope'], env)).code).toBe(1);
  const tr = await fwctl(['trace', '--src', '10.0.0.5', '--dst', '198.51.100.8', '--proto', 'tcp', '--dport', '443'], env);
  expect(tr.code).toBe(0);
  expect(tr.stdout).toMatch(/list\s+blocklist entry 198\.51\.100\.8\/32 \(dst-addr\), fetched 20\d\d-/);
});

test('the last good list survives a restart', async () => {
  events.close();
  await d.close();
  serve('/block.txt', 'gone', 500);
  d = await startTestDaemon(ENV, dir);
  c.url = d.url;
  await c.login();
  // enforced at once from what was kept, before any fetch succeeds
  const a = await addr('blocklist');
  expect(a).toMatchObject({ entries: 2 });
  expect(a.fetchedAt).not.toBeNull();
  expect(await evalTo('198.51.100.8')).toMatchObject({ action: 'deny', lists: [{ list: 'blocklist', entry: '198.51.100.8/32' }] });
  await until(async () => (await addr('blocklist')).lastError === 'HTTP 500 Internal Server Error', 'the failure after the restart');
  expect((await addr('blocklist')).entries).toBe(2);
}, 60_000);
