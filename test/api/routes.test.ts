// Static routes over HTTP: ids from a counter (as strings in create answers), messages,
// read models, running vs candidate, partial updates, path id checks and errors.
import { expectError, expectMessage, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;

beforeAll(async () => {
  expectMessage(await c.post('/api/config/begin'), 'config session started');
  expectMessage(await c.put('/api/interfaces/eth1', { ip: '192.168.1.1/24' }), 'interface updated in candidate');
  expectMessage(await c.put('/api/interfaces/eth0', { ip: '2001:db8::1/64' }), 'interface updated in candidate');
});

const route = (id: number, o: Record<string, unknown>) => ({ id, description: '', gateway: '', interface: '', metric: 0, ...o });

test('create answers the id as a string; read back from the candidate, then from running after commit', async () => {
  const r1 = expectMessage(await c.post('/api/routes', { destination: '10.1.2.3/16', gateway: '192.168.1.254', description: 'branch' }), 'route created in candidate');
  expect(r1.body).toEqual({ message: 'route created in candidate', id: '1' });
  const r2 = expectMessage(await c.post('/api/routes', { destination: 'default', gateway: '192.168.1.254', interface: 'eth1', metric: 100 }), 'route created in candidate');
  expect(r2.body.id).toBe('2');
  const r3 = await c.post('/api/routes', { destination: '2001:DB8:1::/48', gateway: '2001:db8::fe', interface: 'eth0' });
  expect(r3.body).toEqual({ message: 'route created in candidate', id: '3' });
  const expected = [
    route(1, { description: 'branch', destination: '10.1.0.0/16', gateway: '192.168.1.254' }),
    route(2, { destination: '0.0.0.0/0', gateway: '192.168.1.254', interface: 'eth1', metric: 100 }),
    route(3, { destination: '2001:db8:1::/48', gateway: '2001:db8::fe', interface: 'eth0' }),
  ];
  expect((await c.get('/api/routes?config=candidate')).body).toEqual(expected);
  expect((await c.get('/api/routes/2?config=candidate')).body).toEqual(expected[1]);
  expect((await c.get('/api/routes')).body).toEqual([]);
  expectError(await c.get('/api/routes/1'), 404, 'ERR_NET_1003');
  const commit = await c.post('/api/config/commit');
  expect(commit.body).toEqual({ message: 'commit successful', version: '1' });
  expect((await c.get('/api/routes')).body).toEqual(expected);
  expect((await c.get('/api/routes/3')).body).toEqual(expected[2]);
  expectMessage(await c.post('/api/config/begin'), 'config session started');
});

test('partial update: present fields replace, "" clears, absent keep; the id may be repeated', async () => {
  expectMessage(await c.put('/api/routes/2', { metric: 5 }), 'route updated in candidate');
  expect((await c.get('/api/routes/2?config=candidate')).body).toEqual(
    route(2, { destination: '0.0.0.0/0', gateway: '192.168.1.254', interface: 'eth1', metric: 5 }),
  );
  expectMessage(await c.put('/api/routes/2', { id: 2, gateway: '', description: 'direct' }), 'route updated in candidate');
  expect((await c.get('/api/routes/2?config=candidate')).body).toEqual(
    route(2, { description: 'direct', destination: '0.0.0.0/0', interface: 'eth1', metric: 5 }),
  );
  // the running version is untouched until commit
  expect((await c.get('/api/routes/2')).body.metric).toBe(100);
  const before = (await c.get('/api/routes?config=candidate')).body;
  expectError(await c.put('/api/routes/2', { interface: '' }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/routes/2', { id: 3, metric: 1 }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/routes/2', { id: '2' }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/routes/2', { metric: 70000 }), 400, 'ERR_NET_1008');
  expectError(await c.put('/api/routes/2', { gateway: '2001:db8::fe' }), 400, 'ERR_NET_1001');
  expectError(await c.put('/api/routes/2', { name: 'x' }), 400, 'ERR_NET_1004');
  expect((await c.get('/api/routes?config=candidate')).body).toEqual(before);
});

test('delete; a deleted id is never handed out again', async () => {
  expectMessage(await c.del('/api/routes/1'), 'route deleted from candidate');
  expectError(await c.get('/api/routes/1?config=candidate'), 404, 'ERR_NET_1003');
  expectError(await c.del('/api/routes/1'), 404, 'ERR_NET_1003');
  const r = await c.post('/api/routes', { destination: '10.9.0.0/16', interface: 'eth1' });
  expect(r.body).toEqual({ message: 'route created in candidate', id: '4' });
  expect((await c.get('/api/routes?config=candidate')).body.map((x: { id: number }) => x.id)).toEqual([2, 3, 4]);
});

test('path ids: not a positive integer is 400 ERR_NET_1002, unknown is 404 ERR_NET_1003', async () => {
  for (const bad of ['abc', '0', '-1', '1.5', '01', '1e3']) {
    const p = `/api/routes/${bad}`;
    expectError(await c.get(p), 400, 'ERR_NET_1002');
    expectError(await c.put(p, { metric: 1 }), 400, 'ERR_NET_1002');
    expectError(await c.del(p), 400, 'ERR_NET_1002');
  }
  expectError(await c.get('/api/routes/999'), 404, 'ERR_NET_1003');
  expectError(await c.put('/api/routes/999', { metric: 1 }), 404, 'ERR_NET_1003');
  expectError(await c.del('/api/routes/999'), 404, 'ERR_NET_1003');
});

test('create errors name the field and change nothing', async () => {
  const before = (await c.get('/api/routes?config=candidate')).body;
  const cases: Array<[unknown, number, string, RegExp]> = [
    [{ destination: '10.0.0.0/8' }, 400, 'ERR_NET_1004', /gateway.*interface/],
    [{ destination: '10.0.0.0/8', gateway: '', interface: '' }, 400, 'ERR_NET_1004', /gateway.*interface/],
    [{ gateway: '192.168.1.254' }, 400, 'ERR_NET_1004', /destination/],
    [{ destination: '10.0.0.0/8', interface: 'eth1', color: 'red' }, 400, 'ERR_NET_1004', /color/],
    [{ destination: '10.0.0.0/8', interface: 'eth1', metric: '5' }, 400, 'ERR_NET_1004', /metric/],
    [{ destination: '10.0.0.0/33', interface: 'eth1' }, 400, 'ERR_NET_1001', /destination/],
    [{ destination: 'any', interface: 'eth1' }, 400, 'ERR_NET_1001', /destination/],
    [{ destination: '10.0.0.0/8', gateway: '192.168.1.256' }, 400, 'ERR_NET_1001', /gateway/],
    [{ destination: '10.0.0.0/8', gateway: '2001:db8::fe' }, 400, 'ERR_NET_1001', /gateway/],
    [{ destination: '10.0.0.0/8', interface: 'eth9' }, 400, 'ERR_NET_2003', /eth9/],
    [{ destination: '10.0.0.0/8', interface: 'eth1', metric: 65536 }, 400, 'ERR_NET_1008', /metric/],
    [{ destination: '10.0.0.0/8', interface: 'eth1', metric: -1 }, 400, 'ERR_NET_1008', /metric/],
  ];
  for (const [body, status, code, details] of cases) {
    const r = expectError(await c.post('/api/routes', body), status, code);
    expect(r.body.details).toMatch(details);
  }
  expectError(await c.raw('POST', '/api/routes', '{"destination":'), 400, 'ERR_NET_1004');
  expect((await c.get('/api/routes?config=candidate')).body).toEqual(before);
  // failed creates hand out no id
  expect((await c.post('/api/routes', { destination: '10.10.0.0/16', interface: 'eth1' })).body.id).toBe('5');
});

test('metric bounds 0 and 65535 are accepted; a VLAN is a valid interface and cannot be deleted while routed', async () => {
  expect((await c.post('/api/routes', { destination: '10.11.0.0/16', interface: 'eth1', metric: 65535 })).status).toBe(200);
  expect((await c.post('/api/routes', { destination: '10.12.0.0/16', interface: 'eth1', metric: 0 })).status).toBe(200);
  expectMessage(await c.post('/api/vlans', { name: 'v10', id: 10, parent: 'eth2', ip: '10.10.10.1/24' }), 'vlan created in candidate');
  const r = await c.post('/api/routes', { destination: '172.16.0.0/12', gateway: '10.10.10.254', interface: 'v10' });
  const id = r.body.id;
  const del = expectError(await c.del('/api/vlans/v10'), 409, 'ERR_NET_2007');
  expect(del.body.details).toContain(`route ${id}`);
  expectMessage(await c.del(`/api/routes/${id}`), 'route deleted from candidate');
  expectMessage(await c.del('/api/vlans/v10'), 'vlan deleted from candidate');
});
