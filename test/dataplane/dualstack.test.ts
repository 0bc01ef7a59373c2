// Issue 32, point 1, on a real kernel: dual-stack links with secondary addresses. fw1 carries
// two IPv4 and two IPv6 subnets and serves router advertisements (`ra: true`): the client
// namespace behind it gets SLAAC addresses in both IPv6 prefixes from dnsmasq; every address
// is on the link; zones by address, routes and masquerade use all of them, per family, and
// packets from the secondary IPv4 subnet and from the SLAAC addresses do in the kernel what
// POST /api/eval answers.
import fs from 'node:fs';
import { ok } from '../helpers/daemon';
import { sh, type Agent } from '../helpers/netns';
import { kernelState, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';
import { sendAndCompare, type Trial } from './trials';
import { eventually } from '../helpers/cluster';

let ld: LabDaemon | undefined;
const agents = new Map<number, Agent>();
const PORTS = [80, 5353];

beforeAll(async () => {
  ld = await startLabDaemon(2);
  const [p1, p2] = ld.lab.peers;
  // the client behind fw1: a second IPv4 address in fw1's secondary subnet, IPv6 from RAs only
  sh(['ip', '-n', p1.ns, 'address', 'add', '10.11.0.2/24', 'dev', 'eth0']);
  ld.lab.exec(p1.ns, ['sysctl', '-q', '-w', 'net.ipv6.conf.eth0.accept_ra=2', 'net.ipv6.conf.eth0.autoconf=1']);
  // the server behind fw2: IPv6 by hand, the firewall its gateway
  sh(['ip', '-n', p2.ns, 'address', 'add', 'fd02::2/64', 'dev', 'eth0', 'nodad']);
  sh(['ip', '-n', p2.ns, '-6', 'route', 'add', 'default', 'via', 'fd02::1']);
  agents.set(2, await ld.lab.agent(p2.ns, [p2.address, 'fd02::2'], PORTS));
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

/** The global IPv6 addresses the kernel gave eth0 of a namespace by SLAAC (past duplicate detection). */
function slaac(ns: string): string[] {
  const links = JSON.parse(sh(['ip', '-n', ns, '-6', '-json', 'address', 'show', 'dev', 'eth0', 'scope', 'global'])) as Array<{ addr_info: Array<{ local: string; dynamic?: boolean; tentative?: boolean }> }>;
  return links.flatMap((l) => l.addr_info.filter((a) => a.dynamic && !a.tentative).map((a) => a.local)).sort();
}

test('dual-stack links: every address in the kernel, SLAAC from router advertisements, packets as eval says', async () => {
  const { client: c, lab } = ld!;
  const [p1] = lab.peers;
  await c.begin();
  const fw1 = { addresses: ['10.1.0.1/24', 'fd01::1/64', '10.11.0.1/24', 'fd11::1/64'], ra: true };
  await ok(c.put('/api/interfaces/fw1', fw1));
  await ok(c.put('/api/interfaces/fw2', { addresses: ['10.2.0.1/24', 'fd02::1/64'] }));
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['fw1'] }));
  await ok(c.post('/api/zones', { name: 'wan', type: 'l3', interfaces: ['fw2'] }));
  await ok(c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['web'] }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'out-interface': 'fw2' }));
  await c.commit();
  // the read model shows both; ip is the first IPv4 address
  expect((await ok(c.get('/api/interfaces'))).body.find((i: { name: string }) => i.name === 'fw1'))
    .toMatchObject({ name: 'fw1', ip: '10.1.0.1/24', ...fw1 });
  expect(kernelState(lab.fw).addresses).toEqual(expect.arrayContaining(['fw1 10.1.0.1/24', 'fw1 10.11.0.1/24', 'fw1 fd01::1/64', 'fw1 fd11::1/64', 'fw2 10.2.0.1/24', 'fw2 fd02::1/64']));
  expect(fs.readFileSync(`${ld!.td.dir}/dataplane/dnsmasq.conf`, 'utf8')).toMatch(/enable-ra\n(.*\n)*dhcp-range=::,constructor:fw1,ra-only/);
  // the client configures itself from the advertisements: one address in each prefix
  let got: string[] = [];
  expect(await eventually(async () => (got = slaac(p1.ns)).length === 2, 30_000)).toBe(true);
  expect(got.map((a) => a.split('::')[0])).toEqual(['fd01', 'fd11']); // fd01::<64-bit host> and fd11::<...>
  expect(sh(['ip', '-n', p1.ns, '-6', 'route', 'show', 'default'])).toMatch(/via fe80::.* dev eth0 proto ra/);
  agents.set(1, await lab.agent(p1.ns, [p1.address], PORTS));
  // from every source address of the client to both of the server's: eval and kernel agree
  const trials: Trial[] = [];
  let sport = 32000;
  for (const [src, dst] of [['10.1.0.2', '10.2.0.2'], ['10.11.0.2', '10.2.0.2'], [got[0], 'fd02::2'], [got[1], 'fd02::2']]) {
    for (const dport of PORTS) trials.push({ from: 1, token: `ds-${sport}`, proto: dport === 80 ? 'tcp' : 'udp', src, sport: sport++, dst, dport });
  }
  const { plan, mismatches } = await sendAndCompare(c, lab.peers, agents, trials);
  expect(mismatches).toEqual([]);
  // what eval said: web allowed from every source, masqueraded to fw2's address of its family
  const allowed = plan.filter((x) => x.a.action === 'allow').map((x) => `${x.t.src} -> ${x.a.nat?.translatedIP}`);
  expect(allowed).toEqual([`10.1.0.2 -> 10.2.0.1`, `10.11.0.2 -> 10.2.0.1`, `${got[0]} -> fd02::1`, `${got[1]} -> fd02::1`]);
}, 120000);
