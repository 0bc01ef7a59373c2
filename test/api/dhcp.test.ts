// /api/dhcp over HTTP: pools on interfaces and VLANs, the derived subnetMask, reads, partial
// updates, and every error of the contract for DHCP pools.
import { expectError, expectMessage, refusal, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;
const CAND = '?config=candidate';
const pool = async (name: string, config = '') => (await c.get(`/api/dhcp/${name}${config}`)).body;

const eth0Pool = {
  interface: 'eth0', startIP: '192.168.1.100', endIP: '192.168.1.200', gateway: '192.168.1.1',
  dns: ['192.168.1.1', '9.9.9.9'], subnetMask: '255.255.255.0', leaseTimeMin: 720,
};
const vlanPool = {
  interface: 'lab', startIP: '10.20.1.10', endIP: '10.20.1.250', gateway: '', dns: [], subnetMask: '255.255.0.0', leaseTimeMin: 1440,
};

describe('dhcp pools', () => {
  test('create on an interface and a VLAN, reads running vs candidate, commit', async () => {
    expect((await c.get('/api/dhcp')).body).toEqual([]);
    expectError(await c.get('/api/dhcp?config=candidate'), 409, 'ERR_SYS_3001');
    await c.begin();
    expectMessage(await c.put('/api/interfaces/eth0', { ip: '192.168.1.1/24' }), 'interface updated in candidate');
    expectMessage(await c.post('/api/vlans', { name: 'lab', id: 20, parent: 'eth1', ip: '10.20.0.1/16' }), 'vlan created in candidate');
    expectMessage(await c.post('/api/dhcp', { interface: 'lab', start_ip: '10.20.1.10', end_ip: '10.20.1.250' }), 'dhcp pool created in candidate');
    expectMessage(
      await c.post('/api/dhcp', {
        interface: 'eth0', start_ip: '192.168.1.100', end_ip: '192.168.1.200', gateway: '192.168.1.1', dns: ['192.168.1.1', '9.9.9.9'], lease_time: 720,
      }),
      'dhcp pool created in candidate',
    );
    expect((await c.get('/api/dhcp')).body).toEqual([]);
    expectError(await c.get('/api/dhcp/eth0'), 404, 'ERR_NET_1003');
    expect((await c.get(`/api/dhcp${CAND}`)).body).toEqual([eth0Pool, vlanPool]); // sorted by interface
    expect(await pool('lab', CAND)).toEqual(vlanPool);
    await c.commit();
    expect((await c.get('/api/dhcp')).body).toEqual([eth0Pool, vlanPool]);
    expect(await pool('eth0')).toEqual(eth0Pool);
    expect(await pool('lab')).toEqual(vlanPool);
  });

  test('partial updates keep the other fields; "" and [] clear; the mask follows the interface', async () => {
    await c.begin();
    expectMessage(await c.put('/api/dhcp/eth0', { lease_time: 60 }), 'dhcp pool updated in candidate');
    expect(await pool('eth0', CAND)).toEqual({ ...eth0Pool, leaseTimeMin: 60 });
    expectMessage(await c.put('/api/dhcp/eth0', { interface: 'eth0', start_ip: '192.168.1.50', end_ip: '192.168.1.60' }), 'dhcp pool updated in candidate');
    expect(await pool('eth0', CAND)).toEqual({ ...eth0Pool, startIP: '192.168.1.50', endIP: '192.168.1.60', leaseTimeMin: 60 });
    expectMessage(await c.put('/api/dhcp/eth0', { gateway: '', dns: [] }), 'dhcp pool updated in candidate');
    expect(await pool('eth0', CAND)).toEqual({
      interface: 'eth0', startIP: '192.168.1.50', endIP: '192.168.1.60', gateway: '', dns: [], subnetMask: '255.255.255.0', leaseTimeMin: 60,
    });
    expectMessage(await c.put('/api/dhcp/eth0', {}), 'dhcp pool updated in candidate');
    expect((await pool('eth0', CAND)).leaseTimeMin).toBe(60);
    // subnetMask is derived from the interface's prefix at read time
    expectMessage(await c.put('/api/interfaces/eth0', { ip: '192.168.0.1/23' }), 'interface updated in candidate');
    expect((await pool('eth0', CAND)).subnetMask).toBe('255.255.254.0');
    expectMessage(await c.put('/api/interfaces/eth0', { ip: '' }), 'interface updated in candidate');
    expect((await pool('eth0', CAND)).subnetMask).toBe('');
    expect(await pool('eth0')).toEqual(eth0Pool); // running untouched
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('delete', async () => {
    await c.begin();
    expectMessage(await c.del('/api/dhcp/lab'), 'dhcp pool deleted in candidate');
    expectError(await c.get(`/api/dhcp/lab${CAND}`), 404, 'ERR_NET_1003');
    expect((await c.get(`/api/dhcp${CAND}`)).body).toEqual([eth0Pool]);
    expect(await pool('lab')).toEqual(vlanPool);
    expectError(await c.del('/api/dhcp/lab'), 404, 'ERR_NET_1003');
    await c.commit();
    expect((await c.get('/api/dhcp')).body).toEqual([eth0Pool]);
    expectError(await c.get('/api/dhcp/lab'), 404, 'ERR_NET_1003');
  });

  test('errors', async () => {
    await c.begin();
    expectMessage(await c.put('/api/interfaces/eth2', { ip: '172.16.2.1/24' }), 'interface updated in candidate');
    const bad = refusal((extra: Record<string, unknown>) => c.post('/api/dhcp', { interface: 'eth2', start_ip: '172.16.2.10', end_ip: '172.16.2.20', ...extra }));
    await bad({ interface: 'eth0' }, 409, 'ERR_NET_2006', /eth0/);
    await bad({ interface: 'eth9' }, 400, 'ERR_NET_2003', /eth9/);
    await bad({ interface: '' }, 400, 'ERR_NET_1004', /interface/);
    await bad({ start_ip: '2001:db8::10', end_ip: '2001:db8::20' }, 400, 'ERR_NET_1001', /IPv4 only/);
    await bad({ end_ip: 'fe80::1' }, 400, 'ERR_NET_1001', /end_ip.*IPv4 only/);
    await bad({ start_ip: '172.16.2.1000' }, 400, 'ERR_NET_1001', /start_ip/);
    await bad({ start_ip: '172.16.2.0/24' }, 400, 'ERR_NET_1001');
    await bad({ gateway: 'gw' }, 400, 'ERR_NET_1001', /gateway/);
    await bad({ gateway: '2001:db8::1' }, 400, 'ERR_NET_1001', /IPv4 only/);
    await bad({ dns: ['8.8.8.8', 'dns.google'] }, 400, 'ERR_NET_1001', /dns\[1\]/);
    await bad({ dns: ['8.8.8.8', '8.8.8.8'] }, 400, 'ERR_NET_1004', /twice/);
    await bad({ lease_time: 0 }, 400, 'ERR_NET_1008', /lease_time/);
    await bad({ lease_time: 525601 }, 400, 'ERR_NET_1008', /lease_time/);
    await bad({ lease_time: 1.5 }, 400, 'ERR_NET_1004', /lease_time/);
    await bad({ lease_time: '60' }, 400, 'ERR_NET_1004');
    await bad({ start_ip: '172.16.2.30' }, 400, 'ERR_NET_1008', /above/);
    await bad({ dns: '8.8.8.8' }, 400, 'ERR_NET_1004', /dns/);
    await bad({ startIP: '172.16.2.10' }, 400, 'ERR_NET_1004', /unknown field "startIP"/);
    expectError(await c.post('/api/dhcp', { interface: 'eth2', start_ip: '172.16.2.10' }), 400, 'ERR_NET_1004');
    expectError(await c.post('/api/dhcp', { start_ip: '172.16.2.10', end_ip: '172.16.2.20' }), 400, 'ERR_NET_1004');
    expectError(await c.raw('POST', '/api/dhcp', '[1,'), 400, 'ERR_NET_1004');
    expectError(await c.put('/api/dhcp/eth2', { lease_time: 5 }), 404, 'ERR_NET_1003');
    expectError(await c.put('/api/dhcp/__proto__', { lease_time: 5 }), 404, 'ERR_NET_1003');
    expectError(await c.get('/api/dhcp/eth2'), 404, 'ERR_NET_1003');
    expectError(await c.del('/api/dhcp/eth2'), 404, 'ERR_NET_1003');
    expectError(await c.put('/api/dhcp/eth0', { interface: 'eth2' }), 400, 'ERR_NET_1004');
    expectError(await c.put('/api/dhcp/eth0', { start_ip: '192.168.1.201' }), 400, 'ERR_NET_1008');
    expectError(await c.put('/api/dhcp/eth0', { lease_time: 0 }), 400, 'ERR_NET_1008');
    expectError(await c.put('/api/dhcp/eth0', { gateway: 'x' }), 400, 'ERR_NET_1001');
    expect((await c.get(`/api/dhcp${CAND}`)).body).toEqual((await c.get('/api/dhcp')).body);
    // the smallest and largest lease times are accepted; a one-address range too
    expectMessage(await c.post('/api/dhcp', { interface: 'eth2', start_ip: '172.16.2.10', end_ip: '172.16.2.10', lease_time: 1 }), 'dhcp pool created in candidate');
    expectMessage(await c.put('/api/dhcp/eth2', { lease_time: 525600 }), 'dhcp pool updated in candidate');
    expect(await pool('eth2', CAND)).toEqual({
      interface: 'eth2', startIP: '172.16.2.10', endIP: '172.16.2.10', gateway: '', dns: [], subnetMask: '255.255.255.0', leaseTimeMin: 525600,
    });
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('a VLAN with a pool cannot be deleted; a pool whose interface lost its address fails the commit', async () => {
    await c.begin();
    expectMessage(await c.post('/api/dhcp', { interface: 'lab', start_ip: '10.20.2.1', end_ip: '10.20.2.9' }), 'dhcp pool created in candidate');
    const r = expectError(await c.del('/api/vlans/lab'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain('dhcp lab');
    // the immediate checks accept clearing the address; the commit checks refuse the result
    expectMessage(await c.put('/api/interfaces/eth0', { ip: '' }), 'interface updated in candidate');
    expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
    expect((await c.get('/api/config/session')).body.active).toBe(true);
    expectMessage(await c.put('/api/interfaces/eth0', { ip: '192.168.1.1/24' }), 'interface updated in candidate');
    await c.commit();
    expect(await pool('lab')).toEqual({ ...vlanPool, startIP: '10.20.2.1', endIP: '10.20.2.9' });
    expect(await pool('eth0')).toEqual(eth0Pool);
  });
});
