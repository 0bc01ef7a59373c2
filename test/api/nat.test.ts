// NAT rules over HTTP: the three types and their translation fields, the read model, the
// ?type= filter, partial updates whose merged rule must satisfy its type, moves, in-use
// deletes and ids.
import { expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;

const DMZ = { name: 'dmz', type: 'l3', color: 'orange', interfaces: ['eth2'], networks: [] };
const WAN = { name: 'wan', type: 'l3', color: '', interfaces: ['eth0'], networks: [] };

beforeAll(async () => {
  await ok(c.post('/api/config/begin'));
  await ok(c.put('/api/interfaces/eth0', { ip: '203.0.113.2/24' }));
  await ok(c.put('/api/interfaces/eth2', { ip: '172.16.0.1/24' }));
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', color: 'orange', interfaces: ['eth2'] }));
  await ok(c.post('/api/zones', { name: 'wan', type: 'l3', interfaces: ['eth0'] }));
  await ok(c.post('/api/addresses', { name: 'pub', ips: ['203.0.113.10'] }));
  await ok(c.post('/api/addresses', { name: 'inside', ips: ['172.16.0.0/24'] }));
  await ok(c.post('/api/services', { name: 'ssh', protocol: 'tcp', ports: [22] }));
  await ok(c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80, 443] }));
});

const rule = (id: number, o: Record<string, unknown>) => ({
  id, description: '', type: 'snat', srcZone: null, dstZone: null, srcAddress: '', dstAddress: '', service: '',
  translatedIP: '', translatedPort: '', outInterface: '', ...o,
});
const listIds = async (q = '') => (await c.get(`/api/nat?config=candidate${q}`)).body.map((n: { id: number }) => n.id);

const R1 = rule(1, { description: 'masquerade', srcZone: DMZ, srcAddress: 'inside', outInterface: 'eth0' });
const R2 = rule(2, { type: 'dnat-ip', dstZone: WAN, dstAddress: 'pub', translatedIP: '172.16.0.10' });
const R3 = rule(3, { type: 'dnat-port', srcZone: WAN, dstAddress: 'pub', service: 'ssh', translatedIP: '172.16.0.11', translatedPort: '2222' });
const R4 = rule(4, { translatedIP: '2001:db8::5', dstZone: WAN });

test('create each type: id as a string, read models, running vs candidate', async () => {
  let r = expectMessage(
    await c.post('/api/nat', { description: 'masquerade', type: 'snat', 'src-zone': 'dmz', 'src-addr': 'inside', 'dst-addr': 'any', 'out-interface': 'eth0' }),
    'NAT rule added in candidate',
  );
  expect(r.body).toEqual({ message: 'NAT rule added in candidate', id: '1' });
  r = await c.post('/api/nat', { type: 'dnat-ip', 'dst-zone': 'wan', 'dst-addr': 'pub', 'translated-ip': '172.16.0.10', service: '' });
  expect(r.body).toEqual({ message: 'NAT rule added in candidate', id: '2' });
  r = await c.post('/api/nat', {
    type: 'dnat-port', 'src-zone': 'wan', 'dst-addr': 'pub', service: 'ssh', 'translated-ip': '172.16.0.11', 'translated-port': '2222', 'out-interface': '',
  });
  expect(r.body).toEqual({ message: 'NAT rule added in candidate', id: '3' });
  r = await c.post('/api/nat', { type: 'snat', 'dst-zone': 'wan', 'translated-ip': '2001:DB8:0::5', service: 'any' });
  expect(r.body).toEqual({ message: 'NAT rule added in candidate', id: '4' });
  expect((await c.get('/api/nat?config=candidate')).body).toEqual([R1, R2, R3, R4]);
  expect((await c.get('/api/nat/3?config=candidate')).body).toEqual(R3);
  expect((await c.get('/api/nat')).body).toEqual([]);
  expectError(await c.get('/api/nat/3'), 404, 'ERR_NET_1003');
  expect((await c.post('/api/config/commit')).body).toEqual({ message: 'commit successful', version: '1' });
  expect((await c.get('/api/nat')).body).toEqual([R1, R2, R3, R4]);
  expect((await c.get('/api/nat/1')).body).toEqual(R1);
  expectMessage(await c.post('/api/config/begin'), 'config session started');
});

test('?type= filters exactly; dnat means both DNAT types; another value is 400 ERR_SEC_1001', async () => {
  expect((await c.get('/api/nat?type=snat')).body).toEqual([R1, R4]);
  expect((await c.get('/api/nat?type=dnat-ip')).body).toEqual([R2]);
  expect((await c.get('/api/nat?type=dnat-port')).body).toEqual([R3]);
  expect((await c.get('/api/nat?type=dnat')).body).toEqual([R2, R3]);
  expect(await listIds('&type=dnat')).toEqual([2, 3]);
  for (const bad of ['SNAT', 'masquerade', '', 'dnat-', 'constructor']) {
    expectError(await c.get(`/api/nat?type=${bad}`), 400, 'ERR_SEC_1001');
  }
});

test('create errors: type, translation fields, references, formats; nothing changes', async () => {
  const before = (await c.get('/api/nat?config=candidate')).body;
  const cases: Array<[unknown, number, string, RegExp]> = [
    [{}, 400, 'ERR_NET_1004', /type/],
    [{ type: 'nat' }, 400, 'ERR_SEC_1001', /type/],
    [{ type: 'dnat' }, 400, 'ERR_SEC_1001', /type/],
    [{ type: 'dnat-ip' }, 400, 'ERR_NET_1004', /translated-ip/],
    [{ type: 'dnat-port', 'translated-ip': '172.16.0.9' }, 400, 'ERR_NET_1004', /translated-port/],
    [{ type: 'snat', 'translated-port': '80' }, 400, 'ERR_NET_1004', /translated-port/],
    [{ type: 'dnat-ip', 'translated-ip': '172.16.0.9', 'translated-port': '80' }, 400, 'ERR_NET_1004', /translated-port/],
    [{ type: 'dnat-port', 'translated-ip': '172.16.0.9', 'translated-port': '0' }, 400, 'ERR_NET_1008', /translated-port/],
    [{ type: 'dnat-port', 'translated-ip': '172.16.0.9', 'translated-port': '65536' }, 400, 'ERR_NET_1008', /translated-port/],
    [{ type: 'dnat-port', 'translated-ip': '172.16.0.9', 'translated-port': 'http' }, 400, 'ERR_NET_1004', /translated-port/],
    [{ type: 'dnat-port', 'translated-ip': '172.16.0.9', 'translated-port': 80 }, 400, 'ERR_NET_1004', /translated-port/],
    [{ type: 'dnat-ip', 'translated-ip': '172.16.0.300' }, 400, 'ERR_NET_1001', /translated-ip/],
    [{ type: 'snat', 'out-interface': 'eth9' }, 400, 'ERR_NET_2003', /out-interface.*eth9/],
    [{ type: 'snat', service: 'ftp' }, 400, 'ERR_NET_2003', /service.*ftp/],
    [{ type: 'snat', 'src-zone': 'lan' }, 400, 'ERR_NET_2003', /src-zone/],
    [{ type: 'snat', 'dst-addr': 'nope' }, 400, 'ERR_NET_2003', /dst-addr/],
    [{ type: 'snat', outInterface: 'eth0' }, 400, 'ERR_NET_1004', /outInterface/],
  ];
  for (const [body, status, code, details] of cases) {
    const r = expectError(await c.post('/api/nat', body), status, code);
    expect(r.body.details).toMatch(details);
  }
  expect((await c.get('/api/nat?config=candidate')).body).toEqual(before);
});

test('partial update: the merged rule must satisfy its type', async () => {
  const before = (await c.get('/api/nat/3?config=candidate')).body;
  expectError(await c.put('/api/nat/3', { type: 'snat' }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/nat/3', { type: 'dnat-ip' }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/nat/3', { 'translated-port': '' }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/nat/3', { 'translated-ip': '' }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/nat/3', { type: 'full-cone' }), 400, 'ERR_SEC_1001');
  expectError(await c.put('/api/nat/3', { id: 4, description: 'x' }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/nat/x', { description: 'x' }), 400, 'ERR_NET_1002');
  expectError(await c.put('/api/nat/99', { description: 'x' }), 404, 'ERR_NET_1003');
  expect((await c.get('/api/nat/3?config=candidate')).body).toEqual(before);

  expectMessage(await c.put('/api/nat/3', { 'translated-port': '22', description: 'ssh in' }), 'NAT rule updated in candidate');
  expect((await c.get('/api/nat/3?config=candidate')).body).toEqual({ ...R3, translatedPort: '22', description: 'ssh in' });
  expectMessage(await c.put('/api/nat/3', { id: 3, type: 'dnat-ip', 'translated-port': '', service: 'any' }), 'NAT rule updated in candidate');
  expect((await c.get('/api/nat/3?config=candidate')).body).toEqual({ ...R3, type: 'dnat-ip', translatedPort: '', service: '', description: 'ssh in' });
  expectMessage(await c.put('/api/nat/3', { type: 'snat', 'translated-ip': '', 'out-interface': 'eth2', 'src-zone': '' }), 'NAT rule updated in candidate');
  expect((await c.get('/api/nat/3?config=candidate')).body).toEqual(
    rule(3, { description: 'ssh in', dstAddress: 'pub', outInterface: 'eth2' }),
  );
  // the running version still has the committed rule
  expect((await c.get('/api/nat/3')).body).toEqual(R3);
});

test('moves: top, bottom, before, after; failed moves change nothing', async () => {
  const move = (id: number | string, body: unknown) => c.post(`/api/nat/${id}/move`, body);
  expect(await listIds()).toEqual([1, 2, 3, 4]);
  expectMessage(await move(3, { position: 'top' }), 'NAT rule moved successfully');
  expect(await listIds()).toEqual([3, 1, 2, 4]);
  expectMessage(await move(3, { position: 'bottom' }), 'NAT rule moved successfully');
  expect(await listIds()).toEqual([1, 2, 4, 3]);
  expectMessage(await move(1, { position: 'after', reference_id: 4 }), 'NAT rule moved successfully');
  expect(await listIds()).toEqual([2, 4, 1, 3]);
  expectMessage(await move(3, { position: 'before', reference_id: 2 }), 'NAT rule moved successfully');
  expect(await listIds()).toEqual([3, 2, 4, 1]);
  // the filtered list keeps the evaluation order
  expect(await listIds('&type=snat')).toEqual([3, 4, 1]);

  const before = (await c.get('/api/nat?config=candidate')).body;
  const cases: Array<[number | string, unknown, number, string]> = [
    [2, { position: 'first' }, 400, 'ERR_NET_1005'],
    [2, { position: 'before' }, 400, 'ERR_NET_1004'],
    [2, { position: 'after', reference_id: 2 }, 400, 'ERR_NET_2003'],
    [2, { position: 'after', reference_id: 42 }, 400, 'ERR_NET_2003'],
    [2, { position: 'after', reference_id: 1.5 }, 400, 'ERR_NET_1004'],
    [42, { position: 'top' }, 404, 'ERR_NET_1003'],
    ['-2', { position: 'top' }, 400, 'ERR_NET_1002'],
  ];
  for (const [id, body, status, code] of cases) expectError(await move(id, body), status, code);
  expect((await c.get('/api/nat?config=candidate')).body).toEqual(before);
});

test('in use: a zone, address, service or out-interface VLAN of a NAT rule cannot be deleted', async () => {
  expectMessage(await c.post('/api/vlans', { name: 'v7', id: 7, parent: 'eth3', ip: '10.7.0.1/24' }), 'vlan created in candidate');
  const r = await c.post('/api/nat', { type: 'dnat-port', service: 'web', 'translated-ip': '10.7.0.5', 'translated-port': '8080', 'out-interface': 'v7' });
  const id = r.body.id as string;
  expect(id).toBe('5');
  let e = expectError(await c.del('/api/vlans/v7'), 409, 'ERR_NET_2007');
  expect(e.body.details).toContain(`nat ${id}`);
  e = expectError(await c.del('/api/services/web'), 409, 'ERR_NET_2007');
  expect(e.body.details).toContain(`nat ${id}`);
  e = expectError(await c.del('/api/addresses/pub'), 409, 'ERR_NET_2007');
  expect(e.body.details).toContain('nat 2');
  expect(e.body.details).toContain('nat 3');
  e = expectError(await c.del('/api/zones/wan'), 409, 'ERR_NET_2007');
  expect(e.body.details).toContain('nat 2');
  expect(e.body.details).toContain('nat 4');
  expectMessage(await c.del(`/api/nat/${id}`), 'NAT rule deleted in candidate');
  expectError(await c.del(`/api/nat/${id}`), 404, 'ERR_NET_1003');
  expectMessage(await c.del('/api/vlans/v7'), 'vlan deleted from candidate');
  // a deleted id is not handed out again
  expect((await c.post('/api/nat', { type: 'snat' })).body.id).toBe('6');
});
