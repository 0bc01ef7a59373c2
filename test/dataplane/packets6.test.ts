// IPv6 across the kernel firewall: the same comparison as packets.test.ts on a lab whose links
// carry only IPv6 (fd0i::/64, servers fd1i::10 behind the peers): zones, a routed prefix,
// address objects, tcp and udp services, allow and deny, masquerade and dnat-port.
import { ok } from '../helpers/daemon';
import type { Agent } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';
import { sendAndCompare, type Trial } from './trials';

let ld: LabDaemon | undefined;
const agents = new Map<number, Agent>();
const PORTS = [22, 80, 443, 5353];

beforeAll(async () => {
  ld = await startLabDaemon(3, [], 6);
  for (const p of ld.lab.peers) agents.set(p.index, await ld.lab.agent(p.ns, [p.address, p.behind], PORTS));
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

test('IPv6 packets do in the kernel what POST /api/eval answers', async () => {
  const { client: c, lab } = ld!;
  await c.begin();
  await ok(c.post('/api/zones', { name: 'inside', type: 'l3', interfaces: ['fw1'] }));
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['fw2'], networks: ['fd12::/64'] }));
  await ok(c.post('/api/zones', { name: 'outside', type: 'l3', interfaces: ['fw3'] }));
  await ok(c.post('/api/routes', { destination: 'fd12::/64', gateway: 'fd02::2' }));
  await ok(c.post('/api/routes', { destination: 'fd13::/64', interface: 'fw3', gateway: 'fd03::2', metric: 4 }));
  await ok(c.post('/api/addresses', { name: 'servers', ips: ['fd12::10', 'fd03::2'] }));
  await ok(c.post('/api/addresses', { name: 'vip', ips: ['fd99::80'] }));
  await ok(c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80, '440-450'] }));
  await ok(c.post('/api/services', { name: 'mdns', protocol: 'udp', ports: [5353] }));
  await ok(c.post('/api/services', { name: 'http', protocol: 'tcp', ports: [80] }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'outside', 'dst-zone': 'inside' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'inside', services: ['web', 'mdns'], log: true }));
  await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': 'servers', services: ['web'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'outside', 'dst-zone': 'dmz', services: ['http'] }));
  await ok(c.post('/api/nat', { type: 'dnat-port', 'src-zone': 'outside', 'dst-addr': 'vip', service: 'http', 'translated-ip': 'fd12::10', 'translated-port': '443' }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'inside', 'out-interface': 'fw3' }));
  await c.commit();
  const trials: Trial[] = [];
  let sport = 31000;
  for (const p of lab.peers) {
    const dsts = [...lab.peers.filter((q) => q !== p).flatMap((q) => [q.address, q.behind]), 'fd99::80'];
    for (const dst of dsts) {
      for (const dport of PORTS) {
        for (const proto of ['tcp', 'udp'] as const) {
          trials.push({ from: p.index, token: `v6-${sport}`, proto, src: p.address, sport: sport++, dst, dport });
        }
      }
    }
  }
  const { plan, mismatches } = await sendAndCompare(c, lab.peers, agents, trials);
  expect(mismatches).toEqual([]);
  const delivered = plan.filter((x) => x.want !== null);
  expect(delivered.length).toBeGreaterThan(10);
  expect(plan.length - delivered.length).toBeGreaterThan(10);
  expect(delivered.some((x) => x.a.nat?.type === 'snat')).toBe(true);
  expect(delivered.some((x) => x.a.nat?.type === 'dnat-port')).toBe(true);
  expect(delivered.some((x) => x.want!.dst === 'fd12::10')).toBe(true);
}, 120000);
