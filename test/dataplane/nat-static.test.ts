// Two-way static NAT on a real kernel (issue 41 item 3): one rule per mapping, a host
// (peer 1's 10.1.0.2 as 192.0.2.50) and a prefix (172.16.1.0/28 as 192.0.2.64/28, host by host):
// the inside hosts' connections arrive at the outside peer from the outside addresses, and
// connections from the outside peer to the outside addresses reach the inside hosts, as POST
// /api/eval/batch answers; hosts the rules do not name cross untranslated; the rules' counters
// count both directions.
import { ok } from '../helpers/daemon';
import type { Agent } from '../helpers/netns';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';
import { sendAndCompare, type Trial } from './trials';

let ld: LabDaemon | undefined;
const agents = new Map<number, Agent>();
const PORTS = [22, 80];

beforeAll(async () => {
  ld = await startLabDaemon(2);
  for (const p of ld.lab.peers) agents.set(p.index, await ld.lab.agent(p.ns, [p.address, p.behind], PORTS));
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

test('a static rule translates outbound and inbound in the kernel as eval answers', async () => {
  const { client: c, lab } = ld!;
  const [inside, outside] = lab.peers;
  await c.begin();
  await lanDmzZones(c); // lan: fw1 (inside), dmz: fw2 (outside)
  // the servers behind the peers are in their peer's zone (a source zone is found by address)
  await ok(c.put('/api/zones/lan', { networks: ['172.16.1.0/24'] }));
  await ok(c.put('/api/zones/dmz', { networks: ['172.16.2.0/24'] }));
  await ok(c.post('/api/routes', { destination: '172.16.1.0/24', gateway: inside.address }));
  await ok(c.post('/api/routes', { destination: '172.16.2.0/24', gateway: outside.address }));
  await ok(c.post('/api/addresses', { name: 'host', ips: [`${inside.address}/32`] }));
  await ok(c.post('/api/addresses', { name: 'servers', ips: ['172.16.1.0/28'] }));
  await ok(c.post('/api/nat', { type: 'static', 'src-zone': 'lan', 'dst-zone': 'dmz', 'src-addr': 'host', 'translated-ip': '192.0.2.50' }));
  await ok(c.post('/api/nat', { type: 'static', 'src-zone': 'lan', 'dst-zone': 'dmz', 'src-addr': 'servers', 'translated-ip': '192.0.2.64/28' }));
  await ok(c.post('/api/policies', { action: 'allow' }));
  await c.commit();

  const trials: Trial[] = [];
  let port = 42000;
  const add = (from: number, src: string, dst: string) => {
    for (const proto of ['tcp', 'udp'] as const) {
      for (const dport of PORTS) trials.push({ from, token: `s${port}`, proto, src, sport: port++, dst, dport });
    }
  };
  add(inside.index, inside.address, outside.behind); // leaves as 192.0.2.50
  add(inside.index, inside.behind, outside.behind); // 172.16.1.10 leaves as 192.0.2.74
  add(outside.index, outside.address, '192.0.2.50'); // reaches 10.1.0.2
  add(outside.index, outside.behind, '192.0.2.74'); // reaches 172.16.1.10
  add(outside.index, outside.behind, inside.behind); // not translated (a route to the inside)
  const { plan, mismatches } = await sendAndCompare(c, lab.peers, agents, trials);
  expect(mismatches).toEqual([]);
  const seen = (src: string, dst: string) => plan.filter((x) => x.t.src === src && x.t.dst === dst).map((x) => x.want && `${x.want.src}>${x.want.dst}`);
  expect(new Set(seen(inside.address, outside.behind))).toEqual(new Set([`192.0.2.50>${outside.behind}`]));
  expect(new Set(seen(inside.behind, outside.behind))).toEqual(new Set([`192.0.2.74>${outside.behind}`]));
  expect(new Set(seen(outside.address, '192.0.2.50'))).toEqual(new Set([`${outside.address}>${inside.address}`]));
  expect(new Set(seen(outside.behind, '192.0.2.74'))).toEqual(new Set([`${outside.behind}>${inside.behind}`]));
  expect(new Set(seen(outside.behind, inside.behind))).toEqual(new Set([`${outside.behind}>${inside.behind}`]));
  expect(plan.filter((x) => x.a.nat?.type === 'static').length).toBe(16);
  // both rules counted the connections of both directions (8 each: a nat chain sees a connection's first packet)
  const natHits = async () => {
    const body = (await ok(c.get('/api/analysis/hits'))).body as { rules: Array<{ kind: string; id: number; hits: number }> };
    return body.rules.filter((r) => r.kind === 'nat').map((r) => ({ id: r.id, hits: r.hits }));
  };
  const end = Date.now() + 15000;
  let h = await natHits();
  while (h.some((r) => r.hits < 8) && Date.now() < end) {
    await new Promise((res) => setTimeout(res, 300));
    h = await natHits();
  }
  expect(h).toEqual([{ id: 1, hits: 8 }, { id: 2, hits: 8 }]);
}, 120000);

test('snat to a pool with persistent: every connection of one source leaves with one address of the pool', async () => {
  const { client: c, lab } = ld!;
  const [inside, outside] = lab.peers;
  await c.begin();
  await ok(c.del('/api/nat/1'));
  await ok(c.del('/api/nat/2'));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'dst-zone': 'dmz', 'translated-ip': '192.0.2.96/28', persistent: true }));
  await c.commit();
  const agent = agents.get(inside.index)!;
  const server = agents.get(outside.index)!;
  // 24 connections from each of two sources, to two addresses and two ports, tcp and udp
  const sent: Array<{ token: string; src: string }> = [];
  let port = 43000;
  const packets = [inside.address, inside.behind].flatMap((src) =>
    [outside.address, outside.behind].flatMap((dst) => PORTS.flatMap((dport) => (['tcp', 'udp'] as const).flatMap((proto) =>
      [0, 1, 2].map(() => {
        const token = `p${port}`;
        sent.push({ token, src });
        return { token, proto, src, sport: port++, dst, dport };
      })))));
  agent.send(packets);
  const end = Date.now() + 20000;
  while (sent.some((s) => !server.got.has(s.token)) && Date.now() < end) await new Promise((res) => setTimeout(res, 100));
  const seenAs = (src: string) => new Set(sent.filter((s) => s.src === src).map((s) => server.got.get(s.token)?.src ?? 'lost'));
  const a = [...seenAs(inside.address)], b = [...seenAs(inside.behind)];
  expect({ a: a.length, b: b.length }).toEqual({ a: 1, b: 1 });
  for (const ip of [...a, ...b]) expect(ip).toMatch(/^192\.0\.2\.(9[6-9]|10\d|11[01])$/);
}, 120000);
