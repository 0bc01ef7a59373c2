// Issue 32, point 1, over HTTP: interfaces and VLANs take `addresses` (IPv4 and IPv6, several
// of each) beside the seed's `ip`, which stays the first IPv4 address (or the first address);
// `ra` asks for router advertisements. A link written the seed's way answers exactly as the
// seed did. Every place that uses a link's subnet uses all of them: DHCP, routes, masquerade,
// zones by address and the eval.
import { expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;
const CAND = '?config=candidate';

afterEach(async () => {
  if ((await c.get('/api/config/session')).body.active) await c.post('/api/config/discard');
});

test('the seed\'s requests and answers are unchanged when addresses is absent', async () => {
  await c.begin();
  expectMessage(await c.put('/api/interfaces/eth0', { ip: '192.168.1.1/24' }), 'interface updated in candidate');
  expect((await c.get(`/api/interfaces/eth0${CAND}`)).body).toEqual({ name: 'eth0', ip: '192.168.1.1/24', management: [], state: 'up', zone: '' });
  await ok(c.post('/api/vlans', { name: 'v10', id: 10, parent: 'eth1', ip: '10.10.0.1/24' }));
  expect((await c.get(`/api/vlans/v10${CAND}`)).body).toEqual({ name: 'v10', id: 10, parent: 'eth1', ip: '10.10.0.1/24', zone: '', state: 'up', management: [] });
});

test('addresses: ip is the first IPv4 address; read models show both; ip alone replaces the primary', async () => {
  await c.begin();
  const addresses = ['fd00:1::1/64', '10.0.0.1/24', '10.0.1.1/24', 'fd00:2::1/64'];
  await ok(c.put('/api/interfaces/eth0', { addresses, ra: true }));
  expect((await c.get(`/api/interfaces/eth0${CAND}`)).body).toEqual({ name: 'eth0', ip: '10.0.0.1/24', addresses, ra: true, management: [], state: 'up', zone: '' });
  // ip alone: the primary is replaced where it stood, the others stay
  await ok(c.put('/api/interfaces/eth0', { ip: '10.0.0.2/24' }));
  expect((await c.get(`/api/interfaces/eth0${CAND}`)).body).toMatchObject({ ip: '10.0.0.2/24', addresses: ['fd00:1::1/64', '10.0.0.2/24', '10.0.1.1/24', 'fd00:2::1/64'] });
  // an IPv6-only list: ip is its first address
  await ok(c.post('/api/vlans', { name: 'v6', id: 6, parent: 'eth1', addresses: ['2001:db8:6::1/64', '2001:db8:7::1/64'] }));
  expect((await c.get(`/api/vlans/v6${CAND}`)).body).toMatchObject({ ip: '2001:db8:6::1/64', addresses: ['2001:db8:6::1/64', '2001:db8:7::1/64'] });
  // one address is the seed's shape again; "" removes every address
  await ok(c.put('/api/interfaces/eth1', { addresses: ['172.16.0.1/16'] }));
  expect((await c.get(`/api/interfaces/eth1${CAND}`)).body).toEqual({ name: 'eth1', ip: '172.16.0.1/16', management: [], state: 'up', zone: '' });
  await ok(c.put('/api/interfaces/eth0', { ip: '', ra: false }));
  expect((await c.get(`/api/interfaces/eth0${CAND}`)).body).toEqual({ name: 'eth0', ip: '', management: [], state: 'up', zone: '' });
});

test('bad addresses: a precise 400 and nothing changed', async () => {
  await c.begin();
  await ok(c.put('/api/interfaces/eth0', { addresses: ['10.0.0.1/24', '10.0.5.1/24', 'fd00::1/64'] }));
  const before = (await c.get(`/api/interfaces/eth0${CAND}`)).body;
  let r = expectError(await c.put('/api/interfaces/eth0', { addresses: ['10.0.0.1/24', 'nope'] }), 400, 'ERR_NET_1001');
  expect(r.body.details).toBe('field "addresses[1]": "nope" is not an address with a prefix such as 192.168.1.1/24');
  r = expectError(await c.put('/api/interfaces/eth0', { addresses: ['10.0.0.1/24', '10.0.0.1/24'] }), 400, 'ERR_NET_1005');
  expect(r.body.details).toBe('field "addresses": "10.0.0.1/24" appears twice');
  r = expectError(await c.put('/api/interfaces/eth0', { ip: '10.0.0.9/24', addresses: ['10.0.0.1/24'] }), 400, 'ERR_NET_1005');
  expect(r.body.details).toBe('field "ip": "10.0.0.9/24" is not the first IPv4 address (or the first address) of "addresses", "10.0.0.1/24"');
  r = expectError(await c.put('/api/interfaces/eth0', { ip: 'fd00::9/64' }), 400, 'ERR_NET_1005');
  expect(r.body.details).toMatch(/^field "ip": "fd00::9\/64" would not be the first IPv4 address of the link .*; set "addresses" instead$/);
  expectError(await c.put('/api/interfaces/eth0', { addresses: '10.0.0.1/24' }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/interfaces/eth0', { ra: 'yes' }), 400, 'ERR_NET_1004');
  expect((await c.get(`/api/interfaces/eth0${CAND}`)).body).toEqual(before);
  // commit checks: an address twice across links, ra without an IPv6 /64
  await ok(c.put('/api/interfaces/eth1', { addresses: ['10.0.0.1/24', '10.5.0.1/24'], ra: true }));
  r = expectError(await c.post('/api/config/validate'), 400, 'ERR_SYS_3003');
  expect(r.body.details.split('\n')).toEqual(['interface eth1: address 10.0.0.1 is also used by interface eth0', 'interface eth1: ra needs an IPv6 address with a /64 prefix to announce (SLAAC)']);
});

test('every subnet counts: DHCP on a secondary subnet, routes through it, zones by address, masquerade per family', async () => {
  await c.begin();
  await ok(c.put('/api/interfaces/eth0', { addresses: ['10.0.0.1/24', '192.168.50.1/24', 'fd00:1::1/64'] }));
  await ok(c.put('/api/interfaces/eth1', { addresses: ['203.0.113.2/24', '2001:db8::2/64'] }));
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['eth0'] }));
  await ok(c.post('/api/zones', { name: 'wan', type: 'l3', interfaces: ['eth1'] }));
  await ok(c.post('/api/dhcp', { interface: 'eth0', start_ip: '192.168.50.100', end_ip: '192.168.50.199', gateway: '192.168.50.1' }));
  await ok(c.post('/api/routes', { destination: '172.20.0.0/16', gateway: '192.168.50.254' }));
  await ok(c.post('/api/routes', { destination: 'default', gateway: '203.0.113.1' }));
  await ok(c.post('/api/routes', { destination: '::/0', gateway: '2001:db8::1' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'out-interface': 'eth1' }));
  await ok(c.post('/api/config/commit'));
  expect((await c.get('/api/dhcp')).body[0]).toMatchObject({ interface: 'eth0', subnetMask: '255.255.255.0' });
  const evalOf = async (src: string, dst: string) => (await ok(c.post('/api/eval', { 'src-ip': src, 'dst-ip': dst, protocol: 'tcp', 'dst-port': 443 }))).body;
  // the secondary IPv4 subnet and the IPv6 one are lan; each family masquerades to its own address
  expect(await evalOf('192.168.50.7', '198.51.100.1')).toMatchObject({ action: 'allow', srcZone: 'lan', dstZone: 'wan', egressInterface: 'eth1', nat: { translatedIP: '203.0.113.2' } });
  expect(await evalOf('fd00:1::7', '2001:db8:9::1')).toMatchObject({ action: 'allow', srcZone: 'lan', dstZone: 'wan', egressInterface: 'eth1', nat: { translatedIP: '2001:db8::2' } });
  // a route through a gateway in the secondary subnet leaves by eth0
  expect(await evalOf('203.0.113.9', '172.20.1.1')).toMatchObject({ dstZone: 'lan', egressInterface: 'eth0', route: { id: 1 } });
  const render = (await ok(c.get('/api/dataplane/render'))).body;
  expect(render.ip).toEqual(expect.arrayContaining([
    'ip address add 10.0.0.1/24 dev eth0 metric 241', 'ip address add 192.168.50.1/24 dev eth0 metric 241',
    'ip address add fd00:1::1/64 dev eth0 metric 241 nodad', 'ip address add 2001:db8::2/64 dev eth1 metric 241 nodad',
    // Linux holds an IPv6 metric 0 as 1024: asked as the kernel keeps it (docs/dataplane.md)
    'ip route replace ::/0 via 2001:db8::1 dev eth1 metric 1024 proto 241', 'ip route replace 0.0.0.0/0 via 203.0.113.1 dev eth1 metric 0 proto 241',
  ]));
  expect(render.dnsmasq).toContain('dhcp-range=set:pool0,192.168.50.100,192.168.50.199,255.255.255.0,1440m');
  // the export holds both, and loads back as it was
  const exported = (await ok(c.get('/api/config/export'))).body;
  expect(exported.interfaces.find((i: { name: string }) => i.name === 'eth0')).toMatchObject({ ip: '10.0.0.1/24', addresses: ['10.0.0.1/24', '192.168.50.1/24', 'fd00:1::1/64'] });
  await c.begin();
  const diff = (await ok(c.req('PUT', '/api/config/candidate', exported))).body;
  expect({ added: diff.added, changed: diff.changed, deleted: diff.deleted }).toEqual({ added: [], changed: [], deleted: [] });
});
