// Several zones per rule on a real kernel (issue 41 item 2): three peers, each in a zone of
// its own (lan, dmz, wan). A policy from [lan, dmz] to wan passes pings from both and not from
// the third; after an edit to [dmz] only dmz's pass; a destination list [lan, dmz] lets wan
// reach both. Every ping is answered exactly when POST /api/eval answers allow for it.
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

async function evalPing(c: Client, from: Peer, to: Peer): Promise<boolean> {
  const a = (await ok(c.post('/api/eval', { 'src-ip': from.address, 'dst-ip': to.address, 'in-interface': from.link, protocol: 'icmp', 'icmp-type': 8 }))).body;
  return a.action === 'allow';
}

/** The pairs whose ping the kernel answered; each must be what eval answers. */
async function answeredPairs(c: Client): Promise<string[]> {
  const out: string[] = [];
  for (const a of ld!.lab.peers) {
    for (const b of ld!.lab.peers) {
      if (a === b) continue;
      const want = await evalPing(c, a, b), got = pingAnswered(a, b);
      expect({ pair: `${a.index}->${b.index}`, answered: got }).toEqual({ pair: `${a.index}->${b.index}`, answered: want });
      if (got) out.push(`${a.index}->${b.index}`);
    }
  }
  return out;
}

test('a policy from [lan, dmz] to wan: pings from both pass, not from wan; an edit to [dmz] narrows the kernel too', async () => {
  const { client: c, lab } = ld!;
  const [lan, dmz, wan] = lab.peers;
  await c.begin();
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: [lan.link] }));
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: [dmz.link] }));
  await ok(c.post('/api/zones', { name: 'wan', type: 'l3', interfaces: [wan.link] }));
  await ok(c.post('/api/services', { name: 'ping', protocol: 'icmp', 'icmp-type': 8 }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': ['lan', 'dmz'], 'dst-zone': 'wan', services: ['ping'] }));
  await c.commit();
  expect(await answeredPairs(c)).toEqual([`${lan.index}->${wan.index}`, `${dmz.index}->${wan.index}`]);

  // the kernel holds the policy as one rule over one set of both zones' addresses
  const ruleset = lab.exec(lab.fw, ['nft', 'list', 'ruleset']);
  expect(ruleset.match(/saddr @srczones4_[0-9a-f]{12}/g)).toHaveLength(1);

  await c.begin();
  await ok(c.put('/api/policies/1', { 'src-zone': ['dmz'] }));
  await c.commit();
  expect(await answeredPairs(c)).toEqual([`${dmz.index}->${wan.index}`]);

  // a destination list: from wan to [lan, dmz]
  await c.begin();
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'wan', 'dst-zone': ['lan', 'dmz'], services: ['ping'] }));
  await c.commit();
  expect(await answeredPairs(c)).toEqual([`${dmz.index}->${wan.index}`, `${wan.index}->${lan.index}`, `${wan.index}->${dmz.index}`]);
}, 180000);
