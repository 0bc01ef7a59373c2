// Issue 32, point 4, on a real kernel (a namespace of our own): validate asks the data plane
// what the kernel can hold (a VLAN where 802.1Q is missing, as on this machine) and answers the
// error the commit answers; a route through a down link and a NAT or policy target only that
// link reaches are commit warnings; a refused apply names the configuration, not a version
// number that was never given out.
import { spawnSync } from 'node:child_process';
import { expectError, ok, type Res } from '../helpers/daemon';
import { kernelState, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;

beforeAll(async () => {
  ld = await startLabDaemon(3, ['fwghost']);
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

/** Whether this kernel creates 802.1Q links (the probe link is removed at once). */
function kernelHasVlans(): { yes: boolean; said: string } {
  const fw = ld.lab.fw;
  const probe = spawnSync('ip', ['-n', fw, 'link', 'add', 'link', 'fw1', 'name', 'vprobe', 'type', 'vlan', 'id', '99'], { encoding: 'utf8' });
  if (probe.status === 0) spawnSync('ip', ['-n', fw, 'link', 'delete', 'vprobe']);
  return { yes: probe.status === 0, said: probe.stderr.trim() };
}

test('a VLAN the kernel cannot create: validate answers the commit\'s own error, and the commit changes nothing', async () => {
  const c = ld.client;
  const vlans = kernelHasVlans();
  const before = kernelState(ld.lab.fw);
  await c.begin();
  await ok(c.post('/api/vlans', { name: 'fw1.40', id: 40, parent: 'fw1', ip: '10.40.0.1/24' }));
  if (vlans.yes) {
    // a kernel with 802.1Q: validate passes and the commit creates it
    await ok(c.post('/api/config/validate'));
    await ld.client.commit();
    expect(kernelState(ld.lab.fw).links).toContain('fw1.40 up');
    return;
  }
  expect(vlans.said).toMatch(/Unknown device type/);
  const v = expectError(await c.post('/api/config/validate'), 400, 'ERR_SYS_3003');
  expect(v.body.details).toBe('vlan fw1.40: this kernel cannot create vlan links ("ip link add ... type vlan": Unknown device type); it needs 802.1Q support (module 8021q: modprobe 8021q, or a kernel built with CONFIG_VLAN_8021Q)');
  const r = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  expect(r.body).toEqual(v.body);
  expect(kernelState(ld.lab.fw)).toEqual(before);
  expect((await ok(c.get('/api/config/session'))).body.active).toBe(true);
  await ok(c.post('/api/config/discard'));
});

test('a route through a down link, and NAT and policy targets only it reaches, are warnings of validate and commit', async () => {
  const c = ld.client;
  await c.begin();
  await ok(c.put('/api/interfaces/fw3', { state: 'down' }));
  await ok(c.post('/api/routes', { destination: '172.16.3.0/24', gateway: '10.3.0.2' }));
  await ok(c.post('/api/routes', { destination: '172.16.33.0/24', interface: 'fw3' }));
  await ok(c.post('/api/routes', { destination: '172.16.2.0/24', gateway: '10.2.0.2' })); // up: no word
  await ok(c.post('/api/addresses', { name: 'behind3', ips: ['172.16.3.0/24'] }));
  await ok(c.post('/api/addresses', { name: 'behind2', ips: ['172.16.2.0/24'] }));
  await ok(c.post('/api/addresses', { name: 'pub', ips: ['10.1.0.1/32'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': 'behind3' }));
  await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': 'behind2' }));
  await ok(c.post('/api/nat', { type: 'dnat-ip', 'dst-addr': 'pub', 'translated-ip': '172.16.33.10' }));
  const routes = (await ok(c.get('/api/routes?config=candidate'))).body as Array<{ id: number; destination: string }>;
  const id = (d: string) => routes.find((r) => r.destination === d)!.id;
  const policies = (await ok(c.get('/api/policies?config=candidate'))).body as Array<{ id: number; dstAddr: { name: string } | null }>;
  const nat = (await ok(c.get('/api/nat?config=candidate'))).body as Array<{ id: number }>;
  const expected = [
    `route ${id('172.16.3.0/24')}: through interface fw3, which is down: the route is unusable`,
    `route ${id('172.16.33.0/24')}: through interface fw3, which is down: the route is unusable`,
    `nat ${nat[0].id}: target 172.16.33.10 is reachable only through interface fw3, which is down`,
    `policy ${policies.find((p) => p.dstAddr?.name === 'behind3')!.id}: destination behind3 (172.16.3.0/24) is reachable only through interface fw3, which is down`,
  ];
  const warningsOf = (r: Res) => (r.body.warnings as string).split('\n').filter((w) => /which is down/.test(w));
  expect(warningsOf(await ok(c.post('/api/config/validate')))).toEqual(expected);
  const r = await ok(c.post('/api/config/commit'));
  expect(r.body.message).toBe('commit successful');
  expect(warningsOf(r)).toEqual(expected);
  // up again: not a word
  await c.begin();
  await ok(c.put('/api/interfaces/fw3', { state: 'up' }));
  const again = await ok(c.post('/api/config/commit'));
  expect(again.body.warnings ?? '').not.toMatch(/which is down/);
});

test('a refused apply names the configuration, not the version number the next commit takes', async () => {
  const c = ld.client;
  const version = (await ok(c.get('/api/status'))).body.version as number;
  await c.begin();
  await ok(c.put('/api/interfaces/fwghost', { ip: '10.99.0.1/24' })); // a link this kernel does not have
  expectError(await c.post('/api/config/commit'), 500, 'ERR_SYS_4005');
  const error = (await ok(c.get('/api/status'))).body.dataplane.error as string;
  expect(error).toMatch(new RegExp(`^the candidate of admin's session, on version ${version}: .*fwghost`));
  expect(error).not.toMatch(new RegExp(`version ${version + 1}`));
  await ok(c.put('/api/interfaces/fwghost', { ip: '' }));
  await ld.client.commit();
  expect((await ok(c.get('/api/status'))).body).toMatchObject({ version: version + 1, dataplane: { error: null, applied_version: version + 1 } });
});
