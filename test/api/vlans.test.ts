// /api/vlans over HTTP: create with defaults, reads, partial updates, uniqueness of names and
// (parent, id) pairs, zone membership, and deletes blocked by what uses the VLAN.
import { expectError, expectMessage, refusal, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;
const CAND = '?config=candidate';
const vlan = async (name: string, config = '') => (await c.get(`/api/vlans/${name}${config}`)).body;

describe('vlans', () => {
  test('create, list and single reads, running vs candidate, commit', async () => {
    expect((await c.get('/api/vlans')).body).toEqual([]);
    expectError(await c.get('/api/vlans?config=candidate'), 409, 'ERR_SYS_3001');
    expectError(await c.post('/api/vlans', { name: 'v10', id: 10, parent: 'eth0' }), 409, 'ERR_SYS_3001');
    await c.begin();
    expectMessage(await c.post('/api/zones', { name: 'dmz', type: 'l3' }), 'zone created in candidate');
    expectMessage(await c.post('/api/vlans', { name: 'v20', id: 20, parent: 'eth1' }), 'vlan created in candidate');
    expectMessage(
      await c.post('/api/vlans', { name: 'v10', id: 10, parent: 'eth0', ip: '10.10.0.1/24', zone: 'dmz', state: 'down', management: ['ping', 'https'] }),
      'vlan created in candidate',
    );
    const v10 = { name: 'v10', id: 10, parent: 'eth0', ip: '10.10.0.1/24', zone: 'dmz', state: 'down', management: ['ping', 'https'] };
    const v20 = { name: 'v20', id: 20, parent: 'eth1', ip: '', zone: '', state: 'up', management: [] };
    expect((await c.get('/api/vlans')).body).toEqual([]);
    expectError(await c.get('/api/vlans/v10'), 404, 'ERR_NET_1003');
    expect((await c.get(`/api/vlans${CAND}`)).body).toEqual([v10, v20]);
    expect(await vlan('v20', CAND)).toEqual(v20);
    expect((await c.get(`/api/zones/dmz${CAND}`)).body.interfaces).toEqual(['v10']);
    await c.commit();
    expect((await c.get('/api/vlans')).body).toEqual([v10, v20]);
    expect(await vlan('v10')).toEqual(v10);
    expect((await c.get('/api/zones/dmz')).body).toEqual({ name: 'dmz', type: 'l3', color: '', interfaces: ['v10'], networks: [] });
  });

  test('partial updates keep the other fields; "" and [] clear', async () => {
    await c.begin();
    expectMessage(await c.put('/api/vlans/v10', { state: 'up' }), 'vlan updated in candidate');
    expect(await vlan('v10', CAND)).toEqual({ name: 'v10', id: 10, parent: 'eth0', ip: '10.10.0.1/24', zone: 'dmz', state: 'up', management: ['ping', 'https'] });
    expectMessage(await c.put('/api/vlans/v10', { name: 'v10', id: 11, parent: 'eth2' }), 'vlan updated in candidate');
    expect(await vlan('v10', CAND)).toEqual({ name: 'v10', id: 11, parent: 'eth2', ip: '10.10.0.1/24', zone: 'dmz', state: 'up', management: ['ping', 'https'] });
    expectMessage(await c.put('/api/vlans/v10', { ip: '', zone: '', management: [] }), 'vlan updated in candidate');
    expect(await vlan('v10', CAND)).toEqual({ name: 'v10', id: 11, parent: 'eth2', ip: '', zone: '', state: 'up', management: [] });
    expect((await c.get(`/api/zones/dmz${CAND}`)).body.interfaces).toEqual([]);
    expectMessage(await c.put('/api/vlans/v10', {}), 'vlan updated in candidate');
    expect(await vlan('v10', CAND)).toEqual({ name: 'v10', id: 11, parent: 'eth2', ip: '', zone: '', state: 'up', management: [] });
    // running is untouched
    expect(await vlan('v10')).toEqual({ name: 'v10', id: 10, parent: 'eth0', ip: '10.10.0.1/24', zone: 'dmz', state: 'down', management: ['ping', 'https'] });
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('names and (parent, id) pairs are unique', async () => {
    await c.begin();
    let r = expectError(await c.post('/api/vlans', { name: 'v10', id: 99, parent: 'eth3' }), 409, 'ERR_NET_2006');
    expect(r.body.details).toMatch(/v10/);
    r = expectError(await c.post('/api/vlans', { name: 'eth3', id: 99, parent: 'eth0' }), 409, 'ERR_NET_2006');
    expect(r.body.details).toMatch(/physical interface/);
    r = expectError(await c.post('/api/vlans', { name: 'v10b', id: 10, parent: 'eth0' }), 409, 'ERR_NET_2008');
    expect(r.body.details).toMatch(/v10/);
    expectMessage(await c.post('/api/vlans', { name: 'v10b', id: 10, parent: 'eth1' }), 'vlan created in candidate');
    expectError(await c.put('/api/vlans/v10b', { parent: 'eth0' }), 409, 'ERR_NET_2008');
    expectError(await c.put('/api/vlans/v20', { id: 10 }), 409, 'ERR_NET_2008');
    expectMessage(await c.put('/api/vlans/v10', { id: 10, parent: 'eth0' }), 'vlan updated in candidate'); // its own pair
    expect((await c.get(`/api/vlans${CAND}`)).body.map((v: { name: string }) => v.name)).toEqual(['v10', 'v10b', 'v20']);
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('hostile names: __proto__ is invalid, constructor is a valid VLAN', async () => {
    await c.begin();
    expectError(await c.raw('POST', '/api/vlans', '{"name":"__proto__","id":7,"parent":"eth0"}'), 400, 'ERR_NET_1004');
    expectError(await c.post('/api/vlans', { name: '-v', id: 7, parent: 'eth0' }), 400, 'ERR_NET_1004');
    expectMessage(await c.post('/api/vlans', { name: 'constructor', id: 7, parent: 'eth3' }), 'vlan created in candidate');
    await c.commit();
    expect(await vlan('constructor')).toEqual({ name: 'constructor', id: 7, parent: 'eth3', ip: '', zone: '', state: 'up', management: [] });
    expect((await c.get('/api/vlans')).body.map((v: { name: string }) => v.name)).toEqual(['constructor', 'v10', 'v20']);
    expectError(await c.get('/api/vlans/__proto__'), 404, 'ERR_NET_1003');
  });

  test('errors', async () => {
    await c.begin();
    const bad = refusal((extra: Record<string, unknown>) => c.post('/api/vlans', { name: 'vx', id: 30, parent: 'eth0', ...extra }));
    await bad({ id: 0 }, 400, 'ERR_NET_1008', /id/);
    await bad({ id: 4095 }, 400, 'ERR_NET_1008');
    await bad({ id: -5 }, 400, 'ERR_NET_1008');
    await bad({ id: '30' }, 400, 'ERR_NET_1004', /id/);
    await bad({ id: 30.5 }, 400, 'ERR_NET_1004');
    await bad({ parent: 'eth9' }, 400, 'ERR_NET_2005', /eth9/);
    await bad({ parent: 'v10' }, 400, 'ERR_NET_2005');
    await bad({ parent: '' }, 400, 'ERR_NET_2005');
    await bad({ zone: 'nope' }, 400, 'ERR_NET_2003', /nope/);
    await bad({ state: 'Up' }, 400, 'ERR_NET_1005', /state/);
    await bad({ management: ['telnet'] }, 400, 'ERR_NET_1005', /management/);
    await bad({ management: ['ping', 'ping'] }, 400, 'ERR_NET_1005');
    await bad({ ip: '10.0.0.1' }, 400, 'ERR_NET_1001', /ip/);
    await bad({ ip: '10.0.0.256/24' }, 400, 'ERR_NET_1001');
    await bad({ vid: 30 }, 400, 'ERR_NET_1004', /unknown field "vid"/);
    await bad({ name: 7 }, 400, 'ERR_NET_1004');
    expectError(await c.post('/api/vlans', { name: 'vx', parent: 'eth0' }), 400, 'ERR_NET_1004');
    expectError(await c.post('/api/vlans', { name: 'vx', id: 30 }), 400, 'ERR_NET_1004');
    expectError(await c.raw('POST', '/api/vlans', '{'), 400, 'ERR_NET_1004');
    expectError(await c.put('/api/vlans/nope', { state: 'up' }), 404, 'ERR_NET_1003');
    expectError(await c.del('/api/vlans/nope'), 404, 'ERR_NET_1003');
    expectError(await c.get('/api/vlans/nope'), 404, 'ERR_NET_1003');
    expectError(await c.put('/api/vlans/v10', { name: 'v11' }), 400, 'ERR_NET_1004');
    expectError(await c.put('/api/vlans/v10', { id: 5000 }), 400, 'ERR_NET_1008');
    expectError(await c.put('/api/vlans/v10', { parent: 'eth7' }), 400, 'ERR_NET_2005');
    expectError(await c.put('/api/vlans/v10', { zone: 'nope' }), 400, 'ERR_NET_2003');
    expect((await c.get(`/api/vlans${CAND}`)).body).toEqual((await c.get('/api/vlans')).body);
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('a VLAN in use cannot be deleted; details name every user', async () => {
    await c.begin();
    expectMessage(await c.post('/api/dhcp', { interface: 'v10', start_ip: '10.10.0.100', end_ip: '10.10.0.150' }), 'dhcp pool created in candidate');
    const route = await c.post('/api/routes', { destination: '172.20.0.0/16', gateway: '10.10.0.254', interface: 'v10' });
    expect(route.status).toBe(200);
    const nat = await c.post('/api/nat', { type: 'snat', 'out-interface': 'v10' });
    expect(nat.status).toBe(200);
    const r = expectError(await c.del('/api/vlans/v10'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain('dhcp v10');
    expect(r.body.details).toContain(`route ${route.body.id}`);
    expect(r.body.details).toContain(`nat ${nat.body.id}`);
    expect(await vlan('v10', CAND)).toEqual(await vlan('v10'));

    expectMessage(await c.del('/api/dhcp/v10'), 'dhcp pool deleted in candidate');
    expectMessage(await c.del(`/api/routes/${route.body.id}`), 'route deleted from candidate');
    expectMessage(await c.del(`/api/nat/${nat.body.id}`), 'NAT rule deleted in candidate');
    // zone membership does not block: it is the VLAN's own attribute and leaves with it
    expectMessage(await c.del('/api/vlans/v10'), 'vlan deleted from candidate');
    expectError(await c.get(`/api/vlans/v10${CAND}`), 404, 'ERR_NET_1003');
    expect((await c.get(`/api/zones/dmz${CAND}`)).body.interfaces).toEqual([]);
    expect((await vlan('v10')).name).toBe('v10');
    await c.commit();
    expectError(await c.get('/api/vlans/v10'), 404, 'ERR_NET_1003');
    expect((await c.get('/api/vlans')).body.map((v: { name: string }) => v.name)).toEqual(['constructor', 'v20']);
    expect((await c.get('/api/zones/dmz')).body.interfaces).toEqual([]);
  });
});
