// Where an object is used, over HTTP: GET /api/{addresses,services,zones,interfaces,vlans}/{name}/usage
// names every referrer (only a refused delete could say it before; issue 29), in running or
// the candidate; an unknown object is 404.
import { expectError, ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();
const c = d.client;

beforeAll(async () => {
  await c.begin();
  await ok(c.put('/api/interfaces/eth0', { ip: '203.0.113.2/24' }));
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['eth0'] }));
  await ok(c.post('/api/addresses', { name: 'web', ips: ['10.0.0.10'] }));
  await ok(c.post('/api/addresses', { name: 'idle', ips: ['10.0.0.11'] }));
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-addr': 'web', services: ['https'] }));
  await ok(c.post('/api/nat', { type: 'dnat-ip', 'dst-addr': 'web', 'translated-ip': '192.168.1.7' }));
  await ok(c.post('/api/vlans', { name: 'vl10', id: 10, parent: 'eth0', ip: '10.10.0.1/24', zone: 'lan' }));
  await c.commit();
});

test('each object names what references it; an unused one nothing', async () => {
  expect((await ok(c.get('/api/addresses/web/usage'))).body).toEqual({ kind: 'address', name: 'web', used_by: [{ kind: 'policy', key: '1' }, { kind: 'nat', key: '1' }] });
  expect((await ok(c.get('/api/addresses/idle/usage'))).body.used_by).toEqual([]);
  expect((await ok(c.get('/api/services/https/usage'))).body.used_by).toEqual([{ kind: 'policy', key: '1' }]);
  expect((await ok(c.get('/api/zones/lan/usage'))).body.used_by).toEqual([{ kind: 'policy', key: '1' }, { kind: 'interface', key: 'eth0' }, { kind: 'vlan', key: 'vl10' }]);
  expect((await ok(c.get('/api/interfaces/eth0/usage'))).body.used_by).toEqual([{ kind: 'vlan', key: 'vl10' }]);
  expect((await ok(c.get('/api/vlans/vl10/usage'))).body.used_by).toEqual([]);
});

test('?config=candidate answers for the candidate; unknown objects 404; a candidate without a session 409', async () => {
  await c.begin();
  await ok(c.post('/api/policies', { action: 'deny', 'src-addr': 'idle' }));
  expect((await ok(c.get('/api/addresses/idle/usage?config=candidate'))).body.used_by).toEqual([{ kind: 'policy', key: '2' }]);
  expect((await ok(c.get('/api/addresses/idle/usage'))).body.used_by).toEqual([]); // running: unchanged
  expectError(await c.get('/api/addresses/nowhere/usage'), 404, 'ERR_NET_1003');
  expectError(await c.get('/api/services/nowhere/usage?config=candidate'), 404, 'ERR_NET_1003');
  await ok(c.post('/api/config/discard'));
  expectError(await c.get('/api/addresses/idle/usage?config=candidate'), 409, 'ERR_SYS_3001');
});

test('search across object types: by name, by address (which objects hold 10.0.0.10?), by port', async () => {
  const byAddress = (await ok(c.get('/api/search?address=10.0.0.10'))).body.results;
  expect(byAddress).toEqual([
    { kind: 'address', key: 'web', match: 'ips 10.0.0.10/32' },
    { kind: 'policy', key: '1', match: 'dst-addr web' },
    { kind: 'nat', key: '1', match: 'dst-addr web' },
  ]);
  expect((await ok(c.get('/api/search?address=203.0.113.77'))).body.results).toEqual([{ kind: 'interface', key: 'eth0', match: 'ip 203.0.113.2/24' }]);
  expect((await ok(c.get('/api/search?address=192.168.1.7'))).body.results).toEqual([{ kind: 'nat', key: '1', match: 'translated-ip 192.168.1.7' }]);
  expect((await ok(c.get('/api/search?name=WE'))).body.results).toEqual([{ kind: 'address', key: 'web', match: 'name web' }]);
  expect((await ok(c.get('/api/search?port=443'))).body.results).toEqual([{ kind: 'service', key: 'https', match: 'ports 443' }]);
  expect((await ok(c.get('/api/search?port=444'))).body.results).toEqual([]);
  expectError(await c.get('/api/search'), 400, 'ERR_NET_1005');
  expectError(await c.get('/api/search?name=a&port=1'), 400, 'ERR_NET_1005');
  expectError(await c.get('/api/search?address=10.0.0.300'), 400, 'ERR_NET_1001');
  expectError(await c.get('/api/search?port=70000'), 400, 'ERR_NET_1005');
});

test('search names a named rule beside its id, and finds a policy by its name (issue 43 item 8)', async () => {
  await c.begin();
  try {
    const id = String((await ok(c.post('/api/policies', { name: 'Zulu-Farm', action: 'deny', 'src-addr': 'web' }))).body.id);
    const byAddress = (await ok(c.get('/api/search?address=10.0.0.10&config=candidate'))).body.results;
    expect(byAddress).toContainEqual({ kind: 'policy', key: id, name: 'Zulu-Farm', match: 'src-addr web' });
    expect(byAddress).toContainEqual({ kind: 'policy', key: '1', match: 'dst-addr web' }); // no name: none shown
    expect((await ok(c.get('/api/search?name=zulu&config=candidate'))).body.results).toEqual([{ kind: 'policy', key: id, name: 'Zulu-Farm', match: 'name Zulu-Farm' }]);
  } finally {
    await c.post('/api/config/discard');
  }
});

test('search by tag: the policies and NAT rules carrying it, in any case; running or candidate', async () => {
  await c.begin();
  await ok(c.put('/api/policies/1', { tags: ['PCI', 'web'] }));
  await ok(c.put('/api/nat/1', { tags: ['pci'] }));
  await ok(c.post('/api/policies', { action: 'deny', tags: ['other'] }));
  expect((await ok(c.get('/api/search?tag=pci&config=candidate'))).body.results).toEqual([
    { kind: 'policy', key: '1', match: 'tags PCI' },
    { kind: 'nat', key: '1', match: 'tags pci' },
  ]);
  expect((await ok(c.get('/api/search?tag=pci'))).body.results).toEqual([]); // running: untagged yet
  await c.commit();
  expect((await ok(c.get('/api/search?tag=Other'))).body.results).toEqual([{ kind: 'policy', key: '2', match: 'tags other' }]);
  expect((await ok(c.get('/api/search?tag=pc'))).body.results).toEqual([]); // a whole tag, not a part
  expectError(await c.get('/api/search?tag='), 400, 'ERR_NET_1005');
  expectError(await c.get('/api/search?tag=pci&name=web'), 400, 'ERR_NET_1005');
});
