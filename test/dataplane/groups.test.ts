// Real packets through a rule whose source is a nested address group and whose service is a
// service group (issue 27, points 2-3), across a real kernel firewall (FW_DATAPLANE=linux in
// namespaces of our own): the group is flattened into the rule's interval set, and each ping
// is answered exactly when POST /api/eval answers allow for it, before and after an edit of
// the inner group moves a peer in or out.
import { ok, type Client } from '../helpers/daemon';
import type { Peer } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon | undefined;

beforeAll(async () => {
  ld = await startLabDaemon(3);
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

/** Whether one ICMP echo request from `from` to `to` is answered. */
const pingAnswered = (from: Peer, to: Peer) => ld!.lab.pingAnswered(from, to, 2);

async function evalPing(c: Client, from: Peer, to: Peer): Promise<{ allow: boolean; policy: number | null }> {
  const a = (await ok(c.post('/api/eval', { 'src-ip': from.address, 'dst-ip': to.address, 'in-interface': from.link, protocol: 'icmp', 'icmp-type': 8 }))).body;
  return { allow: a.action === 'allow', policy: a.policy?.id ?? null };
}

/** Every ordered pair of peers: what eval answers for a ping and whether the kernel answered it. */
async function pings(c: Client): Promise<Record<string, { want: boolean; got: boolean }>> {
  const out: Record<string, { want: boolean; got: boolean }> = {};
  for (const a of ld!.lab.peers) {
    for (const b of ld!.lab.peers) {
      if (a === b) continue;
      out[`${a.index}->${b.index}`] = { want: (await evalPing(c, a, b)).allow, got: pingAnswered(a, b) };
    }
  }
  return out;
}

test('a policy whose source is a nested address group: the kernel answers the pings eval allows', async () => {
  const { client: c, lab } = ld!;
  const [p1, p2, p3] = lab.peers;
  await c.begin();
  for (const p of lab.peers) await ok(c.post('/api/zones', { name: `z${p.index}`, type: 'l3', interfaces: [p.link] }));
  await ok(c.post('/api/addresses', { name: 'peer1', ips: [`${p1.address}/32`] }));
  await ok(c.post('/api/addresses', { name: 'peer3', ips: [`${p3.address}/32`] }));
  await ok(c.post('/api/address-groups', { name: 'inner', members: ['peer1'] }));
  await ok(c.post('/api/address-groups', { name: 'outer', members: ['inner'] }));
  await ok(c.post('/api/services', { name: 'ping', protocol: 'icmp', 'icmp-type': 8 }));
  await ok(c.post('/api/services', { name: 'ssh', protocol: 'tcp', ports: [22] }));
  await ok(c.post('/api/service-groups', { name: 'admin', members: ['ping', 'ssh'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-addr': 'outer', 'dst-zone': 'z2', services: ['admin'] }));
  await c.commit();

  const before = await pings(c);
  for (const [k, v] of Object.entries(before)) expect({ k, answered: v.got }).toEqual({ k, answered: v.want });
  // eval's answers are the point: peer 1 (in outer through inner) reaches peer 2, no one else does
  expect(await evalPing(c, p1, p2)).toEqual({ allow: true, policy: 1 });
  expect(Object.entries(before).filter(([, v]) => v.want).map(([k]) => k)).toEqual(['1->2']);

  // the inner group now holds peer 3 instead: the kernel follows the flattened set
  await c.begin();
  await ok(c.put('/api/address-groups/inner', { members: ['peer3'] }));
  await c.commit();
  const after = await pings(c);
  for (const [k, v] of Object.entries(after)) expect({ k, answered: v.got }).toEqual({ k, answered: v.want });
  expect(Object.entries(after).filter(([, v]) => v.want).map(([k]) => k)).toEqual(['3->2']);
}, 180000);
