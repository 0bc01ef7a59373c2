// Real packets with source ports across a real kernel firewall (issue 27: FW_DATAPLANE=linux in
// namespaces of our own): policies of services that name source ports (udp and tcp) and a
// dnat-port rule whose service names them. UDP and TCP packets from a matching and a
// non-matching source port each arrive exactly where POST /api/eval/batch says (translated or
// not), or not at all.
import { ok } from '../helpers/daemon';
import type { Agent } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';
import { sendAndCompare, type Trial } from './trials';

let ld: LabDaemon | undefined;
const agents = new Map<number, Agent>();
const PORTS = [7000, 7001, 7100, 7101];

beforeAll(async () => {
  ld = await startLabDaemon(2);
  for (const p of ld.lab.peers) agents.set(p.index, await ld.lab.agent(p.ns, [p.address], PORTS));
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

test('UDP and TCP from matching and other source ports, a dnat by source port: the kernel does what eval answers', async () => {
  const { client: c, lab } = ld!;
  const [p1, p2] = lab.peers;
  await c.begin();
  await ok(c.post('/api/zones', { name: 'z1', type: 'l3', interfaces: [p1.link] }));
  await ok(c.post('/api/zones', { name: 'z2', type: 'l3', interfaces: [p2.link] }));
  await ok(c.post('/api/addresses', { name: 'p2', ips: [`${p2.address}/32`] }));
  await ok(c.post('/api/services', { name: 'udp-hi', protocol: 'udp', ports: [7000], 'source-ports': ['40000-40009'] }));
  await ok(c.post('/api/services', { name: 'tcp-src', protocol: 'tcp', ports: [7001], 'source-ports': [42001, 42003] }));
  await ok(c.post('/api/services', { name: 'nat-src', protocol: 'udp', ports: [7100], 'source-ports': ['41000-41009'] }));
  await ok(c.post('/api/services', { name: 'u7100', protocol: 'udp', ports: [7100] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'z1', 'dst-zone': 'z2', services: ['udp-hi', 'tcp-src'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'z1', 'dst-zone': 'z2', services: ['u7100'] }));
  await ok(c.post('/api/nat', { type: 'dnat-port', 'src-zone': 'z1', 'dst-addr': 'p2', service: 'nat-src', 'translated-ip': p2.address, 'translated-port': '7101' }));
  await c.commit();

  let n = 0;
  const trial = (from: typeof p1, to: typeof p2, proto: 'tcp' | 'udp', sport: number, dport: number): Trial =>
    ({ from: from.index, token: `sp${n++}-${sport}`, proto, src: from.address, sport, dst: to.address, dport });
  const all = [
    trial(p1, p2, 'udp', 40005, 7000), // allowed by its source port
    trial(p1, p2, 'udp', 40010, 7000), // one port past it: denied
    trial(p1, p2, 'udp', 39999, 7000),
    trial(p1, p2, 'tcp', 42001, 7001),
    trial(p1, p2, 'tcp', 42002, 7001), // between the two source ports: denied
    trial(p1, p2, 'udp', 41005, 7100), // translated to 7101 by its source port
    trial(p1, p2, 'udp', 41050, 7100), // not translated, allowed on 7100
    trial(p2, p1, 'udp', 40005, 7000), // the other way: no policy
  ];
  const { plan, mismatches } = await sendAndCompare(c, lab.peers, agents, all);
  expect(mismatches).toEqual([]);
  // the answers the kernel matched: two allowed by source port, two denied by it, one dnat by it
  expect(plan.map((x) => [x.t.sport, x.t.dport, x.a.action, x.a.nat?.translatedPort ?? null])).toEqual([
    [40005, 7000, 'allow', null],
    [40010, 7000, 'deny', null],
    [39999, 7000, 'deny', null],
    [42001, 7001, 'allow', null],
    [42002, 7001, 'deny', null],
    [41005, 7100, 'allow', '7101'],
    [41050, 7100, 'allow', null],
    [40005, 7000, 'deny', null],
  ]);
}, 120000);
