// Commit over HTTP: the exact success answer and increasing versions; a failed commit is
// 400 ERR_SYS_3003 listing every problem, one per line, and keeps the session open so the
// candidate can be fixed and committed; commit checks see the whole candidate.
import { expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;

test('commit answers exactly {message, version}; versions increase; the session ends', async () => {
  await ok(c.post('/api/config/begin'));
  await ok(c.put('/api/interfaces/eth1', { ip: '192.168.1.1/24' }));
  const r = await c.post('/api/config/commit');
  expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { message: 'commit successful', version: '1' } });
  expect((await c.get('/api/config/session')).body.active).toBe(false);
  expectError(await c.post('/api/routes', { destination: '10.0.0.0/8', interface: 'eth1' }), 409, 'ERR_SYS_3001');
  await ok(c.post('/api/config/begin'));
  await ok(c.post('/api/routes', { destination: '10.0.0.0/8', gateway: '192.168.1.254' }));
  expect((await c.post('/api/config/commit')).body).toEqual({ message: 'commit successful', version: '2' });
  // an empty session commits too, as the next version
  await ok(c.post('/api/config/begin'));
  expect((await c.post('/api/config/commit')).body).toEqual({ message: 'commit successful', version: '3' });
});

test('a failed commit lists every problem, one per line; the session stays open; fixing it commits', async () => {
  await ok(c.post('/api/config/begin'));
  // a configuration that is valid change by change but wrong as a whole
  await ok(c.put('/api/interfaces/eth2', { ip: '192.168.1.1/24' })); // same address as eth1
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['eth3'] })); // eth3 has no IP
  await ok(c.post('/api/dhcp', { interface: 'eth1', start_ip: '10.0.0.10', end_ip: '10.0.0.200' }));
  const route = await ok(c.post('/api/routes', { destination: '172.16.0.0/12', gateway: '10.9.9.1' }));
  await ok(c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80, 443] }));
  const nat = await ok(c.post('/api/nat', { type: 'dnat-port', service: 'web', 'translated-ip': '192.168.1.10', 'translated-port': '8080' }));
  const candidate = (await c.get('/api/routes?config=candidate')).body;

  const r = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  expect(r.body.details.split('\n')).toEqual([
    'interface eth2: address 192.168.1.1 is also used by interface eth1',
    'zone dmz: type l3 but interface eth3 has no IP address',
    'dhcp eth1: range 10.0.0.10-10.0.0.200 is outside 192.168.1.0/24',
    `route ${route.body.id}: gateway 10.9.9.1 is not in any connected subnet`,
    `nat ${nat.body.id}: service web has ports 80, 443; a dnat-port rule needs a single port number`,
  ]);
  // validate reports the same without committing
  expect(expectError(await c.post('/api/config/validate'), 400, 'ERR_SYS_3003').body.details).toBe(r.body.details);
  // the session is still open, the candidate intact, running untouched
  const s = (await c.get('/api/config/session')).body;
  expect(s.active).toBe(true);
  expect(s.owner).toBe('admin');
  expect((await c.get('/api/routes?config=candidate')).body).toEqual(candidate);
  expect((await c.get('/api/nat')).body).toEqual([]);
  expect((await c.get('/api/interfaces/eth2')).body.ip).toBe('');

  // fix some: the remaining problems are still reported, and only those
  await ok(c.put('/api/interfaces/eth2', { ip: '192.168.2.1/24' }));
  await ok(c.put('/api/dhcp/eth1', { start_ip: '192.168.1.100', end_ip: '192.168.1.200' }));
  const r2 = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  expect(r2.body.details.split('\n')).toEqual([
    'zone dmz: type l3 but interface eth3 has no IP address',
    `route ${route.body.id}: gateway 10.9.9.1 is not in any connected subnet`,
    `nat ${nat.body.id}: service web has ports 80, 443; a dnat-port rule needs a single port number`,
  ]);

  // fix the rest, then the commit goes through as the next version
  await ok(c.put('/api/interfaces/eth3', { ip: '10.3.0.1/24' }));
  expectMessage(await c.put(`/api/routes/${route.body.id}`, { gateway: '192.168.2.254' }), 'route updated in candidate');
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
  expectMessage(await c.put(`/api/nat/${nat.body.id}`, { service: 'https' }), 'NAT rule updated in candidate');
  expect((await c.post('/api/config/commit')).body).toEqual({ message: 'commit successful', version: '4' });
  expect((await c.get('/api/config/session')).body.active).toBe(false);
  expect((await c.get(`/api/nat/${nat.body.id}`)).body).toMatchObject({ type: 'dnat-port', service: 'https', translatedPort: '8080' });
  expect((await c.get('/api/interfaces/eth2')).body.ip).toBe('192.168.2.1/24');
});

test('a change that breaks a committed object is caught at the next commit', async () => {
  await ok(c.post('/api/config/begin'));
  // readdressing eth1 strands its DHCP pool and the route through 192.168.1.254
  await ok(c.put('/api/interfaces/eth1', { ip: '172.20.0.1/16' }));
  const r = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  const lines = r.body.details.split('\n');
  expect(lines).toEqual([
    'dhcp eth1: range 192.168.1.100-192.168.1.200 is outside 172.20.0.0/16',
    'route 1: gateway 192.168.1.254 is not in any connected subnet',
  ]);
  expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  expect((await c.get('/api/interfaces/eth1')).body.ip).toBe('192.168.1.1/24');
});

test('ids: a discarded session does not disturb committed ids; deleted committed ids are not reused', async () => {
  const running = (await c.get('/api/routes')).body.map((x: { id: number }) => x.id);
  expect(running).toEqual([1, 2]);
  await ok(c.post('/api/config/begin'));
  await ok(c.del('/api/routes/2'));
  expect((await ok(c.post('/api/routes', { destination: '10.50.0.0/16', interface: 'eth3' }))).body.id).toBe('3');
  expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  expect((await c.get('/api/routes')).body.map((x: { id: number }) => x.id)).toEqual([1, 2]);
  await ok(c.post('/api/config/begin'));
  await ok(c.del('/api/routes/2'));
  expect((await c.post('/api/config/commit')).body.message).toBe('commit successful');
  await ok(c.post('/api/config/begin'));
  // 2 was committed and deleted: the next route is 3, never 2
  expect((await ok(c.post('/api/routes', { destination: '10.51.0.0/16', interface: 'eth3' }))).body).toEqual({ message: 'route created in candidate', id: '3' });
  expect((await c.get('/api/routes?config=candidate')).body.map((x: { id: number }) => x.id)).toEqual([1, 3]);
  expect((await c.post('/api/config/commit')).body.message).toBe('commit successful');
});
