// The traffic log on a real kernel: connections across the lab firewall are logged by the
// kernel (NFLOG), read by the daemon's ulogd and served by GET /api/logs/traffic. For every
// flow, a record exists exactly when POST /api/eval says its policy logs (or it meets the
// default deny, FW_LOG_DEFAULT_DENY=on), and says what eval says: action, policy, zones, NAT,
// with the original destination of a DNAT'd connection. Filters, time range and cursor pages.
import { expectError, ok } from '../helpers/daemon';
import { openEvents } from '../helpers/sse';
import { fwctl } from '../helpers/fwctl';
import type { Agent } from '../helpers/netns';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';
import { sendAndCompare, type Planned, type Trial } from './trials';
import { startRsyslog, type TestRsyslog } from '../helpers/rsyslog';
import { makeCert } from '../helpers/tls';
import { tempDir } from '../helpers/temp-dirs';

const PORTS = [22, 53, 80, 443, 5000];
const VIP = '198.51.100.1';
let ld: LabDaemon;
const agents = new Map<number, Agent>();
let plan: Planned[] = [];
/** FW_SYSLOG's receiver: the records reach it as TRAFFIC messages */
let rs: TestRsyslog;

interface Rec {
  id: string; node: string; at: string; policy: number | null; policyName: string | null; action: string; family: number;
  protocol: string; src: string; dst: string; 'src-port': number | null; 'dst-port': number | null;
  srcZone: string | null; dstZone: string | null; inInterface: string | null; outInterface: string | null;
  nat: { id: number; type: string; translatedIP: string; translatedPort: string } | null;
}

const list = async (query = '') => (await ok(ld.client.get(`/api/logs/traffic${query}`))).body as { node: string; records: Rec[]; next: string | null };

/** Every record of the log (pages of 1000). */
async function all(query = ''): Promise<Rec[]> {
  const out: Rec[] = [];
  for (let cursor: string | null = null; ;) {
    const page = await list(`?limit=1000${query}${cursor ? `&cursor=${cursor}` : ''}`);
    out.push(...page.records);
    if (!page.next) return out;
    cursor = page.next;
  }
}

const logged = (x: Planned) => (x.a as { policy: { log: boolean } | null }).policy?.log === true || (x.a as unknown as { reason: string }).reason === 'default-deny';

beforeAll(async () => {
  rs = await startRsyslog(makeCert(tempDir(), 'rsyslog'));
  ld = await startLabDaemon(2, [], 4, { FW_LOG_DEFAULT_DENY: 'on', FW_TRAFFIC_LOG_KEEP: '100', FW_SYSLOG: `udp://127.0.0.1:${rs.ports.udp}` });
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80, 5000] }));
  await ok(c.post('/api/services', { name: 'dns', protocol: 'udp', ports: [53] }));
  await ok(c.post('/api/services', { name: 'ssh', protocol: 'tcp', ports: [22] }));
  await ok(c.post('/api/services', { name: 'http', protocol: 'tcp', ports: [80] }));
  await ok(c.post('/api/addresses', { name: 'vip', ips: [`${VIP}/32`] }));
  await ok(c.post('/api/policies', { name: 'web-in', action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['web'], log: true }));
  await ok(c.post('/api/policies', { name: 'no-dns', action: 'deny', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['dns'], log: true }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['ssh'] }));
  await ok(c.post('/api/nat', { type: 'dnat-port', 'src-zone': 'lan', 'dst-addr': 'vip', service: 'http', 'translated-ip': ld.lab.peers[1].address, 'translated-port': '5000' }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'out-interface': 'fw2' }));
  await c.commit();
  for (const p of ld.lab.peers) agents.set(p.index, await ld.lab.agent(p.ns, [p.address, p.behind], PORTS));
  const [p1, p2] = ld.lab.peers;
  const flows: Array<[Trial['proto'], string, number]> = [
    ['tcp', p2.address, 80], ['tcp', p2.address, 5000], ['tcp', VIP, 80], ['udp', p2.address, 53],
    ['tcp', p2.address, 22], ['tcp', p2.address, 443], ['udp', p2.address, 5000],
  ];
  const trials: Trial[] = flows.map(([proto, dst, dport], i) => ({ from: 1, token: `tl${i}`, proto, src: p1.address, sport: 41000 + i, dst, dport }));
  const r = await sendAndCompare(c, ld.lab.peers, agents, trials);
  expect(r.mismatches).toEqual([]);
  plan = r.plan;
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
  await rs?.stop();
});

test('a record per logged flow, saying what POST /api/eval says of it; none for flows that do not log', async () => {
  expect(plan).toHaveLength(7);
  const want = plan.filter(logged);
  // logged: the two web flows, the DNAT'd one, the denied DNS query, two default denials
  expect(want.map((x) => x.t.token).sort()).toEqual(['tl0', 'tl1', 'tl2', 'tl3', 'tl5', 'tl6']);
  let records: Rec[] = [];
  const deadline = Date.now() + 10000;
  const have = () => want.every((x) => records.some((r) => r['src-port'] === x.t.sport));
  while (!have() && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 200));
    records = await all();
  }
  for (const x of plan) {
    const mine = records.filter((r) => r['src-port'] === x.t.sport);
    if (!logged(x)) {
      expect({ flow: x.t.token, records: mine }).toEqual({ flow: x.t.token, records: [] });
      continue;
    }
    // an allowed connection is one record; a denied one is one per attempt (a SYN retried)
    if (x.a.action === 'allow') expect(mine).toHaveLength(1);
    else expect(mine.length).toBeGreaterThanOrEqual(1);
    const a = x.a as unknown as { action: string; srcZone: string; dstZone: string; nat: Rec['nat']; policy: { id: number } | null };
    for (const r of mine) {
      expect({ flow: x.t.token, ...r }).toEqual({
        flow: x.t.token, id: expect.stringMatching(/^\d+-\d+$/), node: expect.any(String), at: expect.any(String),
        policy: a.policy?.id ?? null, policyName: a.policy ? (a.policy.id === 1 ? 'web-in' : 'no-dns') : null,
        action: a.action, family: 4, protocol: x.t.proto, src: x.t.src, dst: x.t.dst, 'src-port': x.t.sport, 'dst-port': x.t.dport,
        'icmp-type': null, srcZone: a.srcZone, dstZone: a.dstZone, inInterface: 'fw1', outInterface: a.action === 'allow' ? 'fw2' : expect.anything(),
        nat: a.nat,
      });
      expect(Math.abs(Date.parse(r.at) - Date.now())).toBeLessThan(120000);
    }
  }
  // the DNAT'd connection: addressed to the VIP, translated to the server's port 5000
  const dnat = records.find((r) => r.dst === VIP)!;
  expect(dnat.nat).toEqual(expect.objectContaining({ type: 'dnat-port', translatedIP: ld.lab.peers[1].address, translatedPort: '5000' }));
  expect(records.filter((r) => r.policy === null).every((r) => r.action === 'deny')).toBe(true);
});

test('every record reaches the FW_SYSLOG receiver as an RFC 5424 TRAFFIC message with the same flow', async () => {
  const records = await all();
  expect(records.length).toBeGreaterThan(0);
  for (const r of records) {
    const m = await rs.waitFor('udp', (x) => x.msgid === 'TRAFFIC' && x.sd['traffic@32473']?.sport === String(r['src-port']) && x.sd['traffic@32473']?.dst === r.dst, 10000);
    expect({ app: m.app, ...m.sd['traffic@32473'] }).toEqual(expect.objectContaining({
      app: 'fwd', action: r.action, proto: r.protocol, src: r.src, dport: String(r['dst-port']),
      policy_id: r.policy === null ? 'default-deny' : String(r.policy),
    }));
  }
});

test('filters, time range and cursor pages', async () => {
  const records = await all();
  const ids = records.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  const sorted = [...records].sort((a, b) => (a.id.split('-').map(Number)[0] - b.id.split('-').map(Number)[0]) || (a.id.split('-').map(Number)[1] - b.id.split('-').map(Number)[1])).reverse();
  expect(ids).toEqual(sorted.map((r) => r.id)); // newest first
  const pick = async (q: string) => (await all(q)).map((r) => r.id);
  const only = (f: (r: Rec) => boolean) => records.filter(f).map((r) => r.id);
  expect(await pick('&action=deny')).toEqual(only((r) => r.action === 'deny'));
  expect(only((r) => r.action === 'deny').length).toBeGreaterThanOrEqual(3);
  expect(await pick('&policy=1')).toEqual(only((r) => r.policy === 1));
  expect((await pick('&policy=1')).length).toBe(3);
  expect(await pick('&policy=default')).toEqual(only((r) => r.policy === null));
  expect(await pick('&protocol=udp')).toEqual(only((r) => r.protocol === 'udp'));
  expect(await pick('&port=53')).toEqual(only((r) => r['dst-port'] === 53));
  expect(await pick('&address=198.51.100.0/24')).toEqual(only((r) => r.dst === VIP));
  expect((await pick('&address=198.51.100.0/24')).length).toBe(1);
  expect(await pick('&zone=dmz')).toEqual(ids);
  expect(await pick('&zone=wan')).toEqual([]);
  expect(await pick(`&since=${new Date(Date.now() + 60000).toISOString()}`)).toEqual([]);
  expect(await pick(`&until=${new Date(Date.now() - 3600000).toISOString()}`)).toEqual([]);
  expect(await pick(`&since=${new Date(Date.now() - 3600000).toISOString()}&until=${new Date(Date.now() + 60000).toISOString()}`)).toEqual(ids);
  // pages of two follow the cursor through every record once
  const paged: string[] = [];
  for (let cursor: string | null = null; ;) {
    const page = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.records.length).toBeLessThanOrEqual(2);
    paged.push(...page.records.map((r) => r.id));
    if (!page.next) break;
    cursor = page.next;
  }
  expect(paged).toEqual(ids);
});

test('bad filters are refused with the contract\'s codes; an unknown node is 404', async () => {
  const c = ld.client;
  expectError(await c.get('/api/logs/traffic?address=10.1.0.300'), 400, 'ERR_NET_1001');
  expectError(await c.get('/api/logs/traffic?action=maybe'), 400, 'ERR_NET_1005');
  expectError(await c.get('/api/logs/traffic?protocol=carrier-pigeon'), 400, 'ERR_NET_1006');
  expectError(await c.get('/api/logs/traffic?port=70000'), 400, 'ERR_NET_1008');
  expectError(await c.get('/api/logs/traffic?since=yesterday'), 400, 'ERR_NET_1004');
  expectError(await c.get('/api/logs/traffic?cursor=abc'), 400, 'ERR_NET_1004');
  expectError(await c.get('/api/logs/traffic?limit=0'), 400, 'ERR_NET_1008');
  expectError(await c.get('/api/logs/traffic?node=elsewhere'), 404, 'ERR_NET_1003');
});

test('live through GET /api/events?types=traffic: new records as they come, filtered; a resume replays the missed ones', async () => {
  const auth = { Authorization: `Bearer ${ld.client.token}` };
  const allowed = await openEvents(ld.td.url, '/api/events?types=traffic&action=allow', auth);
  const everything = await openEvents(ld.td.url, '/api/events?types=traffic', auth);
  try {
    expect(allowed.status).toBe(200);
    const [p1, p2] = ld.lab.peers;
    const flows: Trial[] = [
      { from: 1, token: 'live-deny', proto: 'udp', src: p1.address, sport: 42001, dst: p2.address, dport: 53 },
      { from: 1, token: 'live-allow', proto: 'tcp', src: p1.address, sport: 42002, dst: p2.address, dport: 80 },
    ];
    expect((await sendAndCompare(ld.client, ld.lab.peers, agents, flows)).mismatches).toEqual([]);
    const live = await allowed.next((m) => m.event === 'traffic', 'an allowed record');
    expect(live.data).toEqual(expect.objectContaining({ type: 'traffic', action: 'allow', 'src-port': 42002, policy: 1, id: live.id }));
    const denied = await everything.next((m) => m.event === 'traffic' && m.data['src-port'] === 42001, 'the denied record');
    expect(denied.data.action).toBe('deny');
    await everything.next((m) => m.event === 'traffic' && m.data['src-port'] === 42002, 'the allowed record');
    // the filtered stream never had the denied one
    expect(allowed.messages.filter((m) => m.event === 'traffic').map((m) => m.data['src-port'])).toEqual([42002]);
    // resuming after the first record of the log gives every later one, oldest first, from the store
    const kept = (await all()).reverse();
    const resumed = await openEvents(ld.td.url, '/api/events?types=traffic', { ...auth, 'Last-Event-ID': kept[0].id });
    try {
      const last = kept[kept.length - 1].id;
      await resumed.next((m) => m.id === last, 'the newest record, replayed');
      expect(resumed.messages.filter((m) => m.event === 'traffic').map((m) => m.id)).toEqual(kept.slice(1).map((r) => r.id));
    } finally {
      resumed.close();
    }
  } finally {
    allowed.close();
    everything.close();
  }
});

test('the live tail refuses mixed types and bad ids; /metrics counts records kept and dropped', async () => {
  const auth = { Authorization: `Bearer ${ld.client.token}` };
  const mixed = await openEvents(ld.td.url, '/api/events?types=traffic,commit', auth);
  expect({ status: mixed.status, code: mixed.error?.code }).toEqual({ status: 400, code: 'ERR_NET_1005' });
  const badId = await openEvents(ld.td.url, '/api/events?types=traffic', { ...auth, 'Last-Event-ID': '12' });
  expect({ status: badId.status, code: badId.error?.code }).toEqual({ status: 400, code: 'ERR_NET_1004' });
  const badFilter = await openEvents(ld.td.url, '/api/events?types=traffic&action=perhaps', auth);
  expect({ status: badFilter.status, code: badFilter.error?.code }).toEqual({ status: 400, code: 'ERR_NET_1005' });
  const text = (await ok(ld.client.get('/metrics'))).text as string;
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
  expect(value('fwd_traffic_log_records_total')).toBe((await all()).length);
  expect(value('fwd_traffic_log_dropped_total')).toBe(0);
  expect(value('fwd_traffic_log_queued')).toBe(0);
});

test('fwctl logs: the log with filters as a table or JSON, and --follow for new records', async () => {
  const env = { FWCTL_URL: ld.td.url, FWCTL_TOKEN: ld.client.token };
  const json = await fwctl(['logs', '--action', 'allow', '--all', '--json'], env);
  expect(json.code).toBe(0);
  const parsed = JSON.parse(json.stdout) as { node: string; records: Rec[] };
  expect(parsed.records.map((r) => r.id)).toEqual((await all('&action=allow')).map((r) => r.id));
  expect(parsed.records.length).toBeGreaterThan(0);
  const text = await fwctl(['logs', '--policy', '1', '--protocol', 'tcp', '--limit', '2'], env);
  expect(text.code).toBe(0);
  expect(text.stdout.split('\n')[0]).toMatch(/^time +action +policy +proto +source +destination +zones +in>out +nat$/);
  expect(text.stdout).toMatch(/ allow +1 web-in +tcp +10\.1\.0\.2:4\d+ +(10\.2\.0\.2|198\.51\.100\.1):(80|5000) +lan>dmz +fw1>fw2 +(snat|dnat-port) /);
  expect(text.stderr).toMatch(/^2 records of node /);
  const bad = await fwctl(['logs', '--action', 'maybe'], env);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/action/);
  // --follow prints the next record the filters select, then --count stops it
  const following = fwctl(['logs', '--follow', '--count', '1', '--port', '5000', '--json'], env);
  const [p1, p2] = ld.lab.peers;
  const got = following;
  for (let sport = 43000; ; sport++) {
    // until the stream is open, a record goes by unseen: send again until fwctl reports one
    const sent: Trial = { from: 1, token: `follow${sport}`, proto: 'tcp', src: p1.address, sport, dst: p2.address, dport: 5000 };
    expect((await sendAndCompare(ld.client, ld.lab.peers, agents, [sent])).mismatches).toEqual([]);
    const done = await Promise.race([got.then(() => true), new Promise((r) => setTimeout(() => r(false), 1000))]);
    if (done || sport > 43010) break;
  }
  const out = await got;
  expect(out.code).toBe(0);
  const rec = JSON.parse(out.stdout.trim()) as Rec & { type: string };
  expect(rec).toEqual(expect.objectContaining({ type: 'traffic', 'dst-port': 5000, action: 'allow', policy: 1, src: p1.address }));
});

test('FW_TRAFFIC_LOG_KEEP: the newest records are kept, the oldest dropped; a resume from a dropped one is told to resync', async () => {
  const before = (await all()).reverse(); // oldest first
  expect(before.length).toBeLessThan(50);
  const [p1, p2] = ld.lab.peers;
  // 120 denied datagrams: each is a new connection to the kernel, logged by the default deny
  const flood: Trial[] = Array.from({ length: 120 }, (_, i) => ({ from: 1, token: `flood${i}`, proto: 'udp', src: p1.address, sport: 45000 + i, dst: p2.address, dport: 443 }));
  expect((await sendAndCompare(ld.client, ld.lab.peers, agents, flood)).mismatches).toEqual([]);
  let records: Rec[] = [];
  const deadline = Date.now() + 10000;
  while (!records.some((r) => r['src-port'] === 45119) && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 200));
    records = await all();
  }
  expect(records).toHaveLength(100);
  // all of them the flood's newest 100
  expect(records.filter((r) => r['src-port']! >= 45020 && r['src-port']! < 45120)).toHaveLength(100);
  expect(records.some((r) => r.id === before[0].id)).toBe(false); // the oldest went first
  const auth = { Authorization: `Bearer ${ld.client.token}` };
  const resumed = await openEvents(ld.td.url, '/api/events?types=traffic', { ...auth, 'Last-Event-ID': before[0].id });
  try {
    const m = await resumed.next((x) => x.event === 'resync', 'resync');
    expect(m.data).toEqual({ type: 'resync', id: records[0].id, reason: expect.stringMatching(/no longer kept/) });
  } finally {
    resumed.close();
  }
});
