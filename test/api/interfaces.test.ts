// /api/interfaces over HTTP: the fixed physical inventory, edits, the ?layer filter, and
// the absence of create and delete.
import { expectError, expectMessage, refusal, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;
const CAND = '?config=candidate';
const fresh = (name: string) => ({ name, ip: '', management: [], state: 'up', zone: '' });
const names = (list: Array<{ name: string }>) => list.map((i) => i.name);

describe('interfaces', () => {
  test('the inventory at first start', async () => {
    const r = await c.get('/api/interfaces');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([fresh('eth0'), fresh('eth1'), fresh('eth2'), fresh('eth3')]);
    expect((await c.get('/api/interfaces/eth2')).body).toEqual(fresh('eth2'));
    expectError(await c.get('/api/interfaces?config=candidate'), 409, 'ERR_SYS_3001');
    expectError(await c.get('/api/interfaces/eth9'), 404, 'ERR_NET_1003');
    expectError(await c.get('/api/interfaces/__proto__'), 404, 'ERR_NET_1003');
    expectError(await c.get('/api/interfaces/constructor'), 404, 'ERR_NET_1003');
  });

  test('no create, no delete: 405 with Allow', async () => {
    let r = expectError(await c.post('/api/interfaces', { name: 'eth9' }), 405, 'ERR_NET_1009');
    expect(r.headers.get('allow')).toContain('GET');
    r = expectError(await c.del('/api/interfaces/eth0'), 405, 'ERR_NET_1009');
    expect(r.headers.get('allow')).toContain('PUT');
    expectError(await c.post('/api/interfaces/eth0', {}), 405, 'ERR_NET_1009');
    expectError(await c.put('/api/interfaces', {}), 405, 'ERR_NET_1009');
  });

  test('edit, read running vs candidate, commit', async () => {
    expectError(await c.put('/api/interfaces/eth0', { state: 'down' }), 409, 'ERR_SYS_3001');
    await c.begin();
    expectMessage(await c.put('/api/interfaces/eth0', { ip: '192.168.1.1/24', management: ['ssh', 'ping'] }), 'interface updated in candidate');
    expectMessage(await c.put('/api/interfaces/eth1', { name: 'eth1', ip: '2001:DB8:0:0::1/64', state: 'down' }), 'interface updated in candidate');
    const eth0 = { name: 'eth0', ip: '192.168.1.1/24', management: ['ssh', 'ping'], state: 'up', zone: '' };
    const eth1 = { name: 'eth1', ip: '2001:db8::1/64', management: [], state: 'down', zone: '' };
    expect((await c.get('/api/interfaces/eth0')).body).toEqual(fresh('eth0'));
    expect((await c.get(`/api/interfaces/eth0${CAND}`)).body).toEqual(eth0);
    expect((await c.get(`/api/interfaces${CAND}`)).body).toEqual([eth0, eth1, fresh('eth2'), fresh('eth3')]);
    expect((await c.get('/api/interfaces')).body).toEqual([fresh('eth0'), fresh('eth1'), fresh('eth2'), fresh('eth3')]);
    await c.commit();
    expect((await c.get('/api/interfaces')).body).toEqual([eth0, eth1, fresh('eth2'), fresh('eth3')]);
    expect((await c.get('/api/interfaces/eth1')).body).toEqual(eth1);
  });

  test('?layer=3 lists interfaces with an IP, ?layer=2 those without; another value is 400', async () => {
    expect(names((await c.get('/api/interfaces?layer=3')).body)).toEqual(['eth0', 'eth1']);
    expect(names((await c.get('/api/interfaces?layer=2')).body)).toEqual(['eth2', 'eth3']);
    expect((await c.get('/api/interfaces?layer=2')).body).toEqual([fresh('eth2'), fresh('eth3')]);
    for (const v of ['4', '', 'l3', '3.0']) {
      const r = expectError(await c.get(`/api/interfaces?layer=${v}`), 400, 'ERR_NET_1005');
      expect(r.body.details).toMatch(/layer/);
    }
    await c.begin();
    expectMessage(await c.put('/api/interfaces/eth0', { ip: '' }), 'interface updated in candidate');
    expectMessage(await c.put('/api/interfaces/eth3', { ip: '10.3.0.1/16' }), 'interface updated in candidate');
    expect(names((await c.get(`/api/interfaces?layer=3&config=candidate`)).body)).toEqual(['eth1', 'eth3']);
    expect(names((await c.get(`/api/interfaces?config=candidate&layer=2`)).body)).toEqual(['eth0', 'eth2']);
    // the running lists are unchanged (and served from the per-version cache)
    expect(names((await c.get('/api/interfaces?layer=3')).body)).toEqual(['eth0', 'eth1']);
    await c.commit();
    expect(names((await c.get('/api/interfaces?layer=3')).body)).toEqual(['eth1', 'eth3']);
    expect(names((await c.get('/api/interfaces?layer=2')).body)).toEqual(['eth0', 'eth2']);
  });

  test('partial updates keep the other fields; "" and [] clear', async () => {
    await c.begin();
    expectMessage(await c.post('/api/zones', { name: 'lan', type: 'l3' }), 'zone created in candidate');
    expectMessage(await c.put('/api/interfaces/eth3', { management: ['https', 'http'], zone: 'lan' }), 'interface updated in candidate');
    expect((await c.get(`/api/interfaces/eth3${CAND}`)).body).toEqual({ name: 'eth3', ip: '10.3.0.1/16', management: ['https', 'http'], state: 'up', zone: 'lan' });
    expectMessage(await c.put('/api/interfaces/eth3', { state: 'down' }), 'interface updated in candidate');
    expect((await c.get(`/api/interfaces/eth3${CAND}`)).body).toEqual({ name: 'eth3', ip: '10.3.0.1/16', management: ['https', 'http'], state: 'down', zone: 'lan' });
    expectMessage(await c.put('/api/interfaces/eth3', {}), 'interface updated in candidate');
    expect((await c.get(`/api/interfaces/eth3${CAND}`)).body).toEqual({ name: 'eth3', ip: '10.3.0.1/16', management: ['https', 'http'], state: 'down', zone: 'lan' });
    expect((await c.get(`/api/zones/lan${CAND}`)).body.interfaces).toEqual(['eth3']);
    expectMessage(await c.put('/api/interfaces/eth3', { management: [], zone: '' }), 'interface updated in candidate');
    expect((await c.get(`/api/interfaces/eth3${CAND}`)).body).toEqual({ name: 'eth3', ip: '10.3.0.1/16', management: [], state: 'down', zone: '' });
    expect((await c.get(`/api/zones/lan${CAND}`)).body.interfaces).toEqual([]);
    expectMessage(await c.put('/api/interfaces/eth3', { ip: '', zone: 'lan' }), 'interface updated in candidate');
    expect((await c.get(`/api/interfaces/eth3${CAND}`)).body).toEqual({ name: 'eth3', ip: '', management: [], state: 'down', zone: 'lan' });
    expect((await c.get(`/api/zones/lan${CAND}`)).body.interfaces).toEqual(['eth3']);
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('VLANs are not listed as interfaces', async () => {
    await c.begin();
    expectMessage(await c.post('/api/vlans', { name: 'v5', id: 5, parent: 'eth2', ip: '10.5.0.1/24' }), 'vlan created in candidate');
    expect(names((await c.get(`/api/interfaces${CAND}`)).body)).toEqual(['eth0', 'eth1', 'eth2', 'eth3']);
    expect(names((await c.get(`/api/interfaces?layer=3&config=candidate`)).body)).toEqual(['eth1', 'eth3']);
    expectError(await c.get(`/api/interfaces/v5${CAND}`), 404, 'ERR_NET_1003');
    expectError(await c.put('/api/interfaces/v5', { state: 'down' }), 404, 'ERR_NET_1003');
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('errors', async () => {
    await c.begin();
    const bad = refusal((body: unknown) => c.put('/api/interfaces/eth2', body));
    await bad({ ip: '192.168.1.1' }, 400, 'ERR_NET_1001', /ip/);
    await bad({ ip: '192.168.1.300/24' }, 400, 'ERR_NET_1001');
    await bad({ ip: '192.168.1.1/33' }, 400, 'ERR_NET_1001');
    await bad({ ip: 'dhcp' }, 400, 'ERR_NET_1001');
    await bad({ management: ['telnet'] }, 400, 'ERR_NET_1005', /management/);
    await bad({ management: ['SSH'] }, 400, 'ERR_NET_1005');
    await bad({ management: ['ssh', 'ping', 'ssh'] }, 400, 'ERR_NET_1005', /twice/);
    await bad({ state: 'UP' }, 400, 'ERR_NET_1005', /state/);
    await bad({ state: 'disabled' }, 400, 'ERR_NET_1005');
    await bad({ zone: 'wan' }, 400, 'ERR_NET_2003', /wan/);
    await bad({ zone: 'any' }, 400, 'ERR_NET_2003');
    await bad({ ip: 10 }, 400, 'ERR_NET_1004', /ip/);
    await bad({ management: 'ssh' }, 400, 'ERR_NET_1004', /management/);
    await bad({ management: [1] }, 400, 'ERR_NET_1004');
    await bad({ state: true }, 400, 'ERR_NET_1004');
    await bad({ zone: null }, 400, 'ERR_NET_1004');
    await bad({ mtu: 9000 }, 400, 'ERR_NET_1004', /unknown field "mtu"/);
    await bad({ name: 'eth3' }, 400, 'ERR_NET_1004', /renaming/);
    await bad(['x'], 400, 'ERR_NET_1004');
    expectError(await c.raw('PUT', '/api/interfaces/eth2', '{"ip":'), 400, 'ERR_NET_1004');
    expectError(await c.raw('PUT', '/api/interfaces/eth2'), 400, 'ERR_NET_1004');
    expectError(await c.put('/api/interfaces/eth9', { state: 'down' }), 404, 'ERR_NET_1003');
    expectError(await c.put('/api/interfaces/__proto__', { state: 'down' }), 404, 'ERR_NET_1003');
    expect((await c.get(`/api/interfaces${CAND}`)).body).toEqual((await c.get('/api/interfaces')).body);
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });
});
