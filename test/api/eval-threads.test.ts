// POST /api/eval/batch in batch threads (FW_EVAL_THREADS) against the same daemon code with
// every batch inline (FW_EVAL_THREADS=0), on the same configuration (IPv4 and IPv6, zones,
// interfaces, SNAT and DNAT): random batches large enough for the threads answered byte for
// byte alike, alone and concurrently; errors (unknown names, refused packets, malformed
// bodies, bodies the scanner leaves to JSON.parse) alike; a version committed between
// requests answered with that version; the packets counted in the metrics; a closed pool
// leaves every batch to the HTTP thread.
import { expectMessage, ok, startTestDaemon, Client, type TestDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';
import { loadSettings } from '../../src/settings';

let threaded: TestDaemon;
let inline: TestDaemon;
const t = new Client('');
const i = new Client('');

/** The same configuration on both daemons: their versions are the same too. */
async function configure(c: Client): Promise<void> {
  await c.begin();
  await lanWan(c);
  await ok(c.put('/api/interfaces/eth2', { ip: '2001:db8:2::1/64' }));
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['eth2'] }));
  await ok(c.post('/api/addresses', { name: 'pub', ips: ['203.0.113.2/32'] }));
  await ok(c.post('/api/addresses', { name: 'v6', ips: ['2001:db8:2::/64'] }));
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
  await ok(c.post('/api/services', { name: 'dns', protocol: 'udp', ports: [53] }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'dst-zone': 'wan', 'out-interface': 'eth0' }));
  await ok(c.post('/api/nat', { type: 'dnat-port', 'src-zone': 'wan', 'dst-addr': 'pub', service: 'https', 'translated-ip': '10.0.0.10', 'translated-port': '8443' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', log: true }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'wan', 'dst-zone': 'lan', 'dst-addr': 'pub', services: ['https'] }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['dns'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', 'dst-addr': 'v6' }));
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
}

beforeAll(async () => {
  threaded = await startTestDaemon({ FW_EVAL_THREADS: '2' });
  inline = await startTestDaemon({ FW_EVAL_THREADS: '0' });
  t.url = threaded.url;
  i.url = inline.url;
  await Promise.all([t.login(), i.login()]);
  await Promise.all([configure(t), configure(i)]);
});

afterAll(async () => {
  await threaded?.close();
  await inline?.close();
});

/** A deterministic pseudo-random source (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const V4 = ['10.0.0.5', '10.0.0.10', '10.0.0.99', '203.0.113.2', '203.0.113.9', '8.8.8.8', '192.0.2.1'];
const V6 = ['2001:db8:2::5', '2001:db8:2::ff', '2001:db8::1', '2001:db8:1::1', '::1'];
const PROTOCOLS = ['tcp', 'udp', 'icmp', 47];
const ZONES = ['lan', 'wan', 'dmz', null];

/** A random packet: either family, with or without ports, interface and zones. */
function packet(r: () => number): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const v6 = r() < 0.3;
  const protocol = pick(PROTOCOLS);
  const p: Record<string, unknown> = { 'src-ip': pick(v6 ? V6 : V4), 'dst-ip': pick(v6 ? V6 : V4), protocol };
  if (protocol === 'tcp' || protocol === 'udp') p['dst-port'] = pick([53, 443, 80, 8443, Math.floor(r() * 65536)]);
  if (r() < 0.3) p['src-port'] = Math.floor(r() * 65536);
  if (r() < 0.3) p['in-interface'] = pick(['eth0', 'eth1', 'eth2']);
  if (r() < 0.2) p['src-zone'] = pick(ZONES);
  if (r() < 0.2) p['dst-zone'] = pick(ZONES);
  return p;
}

function batch(seed: number, n: number): string {
  const r = rng(seed);
  return JSON.stringify({ packets: Array.from({ length: n }, () => packet(r)) });
}

/** The same request to both daemons: the same status and the same bytes. */
async function same(body: string, query = ''): Promise<string> {
  const [a, b] = await Promise.all([t.raw('POST', `/api/eval/batch${query}`, body), i.raw('POST', `/api/eval/batch${query}`, body)]);
  expect(a.status).toBe(b.status);
  expect(a.text).toBe(b.text);
  return a.text;
}

test('random batches of both families, names, zones and NAT: byte for byte the inline answers', async () => {
  const before = threaded.daemon.ctx.batchPool!.answered;
  for (let s = 1; s <= 6; s++) {
    const text = await same(batch(s, 1000 + 700 * s));
    expect(JSON.parse(text).results).toHaveLength(1000 + 700 * s);
  }
  expect(await same(batch(99, 10000))).toMatch(/^\{"version":1,"results":\[/);
  expect(threaded.daemon.ctx.batchPool!.answered - before).toBe(7);
});

test('concurrent batches: more requests than threads, each answer is its own body\'s', async () => {
  const bodies = Array.from({ length: 12 }, (_, k) => batch(100 + k, 1200 + 97 * k));
  const expected = await Promise.all(bodies.map((b) => i.raw('POST', '/api/eval/batch', b)));
  const got = await Promise.all(bodies.map((b) => t.raw('POST', '/api/eval/batch', b)));
  got.forEach((g, k) => {
    expect(g.status).toBe(200);
    expect(g.text).toBe(expected[k].text);
  });
});

test('errors in large batches are the inline ones: unknown names, refused packets, malformed bodies', async () => {
  const packets = JSON.parse(batch(7, 2000)).packets as Array<Record<string, unknown>>;
  const at = (k: number, p: Record<string, unknown>) => JSON.stringify({ packets: packets.map((x, j) => (j === k ? p : x)) });
  const unknownZone = JSON.parse(await same(at(1234, { ...packets[0], 'src-zone': 'nowhere' })));
  expect(unknownZone.code).toBe('ERR_NET_2003');
  expect(unknownZone.details).toMatch(/nowhere/);
  expect(JSON.parse(await same(at(1500, { ...packets[0], 'in-interface': 'eth9' }))).code).toBe('ERR_NET_2003');
  expect(JSON.parse(await same(at(1999, { 'src-ip': '10.0.0.1', 'dst-ip': '::1', protocol: 'tcp', 'dst-port': 1 }))).code).toBe('ERR_NET_1001'); // families differ;
  expect(JSON.parse(await same(at(3, { 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'tcp' }))).code).toBe('ERR_NET_1004');
  const good = batch(8, 2000);
  expect(JSON.parse(await same(good.slice(0, -5))).code).toBe('ERR_NET_1004');
  // formatted JSON: the scanner leaves it to JSON.parse, the answer is the same
  expect(JSON.parse(await same(JSON.stringify(JSON.parse(good), null, 2))).results).toHaveLength(2000);
  expect(JSON.parse(await same(JSON.stringify({ packets, extra: 1 }))).code).toBe('ERR_NET_1004');
  // a candidate is answered inline, the same way
  await Promise.all([t.begin(), i.begin()]);
  try {
    await same(good, '?config=candidate');
  } finally {
    await Promise.all([t.post('/api/config/discard'), i.post('/api/config/discard')]);
  }
  // the threads still answer after all this
  const before = threaded.daemon.ctx.batchPool!.answered;
  await same(good);
  expect(threaded.daemon.ctx.batchPool!.answered).toBe(before + 1);
});

test('a version committed between requests is answered with that version', async () => {
  const body = batch(9, 3000);
  const v1 = JSON.parse(await same(body));
  for (const c of [t, i]) {
    await c.begin();
    const added = await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan' }));
    await ok(c.post(`/api/policies/${added.body.id}/move`, { position: 'top' }));
    expectMessage(await c.post('/api/config/commit'), 'commit successful');
  }
  const v2 = JSON.parse(await same(body));
  expect(v2.version).toBe(v1.version + 1);
  expect(v2.results).not.toEqual(v1.results);
});

test('packets answered by the threads are counted', async () => {
  const metric = async () => {
    const m = await t.raw('GET', '/metrics');
    return Number(/fwd_eval_packets_total\{endpoint="batch"\} (\d+)/.exec(m.text)![1]);
  };
  const before = await metric();
  const answered = threaded.daemon.ctx.batchPool!.answered;
  await same(batch(10, 2500));
  expect(await metric()).toBe(before + 2500);
  expect(threaded.daemon.ctx.batchPool!.answered).toBe(answered + 1);
});

test('a closed pool (the daemon shutting down) answers inline, the same bytes', async () => {
  const pool = threaded.daemon.ctx.batchPool!;
  await pool.close();
  const answered = pool.answered;
  const text = await same(batch(11, 3000));
  expect(JSON.parse(text).results).toHaveLength(3000);
  expect(pool.answered).toBe(answered);
});

test('FW_EVAL_THREADS: 0 starts no pool; a value out of range is refused at start', () => {
  expect(inline.daemon.ctx.batchPool).toBeUndefined();
  expect(threaded.settings.evalThreads).toBe(2);
  expect(() => loadSettings({ FW_EVAL_THREADS: '-1' })).toThrow(/FW_EVAL_THREADS must be an integer from 0 to 64/);
  expect(loadSettings({}).evalThreads).toBeLessThanOrEqual(4);
});
