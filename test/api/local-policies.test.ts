// Local policies over HTTP (issue 41 item 1): /api/local-policies with the policies' payloads,
// read model without dstZone, moves and placement, refusals with the contract's codes
// (a dst-zone, unknown objects), references that block deletes, export and load, and
// POST /api/eval tracing packets to the firewall itself: the first local policy that matches,
// then the links' management shortcuts; equal to the reference evaluator, batch and single.
import { expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';
import { expectEvalCases } from '../helpers/eval-checks';
import { lanWan } from '../helpers/lan-wan';

const c = useDaemon().client;
const to = (src: string, dst: string, protocol: string | number, port?: number, extra: Record<string, unknown> = {}) =>
  ({ 'src-ip': src, 'dst-ip': dst, protocol, ...(port === undefined ? {} : { 'dst-port': port }), ...extra });

beforeAll(async () => {
  await c.begin();
  await lanWan(c); // eth0 203.0.113.2/24 wan (default route), eth1 10.0.0.1/24 lan
  await ok(c.put('/api/interfaces/eth2', { ip: '10.9.0.1/24' }));
  await ok(c.post('/api/zones', { name: 'mgmt', type: 'l3', interfaces: ['eth2'] }));
  await ok(c.put('/api/interfaces/eth1', { management: ['ping'] }));
  await ok(c.post('/api/addresses', { name: 'admins', ips: ['10.9.0.0/28'] }));
  await ok(c.post('/api/addresses', { name: 'fw-lan', ips: ['10.0.0.1/32'] }));
  await ok(c.post('/api/services', { name: 'dns-udp', protocol: 'udp', ports: [53] }));
  await ok(c.post('/api/services', { name: 'dns-tcp', protocol: 'tcp', ports: [53] }));
  await ok(c.post('/api/service-groups', { name: 'dns', members: ['dns-udp', 'dns-tcp'] }));
  await ok(c.post('/api/services', { name: 'ssh', protocol: 'tcp', ports: [22] }));
  await ok(c.post('/api/policies', { action: 'allow' })); // forward: everything
});

test('create, read (no dstZone), placement, move, update; refusals with the contract codes', async () => {
  expectMessage(await c.post('/api/local-policies', { action: 'allow', 'src-zone': 'lan', 'dst-addr': 'fw-lan', services: ['dns'], name: 'dns-lan' }), 'local policy created in candidate');
  const r2 = await ok(c.post('/api/local-policies', { action: 'allow', 'src-zone': 'mgmt', 'src-addr': 'admins', services: ['ssh'], log: true }));
  expect(r2.body).toEqual({ message: 'local policy created in candidate', id: '2' });
  await ok(c.post('/api/local-policies', { action: 'deny', services: ['ssh'], position: 'top' }));
  const one = (await ok(c.get('/api/local-policies/1?config=candidate'))).body;
  expect(one).toEqual({
    id: 1, action: 'allow', name: 'dns-lan',
    srcZone: expect.objectContaining({ name: 'lan' }), srcAddr: null, dstAddr: { name: 'fw-lan', ips: [{ ip: [10, 0, 0, 1], mask: [255, 255, 255, 255] }] },
    services: [{ name: 'dns', members: ['dns-udp', 'dns-tcp'] }], log: false,
  });
  expect('dstZone' in one).toBe(false);
  const ids = async () => (await ok(c.get('/api/local-policies?config=candidate'))).body.map((p: { id: number }) => p.id);
  expect(await ids()).toEqual([3, 1, 2]);
  expectMessage(await c.post('/api/local-policies/3/move', { position: 'bottom' }), 'local policy moved successfully');
  expect(await ids()).toEqual([1, 2, 3]);
  expectMessage(await c.put('/api/local-policies/3', { log: true }), 'local policy updated in candidate');
  // refusals: nothing changes
  let e = expectError(await c.post('/api/local-policies', { action: 'allow', 'dst-zone': 'lan' }), 400, 'ERR_NET_1004');
  expect(e.body.details).toMatch(/dst-zone/);
  expectError(await c.put('/api/local-policies/1', { 'dst-zone': 'wan' }), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/local-policies', { action: 'maybe' }), 400, 'ERR_SEC_1002');
  e = expectError(await c.post('/api/local-policies', { action: 'allow', 'src-zone': 'nope' }), 400, 'ERR_NET_2003');
  expect(e.body.details).toMatch(/src-zone/);
  expectError(await c.post('/api/local-policies', { action: 'allow', services: ['nope'] }), 400, 'ERR_NET_2003');
  expectError(await c.get('/api/local-policies/99?config=candidate'), 404, 'ERR_NET_1003');
  expectError(await c.get('/api/local-policies/x?config=candidate'), 400, 'ERR_NET_1002');
  expectError(await c.post('/api/local-policies/1/move', { position: 'before', reference_id: 77 }), 400, 'ERR_NET_2003');
  expect(await ids()).toEqual([1, 2, 3]);
  // an object a local policy names cannot be deleted
  e = expectError(await c.del('/api/addresses/admins'), 409, 'ERR_NET_2007');
  expect(e.body.details).toMatch(/local-policy 2/);
  e = expectError(await c.del('/api/zones/mgmt'), 409, 'ERR_NET_2007');
  expect(e.body.details).toMatch(/local-policy 2/);
  // the forward rule base is untouched
  expect((await ok(c.get('/api/policies?config=candidate'))).body.map((p: { id: number }) => p.id)).toEqual([1]);
  expect((await ok(c.post('/api/config/commit'))).body).toMatchObject({ message: 'commit successful' });
  expect((await ok(c.get('/api/local-policies'))).body.map((p: { id: number }) => p.id)).toEqual([1, 2, 3]);
  expect((await ok(c.get('/api/local-policies?stats=true'))).body[0].hits).toBeNull(); // no data plane here
});

test('eval traces packets to the firewall: local policies first, then the management shortcuts', async () => {
  await expectEvalCases(c, [
    [to('10.0.0.5', '10.0.0.1', 'udp', 53), 1], // DNS from lan to the firewall's lan address: allowed
    [to('10.0.0.5', '10.0.0.1', 'tcp', 53), 1],
    [to('10.9.0.5', '10.0.0.1', 'udp', 53), null], // DNS from mgmt: nothing allows it
    [to('10.0.0.5', '203.0.113.2', 'udp', 53), null], // dst-addr narrows to the lan address
    [to('10.9.0.5', '10.9.0.1', 'tcp', 22), 2], // ssh from the admin network
    [to('10.9.0.20', '10.9.0.1', 'tcp', 22), 3], // ssh from mgmt outside it: the deny below
    [to('10.0.0.5', '10.0.0.1', 'tcp', 22), 3],
    [to('10.0.0.5', '10.0.0.1', 'icmp', undefined, { 'icmp-type': 8 }), null], // ping: eth1's shortcut
    [to('198.51.100.7', '203.0.113.2', 'icmp', undefined, { 'icmp-type': 8 }), null], // eth0 has none
    [to('10.0.0.5', '8.8.8.8', 'udp', 53), 1], // forwarded: the forward policy 1
  ]);
  const r = (await ok(c.post('/api/eval/batch', { packets: [
    to('10.0.0.5', '10.0.0.1', 'udp', 53),
    to('10.9.0.5', '10.0.0.1', 'udp', 53),
    to('10.0.0.5', '10.0.0.1', 'icmp', undefined, { 'icmp-type': 8 }),
    to('198.51.100.7', '203.0.113.2', 'icmp', undefined, { 'icmp-type': 8 }),
  ] }))).body.results;
  const none = { dstZone: null, egressInterface: null, route: null, nat: null };
  expect(r).toEqual([
    { action: 'allow', reason: 'local-policy', srcZone: 'lan', ...none, policy: { id: 1, action: 'allow', log: false } },
    { action: 'deny', reason: 'local-policy', srcZone: 'mgmt', ...none, policy: null },
    { action: 'allow', reason: 'local-policy', srcZone: 'lan', ...none, policy: null },
    { action: 'deny', reason: 'local-policy', srcZone: null, ...none, policy: null }, // 198.51.100.7 is in no zone
  ]);
});

test('a dnat to elsewhere of the firewall address is forwarded, not local', async () => {
  await c.begin();
  await ok(c.post('/api/addresses', { name: 'wan-ip', ips: ['203.0.113.2/32'] }));
  await ok(c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80] }));
  await ok(c.post('/api/nat', { type: 'dnat-ip', 'dst-addr': 'wan-ip', service: 'web', 'translated-ip': '10.0.0.10' }));
  await ok(c.post('/api/config/commit'));
  await expectEvalCases(c, [
    [to('198.51.100.7', '203.0.113.2', 'tcp', 80), 1], // forwarded to 10.0.0.10 by policy 1
    [to('198.51.100.7', '203.0.113.2', 'tcp', 22), 3], // not translated: local, the ssh deny
  ]);
});

test('export writes local-policies (without dst-zone); a load of it changes nothing', async () => {
  const x = (await ok(c.get('/api/config/export'))).body;
  expect(x['local-policies']).toEqual([
    { id: 1, action: 'allow', 'src-zone': 'lan', 'src-addr': 'any', 'dst-addr': 'fw-lan', services: ['dns'], log: false, name: 'dns-lan' },
    { id: 2, action: 'allow', 'src-zone': 'mgmt', 'src-addr': 'admins', 'dst-addr': 'any', services: ['ssh'], log: true },
    { id: 3, action: 'deny', 'src-zone': 'any', 'src-addr': 'any', 'dst-addr': 'any', services: ['ssh'], log: true },
  ]);
  await c.begin();
  await ok(c.put('/api/config/candidate', x));
  expect((await ok(c.get('/api/config/diff'))).body).toMatchObject({ added: [], changed: [], deleted: [] });
  const bad = { ...x, 'local-policies': [{ action: 'allow', 'dst-zone': 'lan' }] };
  const e = expectError(await c.put('/api/config/candidate', bad), 400, 'ERR_NET_1004');
  expect(e.body.details).toMatch(/local-policies\[0\]/);
  // a new one is in the diff as a local-policy
  await ok(c.post('/api/local-policies', { action: 'allow', services: ['dns'] }));
  expect((await ok(c.get('/api/config/diff'))).body.added).toEqual([{ kind: 'local-policy', key: '4' }]);
});

test('the analysis of the local policies: shadowed and redundant, exact, running and candidate', async () => {
  await c.begin();
  // (begin discards the session above: the next ids are 4 and 5)
  // 4: ssh from admins again (redundant under 2); 5: dns from lan, denied (shadowed by 1)
  await ok(c.post('/api/local-policies', { action: 'allow', 'src-zone': 'mgmt', 'src-addr': 'admins', services: ['ssh'] }));
  await ok(c.post('/api/local-policies', { action: 'deny', 'src-zone': 'lan', 'dst-addr': 'fw-lan', services: ['dns-udp'] }));
  const cand = (await ok(c.get('/api/analysis/local-policies?config=candidate'))).body;
  expect(cand).toEqual({ complete: true, shadowed: [{ id: 5, coveredBy: [1] }], redundant: [{ id: 4, coveredBy: [2] }], undecided: [], disabled: [] });
  // the running version has neither
  expect((await ok(c.get('/api/analysis/local-policies'))).body).toEqual({ complete: true, shadowed: [], redundant: [], undecided: [], disabled: [] });
  await ok(c.post('/api/config/commit'));
  expect((await ok(c.get('/api/analysis/local-policies'))).body.redundant).toEqual([{ id: 4, coveredBy: [2] }]);
});
