// Hits with times on a real kernel: TCP connections through a policy and a masquerade rule
// move their hits, bytes and last-hit time; the rules no packet met stay at zero and are
// what GET /api/analysis/unused (and its CSV) lists; totals survive a commit and a restart of
// the daemon; a reset (operator, audited) zeroes them.
import { ok, startTestDaemon, Client } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';
import type { Agent } from '../helpers/netns';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;
let client: Agent;
let sport = 43000;
const ENV = { FW_HITS_INTERVAL: '1' };

interface RuleHits { kind: string; id: number; hits: number; bytes: number; firstHitAt: string | null; lastHitAt: string | null }

beforeAll(async () => {
  ld = await startLabDaemon(2, [], 4, ENV);
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/services', { name: 'app', protocol: 'tcp', ports: [7001] }));
  await ok(c.post('/api/services', { name: 'dns', protocol: 'udp', ports: [53] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['app'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['dns'] }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'out-interface': 'fw2' }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'dmz', 'out-interface': 'fw1' })); // no traffic goes that way
  await c.commit();
  const [p1, p2] = ld.lab.peers;
  await ld.lab.agent(p2.ns, [p2.address], [7001]);
  client = await ld.lab.agent(p1.ns, [], []);
}, 120000);

afterAll(async () => stopLabDaemon(ld));

async function hits(c: Client = ld.client): Promise<Map<string, RuleHits>> {
  const body = (await ok(c.get('/api/analysis/hits'))).body as { rules: RuleHits[] };
  return new Map(body.rules.map((r) => [`${r.kind} ${r.id}`, r]));
}

/** Opens `n` TCP connections lan -> dmz:7001 and waits (bounded) until policy 1's hits reach `atLeast`. */
async function traffic(n: number, atLeast: number): Promise<Map<string, RuleHits>> {
  const [p1, p2] = ld.lab.peers;
  client.send(Array.from({ length: n }, () => ({ token: `h${sport}`, proto: 'tcp' as const, src: p1.address, sport: sport++, dst: p2.address, dport: 7001 })));
  const end = Date.now() + 15000;
  let h = await hits();
  while ((h.get('policy 1')?.hits ?? 0) < atLeast && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 300));
    h = await hits();
  }
  return h;
}

test('hits, bytes and last-hit times move with traffic; rules without traffic stay at zero and are unused', async () => {
  const first = await traffic(3, 3);
  const p1 = first.get('policy 1')!;
  expect(p1.hits).toBe(3); // the first packet of each connection
  expect(p1.bytes).toBeGreaterThan(0);
  expect(p1.firstHitAt).not.toBeNull();
  expect(p1.lastHitAt! >= p1.firstHitAt!).toBe(true);
  expect(first.get('nat 1')).toEqual(expect.objectContaining({ hits: 3, lastHitAt: expect.any(String) }));
  expect(first.get('policy 2')).toEqual({ kind: 'policy', id: 2, hits: 0, bytes: 0, firstHitAt: null, lastHitAt: null });

  await new Promise((r) => setTimeout(r, 1100)); // the next hit falls in a later sample
  const second = (await traffic(2, 5)).get('policy 1')!;
  expect(second.hits).toBe(5);
  expect(second.firstHitAt).toBe(p1.firstHitAt);
  expect(second.lastHitAt! > p1.lastHitAt!).toBe(true);

  const unused = (await ok(ld.client.get('/api/analysis/unused?days=1'))).body;
  expect(unused.days).toBe(1);
  expect(unused.rules.map((r: RuleHits) => `${r.kind} ${r.id}`)).toEqual(['policy 2', 'nat 2']);
  const csv = await ld.client.get('/api/analysis/unused.csv?days=1');
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  expect(csv.text).toBe('kind,id,hits,bytes,firstHitAt,lastHitAt\r\npolicy,2,0,0,,\r\nnat,2,0,0,,\r\n');
}, 60000);

test('fwctl hits shows every rule with its hits and times; --unused DAYS only the rules without', async () => {
  const env = { FWCTL_URL: ld.td.url, FWCTL_TOKEN: ld.client.token };
  const api = await hits();
  const json = await fwctl(['hits', '--json'], env);
  expect(json.code).toBe(0);
  const all = JSON.parse(json.stdout) as { rules: RuleHits[] };
  expect(all.rules.map((r) => `${r.kind} ${r.id}`)).toEqual(['policy 1', 'policy 2', 'nat 1', 'nat 2']);
  expect(all.rules.find((r) => r.kind === 'policy' && r.id === 1)!.hits).toBeGreaterThanOrEqual(api.get('policy 1')!.hits);
  const text = await fwctl(['hits'], env);
  expect(text.code).toBe(0);
  const lines = text.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^kind +id +hits +bytes +first-hit +last-hit$/);
  expect(lines[1]).toMatch(/^policy +1 +[1-9]\d* +[1-9]\d* +\d{4}-\d\d-\d\dT\S+Z +\d{4}-\d\d-\d\dT\S+Z$/);
  expect(lines[2]).toMatch(/^policy +2 +0 +0 +- +-$/);
  expect(text.stderr).toMatch(/^version \d+: 4 rules, sampled at \d{4}-/);
  const unused = await fwctl(['hits', '--unused', '1'], env);
  expect(unused.code).toBe(0);
  expect(unused.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/ +/).slice(0, 2).join(' '))).toEqual(['policy 2', 'nat 2']);
  expect(unused.stderr).toMatch(/^version \d+: 2 rules with no hit for 1 days \(since \d{4}-/);
  const bad = await fwctl(['hits', '--unused', '0'], env);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/ERR_NET_1008.*days/);
});

test('totals and times survive a commit and a restart of the daemon; a reset zeroes them (audited)', async () => {
  const before = (await hits()).get('policy 1')!;
  expect(before.hits).toBeGreaterThan(0);
  await ld.client.begin();
  await ok(ld.client.post('/api/addresses', { name: 'unrelated', ips: ['192.0.2.1/32'] }));
  await ld.client.commit();
  expect((await hits()).get('policy 1')).toEqual(before);

  await ld.td.close();
  ld.td = await startTestDaemon({ FW_DATAPLANE: 'linux', FW_NETNS: ld.lab.fw, FW_INTERFACES: ld.lab.peers.map((p) => p.link).join(','), ...ENV }, ld.td.dir);
  ld.client = await new Client(ld.td.url).login();
  expect((await hits()).get('policy 1')).toEqual(before);

  expect((await ok(ld.client.post('/api/analysis/hits/reset'))).body).toEqual({ message: 'hits reset' });
  expect((await hits()).get('policy 1')).toEqual({ kind: 'policy', id: 1, hits: 0, bytes: 0, firstHitAt: null, lastHitAt: null });
  const audit = (await ok(ld.client.get('/api/audit?action=hits.reset'))).body.entries;
  expect(audit).toHaveLength(1);
  const after = (await traffic(1, 1)).get('policy 1')!;
  expect(after.hits).toBe(1);
}, 90000);
