// Issue 39, item 4, with real packets: the services of an HA pair (test/helpers/ha-lab.ts).
// DHCP and IPv6 router advertisements are served by the master alone (the backup runs no
// dnsmasq and announces nothing); the master's leases are shared through the cluster store
// with the backup; after a power off of the master, the new master's dnsmasq starts with them:
// a client renews and keeps its address from the new master, and a lease the new master did
// not renew is still in its table (its dnsmasq read the shared leases, not an empty file). A
// kill -9 and restart of the master's daemon leaves its dnsmasq serving.
import { HaLab, LAB_SETUP_TIMEOUT_MS, LAN, type HaNodeHandle } from '../helpers/ha-lab';
import { ok } from '../helpers/daemon';
import { sh } from '../helpers/netns';
import { eventually } from '../helpers/cluster';
import type { DhcpClient } from '../helpers/dhcp-client';
import { kill9 } from '../helpers/process';

const POOL = { interface: 'lan', start_ip: '10.39.1.100', end_ip: '10.39.1.120', gateway: LAN.vip, lease_time: 30 };

let lab: HaLab;
let one: { ns: string; client: DhcpClient };
let two: { ns: string; client: DhcpClient };

interface Lease { address: string; mac: string; hostname: string | null; expires_at: string }

async function leases(n: HaNodeHandle): Promise<Lease[]> {
  const pools = (await ok(n.client!.get('/api/dhcp/leases'))).body as Array<{ interface: string; leases: Lease[] }>;
  return pools.find((p) => p.interface === 'lan')?.leases ?? [];
}

/** The routers `ns` learnt from router advertisements (their link-local addresses). */
const routers = (ns: string): string[] =>
  [...sh(['ip', '-n', ns, '-6', 'route', 'show', 'default']).matchAll(/via (fe80::[0-9a-f:]+)/g)].map((m) => m[1]).sort();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  lab = await HaLab.started(async (lab) => {
    await lab.configure(200, {
      lanV6: true,
      extra: async (c) => {
        await ok(c.put('/api/interfaces/lan', { ra: true }));
        await ok(c.post('/api/dhcp', POOL));
      },
    });
  });
}, LAB_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await lab?.destroy();
}, 60_000);

test('the master alone serves DHCP and router advertisements; its leases reach the backup', async () => {
  const [a, b] = lab.nodes;
  expect(await eventually(async () => lab.helperRuns(a, 'ha-dnsmasq'), 15_000)).toBe(true);
  expect(lab.helperRuns(b, 'ha-dnsmasq')).toBe(false);
  one = lab.dhcpClient('d1', 'ld1');
  two = lab.dhcpClient('d2', 'ld2');
  const bound1 = await one.client.waitFor((e) => e.event === 'bound', 30_000);
  const bound2 = await two.client.waitFor((e) => e.event === 'bound', 30_000);
  // the master's own address identifies the server that answered
  expect([bound1.serverid, bound2.serverid]).toEqual([LAN.a, LAN.a]);
  expect(bound1.ip).not.toBe(bound2.ip);
  // the advertisements come from the master's link-local address, never from the backup's
  const llA = lab.linkLocal(a, 'lan');
  expect(await eventually(async () => routers(one.ns).includes(llA), 20_000)).toBe(true);
  await sleep(3000);
  expect(routers(one.ns)).toEqual([llA]);
  expect(routers(two.ns)).toEqual([llA]);
  // the backup holds the master's leases (through the cluster store) without serving them
  const held = await leases(a);
  expect(held.map((l) => l.address).sort()).toEqual([bound1.ip, bound2.ip].sort());
  expect(await eventually(async () => JSON.stringify(await leases(b)) === JSON.stringify(held), 15_000)).toBe(true);
  expect(lab.helperRuns(b, 'ha-dnsmasq')).toBe(false);
  // a kill -9 and restart of the master's daemon leaves its dnsmasq serving (not restarted)
  const pid = lab.helperPid(a, 'ha-dnsmasq');
  await kill9(a.child!);
  await lab.start(a);
  expect({ pid: lab.helperPid(a, 'ha-dnsmasq'), runs: lab.helperRuns(a, 'ha-dnsmasq'), state: (await lab.status(a)).state }).toEqual({ pid, runs: true, state: 'master' });
}, 120_000);

test('power off of the master: the new master serves with the shared leases; a client renews and keeps its address', async () => {
  const [a, b] = lab.nodes;
  const before = await leases(b);
  const ip1 = one.client.history().find((e) => e.event === 'bound')!.ip;
  const ip2 = two.client.history().find((e) => e.event === 'bound')!.ip;
  await lab.powerOff(a);
  await lab.waitState(b, 'master', 30_000);
  expect(await eventually(async () => lab.helperRuns(b, 'ha-dnsmasq'), 15_000)).toBe(true);
  const seen = one.client.history().length;
  one.client.renew();
  // the unicast renewal to the dead master goes unanswered; the broadcast one reaches the new master
  const renewed = await one.client.waitFor((e) => e.event === 'renew', 30_000, seen);
  expect(renewed).toEqual({ event: 'renew', ip: ip1, serverid: LAN.b });
  // the new master's table: the renewed lease with a later expiry, and the other client's lease
  // as the master gave it (its dnsmasq started with the shared leases; it rewrote the file
  // when it renewed the first)
  let after: Lease[] = [];
  expect(await eventually(async () => {
    after = await leases(b);
    const l1 = after.find((l) => l.address === ip1);
    return l1 !== undefined && l1.expires_at !== before.find((l) => l.address === ip1)!.expires_at;
  }, 15_000)).toBe(true);
  expect(after.find((l) => l.address === ip2)).toEqual(before.find((l) => l.address === ip2));
  expect(Date.parse(after.find((l) => l.address === ip1)!.expires_at)).toBeGreaterThan(Date.parse(before.find((l) => l.address === ip1)!.expires_at));
  // the new master announces itself as the router
  const llB = lab.linkLocal(b, 'lan');
  expect(await eventually(async () => routers(one.ns).includes(llB), 30_000)).toBe(true);
}, 120_000);
