// Issue 39, items 5 and 7, with real packets (test/helpers/ha-lab.ts), beside ha-failover.test.ts:
// - GET /api/ha/status's peer.last_advert: a backup hears the master's adverts; after a
//   takeover the new master shows when it heard the dead one last;
// - an inbound TCP connection (and a UDP flow) through a port forward to the WAN's virtual
//   address survives a power off of the master, as the outbound ones do;
// - a commit that moves a virtual address moves it on the wire (the master holds the new one,
//   nobody the old one, the hosts reach the new one);
// - Redis down changes nothing on the wire: with the test's redis-server stopped, a power off
//   of the master still fails over and the connections survive.
import { addresses, HaLab, LAB_SETUP_TIMEOUT_MS, LAN, WAN, type Prober } from '../helpers/ha-lab';
import { flowsAlive, PAUSE_BOUND_MS } from '../helpers/ha-checks';
import { ok } from '../helpers/daemon';
import { sh } from '../helpers/netns';
import { eventually } from '../helpers/cluster';

/** Where the moved LAN virtual address goes. */
const MOVED_VIP = '10.39.1.5';

let lab: HaLab;
let outbound: Prober;
let inbound: Prober;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  lab = await HaLab.started(async (lab) => {
    await lab.configure(200, {
      // the port forward: what reaches the WAN's virtual address from the WAN goes to the LAN's client
      extra: async (c) => {
        await ok(c.post('/api/addresses', { name: 'wan-vip', ips: [WAN.vip] }));
        await ok(c.post('/api/nat', { type: 'dnat-ip', 'src-zone': 'wan', 'dst-addr': 'wan-vip', 'translated-ip': LAN.client }));
        await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'wan', 'dst-zone': 'lan' }));
      },
    });
    await lab.echo();
    await lab.echo(lab.clientNs, LAN.client);
  });
}, LAB_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await lab?.destroy();
}, 60_000);

test('the backup shows the master\'s last advert (within a few advert intervals)', async () => {
  const [a, b] = lab.nodes;
  await sleep(1000);
  const s = await lab.status(b);
  expect(s.peer.node).toBe('fw-a');
  expect(Date.now() - Date.parse(s.peer.last_advert)).toBeLessThan(2000);
  // through the other node too (?node=)
  const via = await ok(a.client!.get('/api/ha/status?node=fw-b'));
  expect(Date.now() - Date.parse(via.body.peer.last_advert)).toBeLessThan(2000);
}, 60_000);

test('power off of the master: the inbound connection through the port forward to the virtual address and the outbound one go on; the new master shows the dead one\'s last advert', async () => {
  const [a, b] = lab.nodes;
  outbound = await lab.prober(50);
  inbound = await lab.prober(50, { ns: lab.serverNs, src: WAN.server, dst: WAN.vip });
  await sleep(1500);
  await flowsAlive(outbound, 'outbound before');
  await flowsAlive(inbound, 'inbound before');
  await lab.synced(b);
  const off = Date.now();
  await lab.powerOff(a);
  await lab.waitState(b, 'master', 30_000);
  await sleep(4000);
  for (const [p, what] of [[outbound, 'outbound'], [inbound, 'inbound']] as const) {
    const gap = await flowsAlive(p, `${what} across the power off`);
    expect(gap.tcp).toBeLessThan(PAUSE_BOUND_MS);
    expect(gap.udp).toBeLessThan(PAUSE_BOUND_MS);
  }
  // the master's last advert: just before it went
  const last = Date.parse((await lab.status(b)).peer.last_advert);
  expect(last).toBeGreaterThan(off - 2000);
  expect(last).toBeLessThanOrEqual(off + 500);
  await lab.powerOn(a);
  await lab.waitState(a, 'master', 60_000);
  await lab.waitState(b, 'backup', 30_000);
  await sleep(3000);
  await flowsAlive(inbound, 'inbound across the preemption');
  await flowsAlive(outbound, 'outbound across the preemption');
}, 180_000);

test('a commit that moves the LAN\'s virtual address moves it on the wire', async () => {
  const [a, b] = lab.nodes;
  // the flows' route back is through the old address: new ones follow the move
  outbound.stop();
  inbound.stop();
  const c = a.client!;
  const doc = lab.haDoc(200) as { 'virtual-addresses': Array<{ interface: string; addresses: string[] }> };
  doc['virtual-addresses'].find((v) => v.interface === 'lan')!.addresses = [`${MOVED_VIP}/${LAN.prefix}`];
  await ok(c.post('/api/config/begin'));
  await ok(c.put('/api/ha', doc));
  await ok(c.post('/api/config/commit'));
  // both nodes applied it; the master holds the new address, nobody the old one
  expect(await eventually(async () => addresses(a.ns, 'lan').includes(`${MOVED_VIP}/24`), 20_000)).toBe(true);
  expect(addresses(a.ns, 'lan')).toEqual([`${LAN.a}/24`, `${MOVED_VIP}/24`].sort());
  expect(await eventually(async () => (await lab.status(b)).virtual_addresses[0]?.address === `${MOVED_VIP}/24`, 20_000)).toBe(true);
  expect(addresses(b.ns, 'lan')).toEqual([`${LAN.b}/24`]);
  expect((await lab.status(a)).state).toBe('master');
  // the hosts reach the WAN through the new address, which the master answers for
  sh(['ip', '-n', lab.clientNs, 'route', 'replace', 'default', 'via', MOVED_VIP]);
  outbound = await lab.prober(50);
  inbound = await lab.prober(50, { ns: lab.serverNs, src: WAN.server, dst: WAN.vip });
  await sleep(1500);
  await flowsAlive(outbound, 'outbound through the moved address');
  await flowsAlive(inbound, 'inbound, answered through the moved address');
  const macOf = (ns: string, link: string) => (JSON.parse(sh(['ip', '-n', ns, '-json', 'link', 'show', 'dev', link])) as Array<{ address: string }>)[0].address;
  expect(sh(['ip', '-n', lab.clientNs, 'neigh', 'show', MOVED_VIP])).toContain(macOf(a.ns, 'lan'));
}, 120_000);

test('Redis down changes nothing on the wire: the master\'s power off still fails over and the connections go on', async () => {
  const [a, b] = lab.nodes;
  await lab.synced(b);
  await lab.redis!.kill();
  await sleep(1500);
  await flowsAlive(outbound, 'outbound with Redis down');
  await flowsAlive(inbound, 'inbound with Redis down');
  await lab.powerOff(a);
  // keepalived's own record and the kernel say it: no daemon request, which may need the store
  expect(await eventually(async () => lab.recordedState(b) === 'MASTER', 30_000)).toBe(true);
  expect(await eventually(async () => addresses(b.ns, 'wan').includes(`${WAN.vip}/24`), 10_000)).toBe(true);
  expect(addresses(b.ns, 'lan')).toContain(`${MOVED_VIP}/24`);
  await sleep(4000);
  for (const [p, what] of [[outbound, 'outbound'], [inbound, 'inbound']] as const) {
    const gap = await flowsAlive(p, `${what} across the power off with Redis down`);
    expect(gap.tcp).toBeLessThan(PAUSE_BOUND_MS);
  }
}, 120_000);
