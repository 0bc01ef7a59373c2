// Local policies on a real kernel (issue 41 item 1): packets addressed to the firewall itself
// from three peers in namespaces of their own, judged in the input chain by the local policies
// as POST /api/eval/batch answers: DNS to the firewall from one zone allowed, from another
// denied; ssh only from an admin network; the management shortcut (ping) behind them; and the
// local policies' counters counting what they took.
import { ok } from '../helpers/daemon';
import { fwAddress, type Agent } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';
import { sendAndCompare, type Trial } from './trials';

let ld: LabDaemon | undefined;
const agents = new Map<number, Agent>();

beforeAll(async () => {
  ld = await startLabDaemon(3);
  for (const p of ld.lab.peers) agents.set(p.index, await ld.lab.agent(p.ns, [p.address, p.behind], [53, 22]));
  // the services of the firewall itself: an agent in its namespace, on each of its addresses
  agents.set(0, await ld.lab.agent(ld.lab.fw, ld.lab.peers.map((p) => fwAddress(p.index)), [53, 22]));
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

test('DNS from lan only, ssh from the admin host only: the kernel does what eval answers', async () => {
  const { client: c, lab } = ld!;
  const [lan, guest, admin] = lab.peers;
  await c.begin();
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: [lan.link] }));
  await ok(c.post('/api/zones', { name: 'guest', type: 'l3', interfaces: [guest.link] }));
  await ok(c.post('/api/zones', { name: 'adm', type: 'l3', interfaces: [admin.link] }));
  await ok(c.post('/api/addresses', { name: 'admin-host', ips: [`${admin.address}/32`] }));
  await ok(c.post('/api/services', { name: 'dns-udp', protocol: 'udp', ports: [53] }));
  await ok(c.post('/api/services', { name: 'dns-tcp', protocol: 'tcp', ports: [53] }));
  await ok(c.post('/api/services', { name: 'ssh', protocol: 'tcp', ports: [22] }));
  await ok(c.post('/api/local-policies', { action: 'allow', 'src-zone': 'lan', services: ['dns-udp', 'dns-tcp'] }));
  await ok(c.post('/api/local-policies', { action: 'allow', 'src-addr': 'admin-host', services: ['ssh'] }));
  // the guests' ssh shortcut is shadowed by this deny: a local policy comes first
  await ok(c.put(`/api/interfaces/${guest.link}`, { management: ['ssh'] }));
  await ok(c.post('/api/local-policies', { action: 'deny', 'src-zone': 'guest', services: ['ssh'] }));
  await c.commit();

  const trials: Trial[] = [];
  let port = 41000;
  for (const from of lab.peers) {
    for (const to of lab.peers) {
      for (const [proto, dport] of [['udp', 53], ['tcp', 53], ['tcp', 22]] as const) {
        const sport = port++;
        trials.push({ from: from.index, token: `l${sport}`, proto, src: from.address, sport, dst: fwAddress(to.index), dport });
      }
    }
  }
  const { plan, mismatches } = await sendAndCompare(c, lab.peers, agents, trials);
  expect(mismatches).toEqual([]);
  const verdict = (from: number, proto: string, dport: number) => plan.filter((x) => x.t.from === from && x.t.proto === proto && x.t.dport === dport).map((x) => x.a.action);
  expect(verdict(lan.index, 'udp', 53)).toEqual(['allow', 'allow', 'allow']);
  expect(verdict(guest.index, 'udp', 53)).toEqual(['deny', 'deny', 'deny']);
  expect(verdict(admin.index, 'tcp', 22)).toEqual(['allow', 'allow', 'allow']);
  expect(verdict(lan.index, 'tcp', 22)).toEqual(['deny', 'deny', 'deny']);
  expect(verdict(guest.index, 'tcp', 22)).toEqual(['deny', 'deny', 'deny']);
  expect(plan.every((x) => (x.a as unknown as { reason: string }).reason === 'local-policy')).toBe(true);
  // the counters: rules 1 and 2 took packets, as did 3 (the guests' ssh)
  const stats = (await ok(c.get('/api/local-policies?stats=true'))).body as Array<{ id: number; hits: { packets: number } }>;
  expect(stats.map((s) => ({ id: s.id, hit: s.hits.packets > 0 }))).toEqual([{ id: 1, hit: true }, { id: 2, hit: true }, { id: 3, hit: true }]);
}, 120000);
