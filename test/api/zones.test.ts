// /api/zones over HTTP, with the zone/interface membership relation seen from both sides.
import { expectError, expectMessage, refusal, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;
const zone = async (name: string, config = '') => (await c.get(`/api/zones/${name}${config}`)).body;
const iface = async (name: string, config = '') => (await c.get(`/api/interfaces/${name}${config}`)).body;
const CAND = '?config=candidate';

describe('zones', () => {
  test('create, list and single reads, running vs candidate, commit', async () => {
    expect((await c.get('/api/zones')).body).toEqual([]);
    expectError(await c.get('/api/zones?config=candidate'), 409, 'ERR_SYS_3001');
    await c.begin();
    expectMessage(
      await c.post('/api/zones', { name: 'lan', type: 'l2', color: 'green', interfaces: ['eth1', 'eth0'], networks: ['192.168.1.7/24', '10.0.0.0/8'] }),
      'zone created in candidate',
    );
    expectMessage(await c.post('/api/zones', { name: 'dmz', type: 'l2' }), 'zone created in candidate');
    const lan = { name: 'lan', type: 'l2', color: 'green', interfaces: ['eth0', 'eth1'], networks: ['192.168.1.0/24', '10.0.0.0/8'] };
    const dmz = { name: 'dmz', type: 'l2', color: '', interfaces: [], networks: [] };

    expect((await c.get('/api/zones')).body).toEqual([]);
    expectError(await c.get('/api/zones/lan'), 404, 'ERR_NET_1003');
    expect((await c.get('/api/zones?config=candidate')).body).toEqual([dmz, lan]);
    expect(await zone('lan', CAND)).toEqual(lan);
    expect(await iface('eth0', CAND)).toEqual({ name: 'eth0', ip: '', management: [], state: 'up', zone: 'lan' });
    expect(await iface('eth0')).toEqual({ name: 'eth0', ip: '', management: [], state: 'up', zone: '' });

    await c.commit();
    expect((await c.get('/api/zones')).body).toEqual([dmz, lan]);
    expect(await zone('lan')).toEqual(lan);
    expect(await iface('eth1')).toEqual({ name: 'eth1', ip: '', management: [], state: 'up', zone: 'lan' });
  });

  test('partial updates keep the other fields; "" and [] clear', async () => {
    await c.begin();
    expectMessage(await c.put('/api/zones/lan', { color: 'blue' }), 'zone updated in candidate');
    expect(await zone('lan', CAND)).toEqual({ name: 'lan', type: 'l2', color: 'blue', interfaces: ['eth0', 'eth1'], networks: ['192.168.1.0/24', '10.0.0.0/8'] });
    expectMessage(await c.put('/api/zones/lan', { name: 'lan', type: 'l3', networks: ['172.16.0.0/12'] }), 'zone updated in candidate');
    expect(await zone('lan', CAND)).toEqual({ name: 'lan', type: 'l3', color: 'blue', interfaces: ['eth0', 'eth1'], networks: ['172.16.0.0/12'] });
    expectMessage(await c.put('/api/zones/lan', { color: '', networks: [] }), 'zone updated in candidate');
    expect(await zone('lan', CAND)).toEqual({ name: 'lan', type: 'l3', color: '', interfaces: ['eth0', 'eth1'], networks: [] });
    expectMessage(await c.put('/api/zones/lan', { interfaces: [] }), 'zone updated in candidate');
    expect(await zone('lan', CAND)).toEqual({ name: 'lan', type: 'l3', color: '', interfaces: [], networks: [] });
    expect((await iface('eth0', CAND)).zone).toBe('');
    expect((await iface('eth1', CAND)).zone).toBe('');
    // running is untouched
    expect((await zone('lan')).interfaces).toEqual(['eth0', 'eth1']);
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('membership both ways: interface PUT joins a zone, a zone update moves an interface out of its old zone', async () => {
    await c.begin();
    expectMessage(await c.put('/api/interfaces/eth2', { zone: 'lan' }), 'interface updated in candidate');
    expect((await zone('lan', CAND)).interfaces).toEqual(['eth0', 'eth1', 'eth2']);
    expectMessage(await c.put('/api/interfaces/eth0', { zone: 'dmz' }), 'interface updated in candidate');
    expect((await zone('lan', CAND)).interfaces).toEqual(['eth1', 'eth2']);
    expect((await zone('dmz', CAND)).interfaces).toEqual(['eth0']);

    // the update lists eth1 (moved out of lan) and not eth0 (leaves dmz, no zone)
    expectMessage(await c.put('/api/zones/dmz', { interfaces: ['eth1', 'eth3'] }), 'zone updated in candidate');
    expect((await zone('dmz', CAND)).interfaces).toEqual(['eth1', 'eth3']);
    expect((await zone('lan', CAND)).interfaces).toEqual(['eth2']);
    expect((await iface('eth0', CAND)).zone).toBe('');
    expect((await iface('eth1', CAND)).zone).toBe('dmz');

    // a create takes members from their old zone too, and a VLAN can be a member
    expectMessage(await c.post('/api/vlans', { name: 'v100', id: 100, parent: 'eth0', zone: 'lan' }), 'vlan created in candidate');
    expect((await zone('lan', CAND)).interfaces).toEqual(['eth2', 'v100']);
    expectMessage(await c.post('/api/zones', { name: 'guest', type: 'l2', interfaces: ['v100', 'eth3'] }), 'zone created in candidate');
    expect(await zone('guest', CAND)).toEqual({ name: 'guest', type: 'l2', color: '', interfaces: ['eth3', 'v100'], networks: [] });
    expect((await zone('lan', CAND)).interfaces).toEqual(['eth2']);
    expect((await zone('dmz', CAND)).interfaces).toEqual(['eth1']);
    expect((await c.get('/api/vlans/v100?config=candidate')).body.zone).toBe('guest');
    await c.commit();
    expect((await c.get('/api/zones')).body.map((z: { name: string; interfaces: string[] }) => [z.name, z.interfaces])).toEqual([
      ['dmz', ['eth1']], ['guest', ['eth3', 'v100']], ['lan', ['eth2']],
    ]);
  });

  test('delete: members and rules block it, with details naming them', async () => {
    await c.begin();
    let r = expectError(await c.del('/api/zones/guest'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain('interface eth3');
    expect(r.body.details).toContain('vlan v100');
    expectMessage(await c.put('/api/zones/guest', { interfaces: [] }), 'zone updated in candidate');
    const p = await c.post('/api/policies', { action: 'deny', 'src-zone': 'guest', 'dst-zone': 'lan' });
    expect(p.status).toBe(200);
    r = expectError(await c.del('/api/zones/guest'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain(`policy ${p.body.id}`);
    r = expectError(await c.del('/api/zones/lan'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain(`policy ${p.body.id}`);
    expect(r.body.details).toContain('interface eth2');
    expectMessage(await c.del(`/api/policies/${p.body.id}`), 'policy deleted from candidate');
    expectMessage(await c.del('/api/zones/guest'), 'zone deleted from candidate');
    expectError(await c.get('/api/zones/guest?config=candidate'), 404, 'ERR_NET_1003');
    expect((await zone('guest')).name).toBe('guest'); // still running until the commit
    await c.commit();
    expectError(await c.get('/api/zones/guest'), 404, 'ERR_NET_1003');
    expect((await iface('eth3')).zone).toBe('');
  });

  test('hostile names: __proto__ is invalid, constructor is a valid zone', async () => {
    await c.begin();
    expectError(await c.raw('POST', '/api/zones', '{"name":"__proto__","type":"l2"}'), 400, 'ERR_NET_1004');
    expectError(await c.post('/api/zones', { name: 'ANY', type: 'l2' }), 400, 'ERR_NET_1004');
    expectMessage(await c.post('/api/zones', { name: 'constructor', type: 'l2', interfaces: ['eth0'] }), 'zone created in candidate');
    expect(await iface('eth0', CAND)).toEqual({ name: 'eth0', ip: '', management: [], state: 'up', zone: 'constructor' });
    await c.commit();
    expect(await zone('constructor')).toEqual({ name: 'constructor', type: 'l2', color: '', interfaces: ['eth0'], networks: [] });
    expect((await c.get('/api/zones')).body.map((z: { name: string }) => z.name)).toEqual(['constructor', 'dmz', 'lan']);
    expectError(await c.get('/api/zones/__proto__'), 404, 'ERR_NET_1003');
  });

  test('errors', async () => {
    await c.begin();
    const bad = refusal((body: unknown) => c.post('/api/zones', body));
    await bad({ name: 'z', type: 'l4' }, 400, 'ERR_NET_1005', /type/);
    await bad({ name: 'z', type: 'L2' }, 400, 'ERR_NET_1005');
    await bad({ name: 'z', type: 'l2', color: 'c'.repeat(33) }, 400, 'ERR_NET_1004', /color/);
    await bad({ name: 'z', type: 'l2', interfaces: ['eth9'] }, 400, 'ERR_NET_2003', /eth9/);
    await bad({ name: 'z', type: 'l2', interfaces: ['eth1', 'eth1'] }, 400, 'ERR_NET_1004', /twice/);
    await bad({ name: 'z', type: 'l2', networks: ['10.0.0.0/33'] }, 400, 'ERR_NET_1001', /networks/);
    await bad({ name: 'z', type: 'l2', networks: ['lan'] }, 400, 'ERR_NET_1001');
    await bad({ name: 'z', type: 'l2', networks: '10.0.0.0/8' }, 400, 'ERR_NET_1004', /networks/);
    await bad({ name: 'z', type: 'l2', interfaces: 'eth1' }, 400, 'ERR_NET_1004', /interfaces/);
    await bad({ name: 'z', type: 'l2', color: 3 }, 400, 'ERR_NET_1004', /color/);
    await bad({ name: 'z' }, 400, 'ERR_NET_1004', /missing field "type"/);
    await bad({ name: 'z', type: 'l2', members: [] }, 400, 'ERR_NET_1004', /unknown field "members"/);
    await bad({ name: 'lan', type: 'l2' }, 409, 'ERR_NET_2006', /lan/);
    expectError(await c.raw('POST', '/api/zones', 'not json'), 400, 'ERR_NET_1004');

    expectError(await c.put('/api/zones/nope', { color: 'x' }), 404, 'ERR_NET_1003');
    expectError(await c.del('/api/zones/nope'), 404, 'ERR_NET_1003');
    expectError(await c.get('/api/zones/nope'), 404, 'ERR_NET_1003');
    expectError(await c.put('/api/zones/lan', { name: 'lan2' }), 400, 'ERR_NET_1004');
    expectError(await c.put('/api/zones/lan', { type: 'l7' }), 400, 'ERR_NET_1005');
    expectError(await c.put('/api/zones/lan', { interfaces: ['eth0', 'ghost'] }), 400, 'ERR_NET_2003');
    expectError(await c.put('/api/zones/lan', { networks: ['1.2.3.4/99'] }), 400, 'ERR_NET_1001');
    // a failed update moved nobody
    expect((await zone('constructor', CAND)).interfaces).toEqual(['eth0']);
    expect((await c.get('/api/zones?config=candidate')).body).toEqual((await c.get('/api/zones')).body);
    expect((await c.get('/api/interfaces?config=candidate')).body).toEqual((await c.get('/api/interfaces')).body);
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });
});
