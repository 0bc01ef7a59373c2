// The session table on a real kernel: long-lived TCP connections between two namespaces
// through the firewall (masqueraded), listed by GET /api/sessions with their tuples, zones,
// accepting policy, NAT, counters and age; filters and pages; DELETE /api/sessions ends the
// connections it selects (operator and up, audited) and their next packets are dropped.
import { Client, expectError, ok } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';
import { roleClients } from '../helpers/roles';
import type { TcpEnd } from '../helpers/netns';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;
const conns: Record<number, { client: TcpEnd; server: TcpEnd }> = {};

beforeAll(async () => {
  ld = await startLabDaemon(2);
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/services', { name: 'apps', protocol: 'tcp', ports: ['7001-7003'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['apps'] }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'out-interface': 'fw2' }));
  await c.commit();
  const [p1, p2] = ld.lab.peers;
  for (const port of [7001, 7002, 7003]) {
    conns[port] = await ld.lab.tcpConnection({ ns: p1.ns, src: p1.address, sport: port + 40000 }, { ns: p2.ns, dst: p2.address, dport: port });
    conns[port].client.send(`hi-${port}`);
    expect(await conns[port].server.receives(`hi-${port}`)).toBe(true);
  }
}, 120000);

afterAll(async () => stopLabDaemon(ld));

const list = async (query: string) => (await ok(ld.client.get(`/api/sessions${query}`))).body;

test('a connection is listed with its tuples, state, zones, accepting policy, NAT, counters and age', async () => {
  const page = await list('?protocol=tcp&port=7001');
  expect(page.total).toBe(1);
  expect(page.dataplane).toBe('linux');
  const s = page.sessions[0];
  expect(s).toEqual(expect.objectContaining({
    family: 4, protocol: 'tcp', state: 'ESTABLISHED', srcZone: 'lan', dstZone: 'dmz', policy: 1, cut: false,
    original: expect.objectContaining({ src: '10.1.0.2', 'src-port': 47001, dst: '10.2.0.2', 'dst-port': 7001 }),
    // masqueraded out of fw2: the server answers the firewall's address
    reply: expect.objectContaining({ src: '10.2.0.2', 'src-port': 7001, dst: '10.2.0.1' }),
    nat: { snat: { ip: '10.2.0.1', port: null }, dnat: null }, // the port kept
  }));
  expect(s.original.packets).toBeGreaterThanOrEqual(3); // SYN, ACK, data
  expect(s.bytes).toBe(s.original.bytes + s.reply.bytes);
  expect(s.bytes).toBeGreaterThan(0);
  expect(s.age).toEqual(expect.any(Number));
  expect(s.timeout).toBeGreaterThan(0);
});

test('filters select by prefix, zone, policy and state; pages follow the cursor with a total', async () => {
  const ours = '?address=10.1.0.0/24&zone=dmz&policy=1&state=established';
  expect((await list(ours)).total).toBe(3);
  expect((await list('?address=10.9.0.0/16')).total).toBe(0);
  expect((await list('?policy=2')).total).toBe(0);
  const first = await list(`${ours}&limit=2`);
  expect(first.sessions).toHaveLength(2);
  expect(first.total).toBe(3);
  const second = await list(`${ours}&limit=2&cursor=${first.next}`);
  expect(second.sessions).toHaveLength(1);
  expect(second.next).toBeNull();
  const ports = [...first.sessions, ...second.sessions].map((s: { original: { 'dst-port': number } }) => s.original['dst-port']).sort();
  expect(ports).toEqual([7001, 7002, 7003]);
});

test('bad filters are refused with the contract\'s codes', async () => {
  expectError(await ld.client.get('/api/sessions?address=10.1.0.300'), 400, 'ERR_NET_1001');
  expectError(await ld.client.get('/api/sessions?state=dancing'), 400, 'ERR_NET_1005');
  expectError(await ld.client.get('/api/sessions?protocol=carrier-pigeon'), 400, 'ERR_NET_1006');
  expectError(await ld.client.get('/api/sessions?port=70000'), 400, 'ERR_NET_1008');
  expectError(await ld.client.get('/api/sessions?limit=0'), 400, 'ERR_NET_1008');
  expectError(await ld.client.del('/api/sessions'), 400, 'ERR_NET_1004');
});

test('fwctl sessions lists them with filters; end-sessions refuses to run without one', async () => {
  const env = { FWCTL_URL: ld.td.url, FWCTL_TOKEN: ld.client.token };
  const json = await fwctl(['sessions', '--port', '7002', '--json'], env);
  expect(json.code).toBe(0);
  const parsed = JSON.parse(json.stdout) as { total: number; sessions: Array<{ original: { 'src-port': number } }> };
  expect(parsed.total).toBe(1);
  expect(parsed.sessions[0].original['src-port']).toBe(47002);
  const text = await fwctl(['sessions', '--zone', 'lan', '--limit', '2'], env);
  expect(text.code).toBe(0);
  expect(text.stdout.split('\n')[0]).toMatch(/^id +proto +source +destination +state +zones +policy +nat +packets +bytes +age$/);
  expect(text.stdout).toMatch(/ tcp +10\.1\.0\.2:4700\d +10\.2\.0\.2:700\d +ESTABLISHED +lan>dmz +1 +snat 10\.2\.0\.1 /);
  expect(text.stderr).toBe('2 of 3 connections\n');
  const refused = await fwctl(['end-sessions'], env);
  expect(refused.code).toBe(64);
  expect((await list('?protocol=tcp&address=10.1.0.2')).total).toBe(3);
});

test('DELETE ends the selected connections (operator and up, audited): their next packets are dropped', async () => {
  const roles = await roleClients(ld.client, ld.td.url);
  const one = '?src=10.1.0.2&sport=47001&dst=10.2.0.2&dport=7001&protocol=tcp';
  expectError(await roles.viewer.jwt.del(`/api/sessions${one}`), 403, 'ERR_SEC_5008');
  const operator: Client = roles.operator.jwt;
  const r = await ok(operator.del(`/api/sessions${one}`));
  expect(r.body).toEqual({ message: 'sessions ended', ended: '1', selected: '1' });
  expect((await list('?port=7001')).total).toBe(0);
  conns[7001].client.send('after-end');
  expect(await conns[7001].server.receives('after-end')).toBe(false);
  // the others flow on; then both end by one filter
  conns[7002].client.send('still');
  expect(await conns[7002].server.receives('still')).toBe(true);
  expect((await ok(operator.del('/api/sessions?zone=lan&protocol=tcp'))).body.ended).toBe('2');
  expect((await list('?address=10.1.0.0/24')).total).toBe(0);
  const audit = (await ok(ld.client.get('/api/audit?action=sessions.end'))).body.entries as Array<{ user: string; details: string }>;
  expect(audit.map((e) => e.details)).toEqual([
    expect.stringMatching(/^2 of 2 connections selected by zone=lan&protocol=tcp$/),
    expect.stringMatching(/^1 of 1 connections selected by src=10\.1\.0\.2&sport=47001/),
  ]);
  expect(audit[0].user).toBe('operator-user');
}, 60000);
