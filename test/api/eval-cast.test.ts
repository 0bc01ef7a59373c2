// Issue 41, item 5: eval tells the truth about broadcast and multicast, and protocol numbers
// are spelled one way across eval and services. A packet to a connected subnet's broadcast
// address, to 255.255.255.255 or to multicast is never forwarded by the kernel: POST /api/eval
// and the batch answer deny with the reason `broadcast` or `multicast` even under an allow-all
// policy, as the reference evaluator does; a routed x.x.x.255 of a subnet that is not
// connected, a /31's ends and a down link's broadcast address are ordinary packets.
import { expectError, ok } from '../helpers/daemon';
import { useDaemon } from '../helpers/daemon';
import { expectEvalCases } from '../helpers/eval-checks';
import { lanWan } from '../helpers/lan-wan';

const c = useDaemon().client;
const udp = (src: string, dst: string) => ({ 'src-ip': src, 'dst-ip': dst, protocol: 'udp', 'dst-port': 67 });

beforeAll(async () => {
  await c.begin();
  await lanWan(c); // eth0 203.0.113.2/24 wan (default route), eth1 10.0.0.1/24 lan
  await ok(c.put('/api/interfaces/eth2', { addresses: ['192.0.2.1/31', '2001:db8:2::1/64'], state: 'up' }));
  await ok(c.put('/api/interfaces/eth3', { ip: '172.20.0.1/16', state: 'down' }));
  await ok(c.post('/api/services', { name: 'gre', protocol: 47 })); // a JSON integer (issue 41)
  await ok(c.post('/api/services', { name: 'esp', protocol: '50' }));
  await ok(c.post('/api/policies', { action: 'allow', services: ['gre'] }));
  await ok(c.post('/api/policies', { action: 'allow', services: ['esp'] }));
  await ok(c.post('/api/policies', { action: 'allow' }));
  await ok(c.post('/api/config/commit'));
});

test('broadcast and multicast: deny with their reason, under an allow-all policy; equal to the reference evaluator', async () => {
  await expectEvalCases(c, [
    [udp('10.0.0.5', '10.0.0.255'), null], // lan's own broadcast
    [udp('10.0.0.5', '203.0.113.255'), null], // another connected subnet's
    [udp('0.0.0.0', '255.255.255.255'), null], // a DHCP discover
    [udp('10.0.0.5', '224.0.0.251'), null], // mDNS
    [udp('10.0.0.5', '239.255.255.250'), null], // SSDP
    [{ ...udp('2001:db8::5', 'ff02::1:2'), 'src-zone': 'lan' }, null],
    [udp('10.0.0.5', '10.0.0.254'), 3], // an ordinary host of the subnet
    [udp('10.0.0.5', '198.51.100.255'), 3], // x.x.x.255 of a routed, not connected, subnet
    [udp('10.0.0.5', '192.0.2.0'), 3], // a /31 has no broadcast address (192.0.2.1 is the firewall's)
    [udp('10.0.0.5', '172.20.255.255'), 3], // a down link's subnet is not connected (routed by default)
  ]);
  const r = (await ok(c.post('/api/eval/batch', { packets: [udp('10.0.0.5', '10.0.0.255'), udp('10.0.0.5', '224.0.0.1'), { ...udp('10.0.0.5', '255.255.255.255'), 'dst-zone': 'wan' }] }))).body;
  expect(r.results).toEqual([
    { action: 'deny', reason: 'broadcast', srcZone: 'lan', dstZone: null, egressInterface: null, route: null, nat: null, policy: null },
    { action: 'deny', reason: 'multicast', srcZone: 'lan', dstZone: null, egressInterface: null, route: null, nat: null, policy: null },
    // a pinned dst-zone is reported, and changes nothing
    { action: 'deny', reason: 'broadcast', srcZone: 'lan', dstZone: 'wan', egressInterface: null, route: null, nat: null, policy: null },
  ]);
});

test('protocol numbers: an integer or a string, in eval and in services, mean the same', async () => {
  await expectEvalCases(c, [
    [{ 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 47 }, 1],
    [{ 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: '47' }, 1],
    [{ 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'gre' }, 1],
    [{ 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'esp' }, 2],
    [{ 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: '50' }, 2],
    [{ 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: '6', 'dst-port': 22 }, 3],
  ]);
  // a service given 47 reads back as the name, like "47"
  expect((await ok(c.get('/api/services/gre'))).body).toEqual({ name: 'gre', protocol: 'gre', ports: [] });
  for (const protocol of ['256', 256, 'foo', 4.5, '4.5', '', true]) {
    const r = expectError(await c.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol }), 400, 'ERR_NET_1004');
    expect(r.body.details).toMatch(/^protocol: /);
  }
  // the batch names the packet
  const r = expectError(await c.post('/api/eval/batch', { packets: [{ 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: '47' }, { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: '300' }] }), 400, 'ERR_NET_1004');
  expect(r.body.details).toMatch(/^packets\[1\]\.protocol: /);
});
