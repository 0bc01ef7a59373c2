// Address groups and service groups over HTTP (issue 27, points 2 and 3): CRUD and read
// model, refusals with the contract's codes (unknown member, cycle, depth over 8, one
// namespace with addresses and services), groups wherever an address or a service goes
// (policies, NAT), deletes refused while referenced (409 ERR_NET_2007 naming every referrer,
// the same list /usage answers), search, export and load, batch, diff with ?detail, versions,
// POST /api/eval equal to the reference evaluator, the analysis on flattened sets and the nft
// rendering (groups flattened into the interval sets).
import { parseDoc } from '../../src/config/document';
import { expectError, ok, refusal, useDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';
import { expectEvalCases } from '../helpers/eval-checks';

const c = useDaemon().client;
const group = async (path: string, name: string) => (await ok(c.get(`/api/${path}/${name}?config=candidate`))).body;

beforeAll(async () => {
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/addresses', { name: 'web1', ips: ['198.51.100.10'] }));
  await ok(c.post('/api/addresses', { name: 'web2', ips: ['198.51.100.11', '2001:db8:5::11'] }));
  await ok(c.post('/api/addresses', { name: 'db', ips: ['198.51.100.20/31'] }));
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
  await ok(c.post('/api/services', { name: 'http', protocol: 'tcp', ports: [80] }));
  await ok(c.post('/api/services', { name: 'dns', protocol: 'udp', ports: [53] }));
  await ok(c.post('/api/services', { name: 'ping', protocol: 'icmp', 'icmp-type': 8 }));
});

test('create, read, list, edit: the read model {name, members, description}', async () => {
  await ok(c.post('/api/address-groups', { name: 'webs', members: ['web1', 'web2'], description: 'front ends' }));
  await ok(c.post('/api/address-groups', { name: 'servers', members: ['webs', 'db'] }));
  await ok(c.post('/api/service-groups', { name: 'web-svc', members: ['https', 'http'] }));
  await ok(c.post('/api/service-groups', { name: 'all-svc', members: ['web-svc', 'dns', 'ping'], description: 'nested' }));
  expect(await group('address-groups', 'webs')).toEqual({ name: 'webs', members: ['web1', 'web2'], description: 'front ends' });
  expect(await group('address-groups', 'servers')).toEqual({ name: 'servers', members: ['webs', 'db'], description: '' });
  expect((await ok(c.get('/api/service-groups?config=candidate'))).body).toEqual([
    { name: 'all-svc', members: ['web-svc', 'dns', 'ping'], description: 'nested' },
    { name: 'web-svc', members: ['https', 'http'], description: '' },
  ]);
  await ok(c.put('/api/address-groups/webs', { description: 'the web tier' }));
  expect(await group('address-groups', 'webs')).toEqual({ name: 'webs', members: ['web1', 'web2'], description: 'the web tier' });
  await ok(c.put('/api/address-groups/webs', { name: 'webs', members: ['web2', 'web1'] }));
  expect((await group('address-groups', 'webs')).members).toEqual(['web2', 'web1']);
  // the running configuration has none yet
  expect((await ok(c.get('/api/address-groups'))).body).toEqual([]);
  expectError(await c.get('/api/address-groups/webs'), 404, 'ERR_NET_1003');
});

test('refusals: unknown member, cycle, depth over 8, repeated member, bad shape, one namespace', async () => {
  const bad = refusal((body: Record<string, unknown>) => c.post('/api/address-groups', { name: 'x', ...body }));
  await bad({ members: ['nope'] }, 400, 'ERR_NET_2003', /field "members\[0\]".*"nope" does not exist/);
  await bad({ members: ['web1', 'nope'] }, 400, 'ERR_NET_2003', /field "members\[1\]"/);
  await bad({ members: [] }, 400, 'ERR_NET_1004', /field "members"/);
  await bad({ members: ['web1', 'web1'] }, 400, 'ERR_NET_1004', /field "members\[1\]"/);
  await bad({ members: 'web1' }, 400, 'ERR_NET_1004', /members/);
  await bad({ members: ['web1'], extra: 1 }, 400, 'ERR_NET_1004', /extra/);
  await bad({ members: ['web1'], description: 'd'.repeat(1025) }, 400, 'ERR_NET_1004', /field "description"/);
  await bad({ name: 'web1', members: ['db'] }, 409, 'ERR_NET_2006', /address "web1" already exists/);
  await bad({ name: 'webs', members: ['db'] }, 409, 'ERR_NET_2006', /address group "webs" already exists/);
  await bad({ name: 'bad name!', members: ['db'] }, 400, 'ERR_NET_1004', /name/);
  expectError(await c.post('/api/addresses', { name: 'webs', ips: ['10.9.9.9'] }), 409, 'ERR_NET_2006');
  expectError(await c.post('/api/services', { name: 'web-svc', protocol: 'tcp', ports: [1] }), 409, 'ERR_NET_2006');
  expectError(await c.post('/api/service-groups', { name: 'https', members: ['http'] }), 409, 'ERR_NET_2006');
  // a service group holds services and service groups only
  expect(expectError(await c.post('/api/service-groups', { name: 'x', members: ['web1'] }), 400, 'ERR_NET_2003').body.details).toMatch(/members\[0\]/);
  // a cycle: webs holds nothing that holds servers, so servers -> webs -> servers is refused
  const cyc = expectError(await c.put('/api/address-groups/webs', { members: ['web1', 'servers'] }), 400, 'ERR_NET_2003');
  expect(cyc.body.details).toMatch(/field "members\[1\]".*webs -> servers -> webs/);
  expectError(await c.put('/api/address-groups/webs', { members: ['webs'] }), 400, 'ERR_NET_2003');
  // depth: a chain of 8 is accepted, a 9th level refused; so is an edit that deepens a holder
  await ok(c.post('/api/address-groups', { name: 'd1', members: ['web1'] }));
  for (let i = 2; i <= 8; i++) await ok(c.post('/api/address-groups', { name: `d${i}`, members: [`d${i - 1}`] }));
  const deep = expectError(await c.post('/api/address-groups', { name: 'd9', members: ['db', 'd8'] }), 400, 'ERR_NET_1008');
  expect(deep.body.details).toMatch(/field "members\[1\]".*9 deep, more than 8/);
  await ok(c.post('/api/address-groups', { name: 'two', members: ['webs'] })); // depth 2
  expectError(await c.put('/api/address-groups/d1', { members: ['two'] }), 400, 'ERR_NET_1008'); // d8 would be 10 deep
  expectError(await c.put('/api/address-groups/nope', { members: ['db'] }), 404, 'ERR_NET_1003');
  expect((await group('address-groups', 'd1')).members).toEqual(['web1']); // nothing changed
  for (let i = 8; i >= 1; i--) await ok(c.del(`/api/address-groups/d${i}`));
  await ok(c.del('/api/address-groups/two'));
});

test('groups where addresses and services go; deletes refused naming every referrer; usage; search', async () => {
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'servers', services: ['all-svc'], name: 'to-servers' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'webs', services: ['web-svc', 'dns'] }));
  await ok(c.post('/api/nat', { type: 'snat', 'dst-addr': 'webs', service: 'web-svc', 'translated-ip': '203.0.113.2' }));
  expectError(await c.post('/api/policies', { action: 'allow', 'src-addr': 'nothing' }), 400, 'ERR_NET_2003');
  expectError(await c.post('/api/policies', { action: 'allow', services: ['web-svc', 'nothing'] }), 400, 'ERR_NET_2003');
  const p1 = (await ok(c.get('/api/policies/1?config=candidate'))).body;
  expect(p1.dstAddr).toEqual({ name: 'servers', members: ['webs', 'db'] });
  expect(p1.services).toEqual([{ name: 'all-svc', members: ['web-svc', 'dns', 'ping'] }]);
  expect((await ok(c.get('/api/policies/2?config=candidate'))).body.services).toEqual([
    { name: 'web-svc', members: ['https', 'http'] },
    { name: 'dns', protocol: 'udp', ports: [53] },
  ]);
  const inUse = async (path: string, referrers: RegExp) =>
    expect(expectError(await c.del(path), 409, 'ERR_NET_2007').body.details).toMatch(referrers);
  await inUse('/api/addresses/web1', /is used by address-group webs$/);
  await inUse('/api/address-groups/webs', /is used by address-group servers, policy 2, nat 1$/);
  await inUse('/api/address-groups/servers', /is used by policy 1$/);
  await inUse('/api/services/dns', /is used by service-group all-svc, policy 2$/);
  await inUse('/api/service-groups/web-svc', /is used by service-group all-svc, policy 2, nat 1$/);
  expect((await ok(c.get('/api/address-groups/webs/usage?config=candidate'))).body).toEqual({
    kind: 'address-group', name: 'webs', used_by: [{ kind: 'address-group', key: 'servers' }, { kind: 'policy', key: '2' }, { kind: 'nat', key: '1' }],
  });
  expect((await ok(c.get('/api/addresses/db/usage?config=candidate'))).body.used_by).toEqual([{ kind: 'address-group', key: 'servers' }]);
  expect((await ok(c.get('/api/service-groups/all-svc/usage?config=candidate'))).body.used_by).toEqual([{ kind: 'policy', key: '1' }]);
  expectError(await c.get('/api/service-groups/none/usage?config=candidate'), 404, 'ERR_NET_1003');
  expect((await ok(c.get('/api/search?address=198.51.100.10&config=candidate'))).body.results).toEqual([
    { kind: 'address', key: 'web1', match: 'ips 198.51.100.10/32' },
    { kind: 'address-group', key: 'webs', match: 'members web1' },
    { kind: 'address-group', key: 'servers', match: 'members webs' },
    { kind: 'route', key: '1', match: 'destination 0.0.0.0/0' },
    { kind: 'policy', key: '1', name: 'to-servers', match: 'dst-addr servers' }, // named beside its id
    { kind: 'policy', key: '2', match: 'dst-addr webs' },
    { kind: 'nat', key: '1', match: 'dst-addr webs' },
  ]);
  expect((await ok(c.get('/api/search?port=53&config=candidate'))).body.results).toEqual([
    { kind: 'service', key: 'dns', match: 'ports 53' },
    { kind: 'service-group', key: 'all-svc', match: 'members dns' },
  ]);
  expect((await ok(c.get('/api/search?name=svc&config=candidate'))).body.results).toEqual([
    { kind: 'service-group', key: 'web-svc', match: 'name web-svc' },
    { kind: 'service-group', key: 'all-svc', match: 'name all-svc' },
  ]);
});

test('a dnat-port rule needs one port once its service group is flattened', async () => {
  await ok(c.post('/api/service-groups', { name: 'one-port', members: ['https'] }));
  await ok(c.post('/api/service-groups', { name: 'nested-one', members: ['one-port'] }));
  await ok(c.post('/api/nat', { type: 'dnat-port', 'dst-addr': 'db', service: 'web-svc', 'translated-ip': '10.0.0.81', 'translated-port': '8443' }));
  const refused = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  expect(refused.body.details).toMatch(/nat 2: service group web-svc holds different ports \(http 80, https 443\); a dnat-port rule needs a single port number/);
  await ok(c.put('/api/nat/2', { service: 'nested-one' }));
  await ok(c.post('/api/config/commit'));
});

test('eval and batch answer as the reference evaluator on flattened groups; analysis; nft sets', async () => {
  const V4 = { 'src-ip': '10.0.0.5', protocol: 'tcp', 'src-port': 40000 };
  const cases: Array<[Record<string, unknown>, number | null]> = [
    [{ ...V4, 'dst-ip': '198.51.100.10', 'dst-port': 443 }, 1], // web1 through webs through servers, https through web-svc
    [{ ...V4, 'dst-ip': '198.51.100.21', 'dst-port': 80 }, 1], // db /31
    [{ ...V4, 'dst-ip': '198.51.100.21', protocol: 'udp', 'dst-port': 53 }, 1],
    [{ 'src-ip': '10.0.0.5', 'dst-ip': '198.51.100.11', protocol: 'icmp', 'icmp-type': 8 }, 1],
    [{ 'src-ip': '10.0.0.5', 'dst-ip': '198.51.100.11', protocol: 'icmp', 'icmp-type': 0 }, null],
    [{ ...V4, 'dst-ip': '198.51.100.12', 'dst-port': 443 }, null], // in no group
    [{ ...V4, 'dst-ip': '198.51.100.10', 'dst-port': 22 }, null],
    [{ 'src-ip': '2001:db8::5', 'dst-ip': '2001:db8:5::11', 'src-zone': 'lan', 'dst-zone': 'wan', protocol: 'tcp', 'dst-port': 80 }, 1],
  ];
  await expectEvalCases(c, cases);
  // NAT rule 1 (dst webs, service web-svc) takes web2:80, rule 2 (db, nested-one: https) db:443
  expect((await ok(c.post('/api/eval', { ...V4, 'dst-ip': '198.51.100.11', 'dst-port': 80 }))).body.nat).toMatchObject({ id: 1, type: 'snat' });
  expect((await ok(c.post('/api/eval', { ...V4, 'dst-ip': '198.51.100.21', 'dst-port': 443 }))).body.nat).toMatchObject({ id: 2, type: 'dnat-port', translatedPort: '8443' });
  expect((await ok(c.post('/api/eval', { ...V4, 'dst-ip': '198.51.100.21', 'dst-port': 80 }))).body.nat).toBeNull();
  // policy 2 (deny to webs, web-svc + dns) lies wholly within policy 1 on flattened sets: shadowed
  const analysis = (await ok(c.get('/api/analysis'))).body;
  expect(analysis.shadowed).toEqual([{ id: 2, coveredBy: [1] }]);
  expect(analysis.unusedAddresses).toEqual([]);
  await c.begin();
  const nft: string = (await ok(c.get('/api/dataplane/render?config=candidate'))).body.nft;
  // servers flattened: web1 and web2 (one /31) and db's /31, one interval set the policy's rules share
  const set = /# address group servers\n\s*set (addr4_[0-9a-f]+) \{ type ipv4_addr; flags interval; elements = \{ 198\.51\.100\.10\/31, 198\.51\.100\.20\/31 \} \}/.exec(nft);
  expect(set).not.toBeNull();
  expect(nft).toContain(`ct original ip daddr @${set![1]} meta l4proto 1 icmp type 8 counter name "policy_1"`);
  // the NAT rule's service group: one rule per service it holds
  expect(nft).toMatch(/ip daddr 198\.51\.100\.10\/31 meta l4proto tcp th dport 80 counter name "nat_1" snat ip to 203\.0\.113\.2/);
  expect(nft).toMatch(/ip daddr 198\.51\.100\.10\/31 meta l4proto tcp th dport 443 counter name "nat_1" snat ip to 203\.0\.113\.2/);
});

test('export and load, batch, diff with ?detail, versions', async () => {
  const x = (await ok(c.get('/api/config/export'))).body;
  expect(x['address-groups']).toEqual([
    { name: 'servers', members: ['webs', 'db'], description: '' },
    { name: 'webs', members: ['web2', 'web1'], description: 'the web tier' },
  ]);
  expect(x['service-groups'].map((g: { name: string }) => g.name)).toEqual(['all-svc', 'nested-one', 'one-port', 'web-svc']);
  // a file may list a group before the groups it holds
  const reordered = { ...x, 'address-groups': [...x['address-groups']] };
  await ok(c.put('/api/config/candidate', reordered));
  expect((await ok(c.get('/api/config/diff'))).body).toMatchObject({ added: [], changed: [], deleted: [] });
  // a load with a cycle or an unknown member is refused whole, each problem placed
  const cyc = { ...x, 'address-groups': [{ name: 'a', members: ['b'], description: '' }, { name: 'b', members: ['a'], description: '' }] };
  expect(expectError(await c.put('/api/config/candidate', cyc), 400, 'ERR_NET_2003').body.details).toMatch(/address-groups\[\d\]\.members\[0\]/);
  // the batch: a group and a policy naming it in one change, all or none
  const b = await ok(c.post('/api/config/batch', { operations: [
    { method: 'POST', path: '/api/address-groups', body: { name: 'dbs', members: ['db'] } },
    { method: 'PUT', path: '/api/address-groups/webs', body: { members: ['web1'] } },
    { method: 'POST', path: '/api/policies', body: { action: 'deny', 'src-addr': 'dbs' } },
  ] }));
  expect(b.status).toBe(200);
  expectError(await c.post('/api/config/batch', { operations: [
    { method: 'DELETE', path: '/api/address-groups/dbs' },
  ] }), 409, 'ERR_NET_2007');
  const diff = (await ok(c.get('/api/config/diff?detail=true'))).body;
  expect(diff.added).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'address-group', key: 'dbs' })]));
  expect(diff.changed).toEqual(expect.arrayContaining([{ kind: 'address-group', key: 'webs', fields: [{ field: 'members', old: ['web2', 'web1'], new: ['web1'] }] }]));
  const v = (await ok(c.post('/api/config/commit'))).body.version;
  const stored = (await ok(c.get(`/api/config/versions/${v}`))).body.config;
  expect(parseDoc(stored).addressGroups.get('webs')).toEqual({ name: 'webs', members: ['web1'], description: 'the web tier' });
  expect((await ok(c.get('/api/address-groups/dbs'))).body).toEqual({ name: 'dbs', members: ['db'], description: '' });
});

test('a group of more networks than the classifier\'s trees take (its set stage) among one-network rules: eval answers the first match', async () => {
  // labs: 12 separate /24s, past the 8 prefixes a side at which a rule leaves the trees
  // (src/eval/wide.ts); lab-host: one address in one of them, a rule of the trees
  await c.begin();
  const nets = Array.from({ length: 12 }, (_, i) => `198.18.${i * 2}.0/24`);
  for (const [i, n] of nets.entries()) await ok(c.post('/api/addresses', { name: `lab${i}`, ips: [n] }));
  await ok(c.post('/api/address-groups', { name: 'labs', members: nets.map((_, i) => `lab${i}`) }));
  await ok(c.post('/api/addresses', { name: 'lab-host', ips: ['198.18.4.7'] }));
  const id = async (body: Record<string, unknown>) => Number((await ok(c.post('/api/policies', { 'src-zone': 'lan', 'dst-zone': 'wan', ...body }))).body.id);
  const wideHttp = await id({ action: 'deny', 'dst-addr': 'labs', services: ['http'] });
  const narrow = await id({ action: 'allow', 'dst-addr': 'lab-host', services: ['http', 'https'] });
  const wideHttps = await id({ action: 'allow', 'dst-addr': 'labs', services: ['https'] });
  await ok(c.post('/api/config/commit'));
  const V4 = { 'src-ip': '10.0.0.5', protocol: 'tcp', 'src-port': 40000 };
  await expectEvalCases(c, [
    [{ ...V4, 'dst-ip': '198.18.4.7', 'dst-port': 80 }, wideHttp], // the wide rule first, the narrow one matches too
    [{ ...V4, 'dst-ip': '198.18.4.7', 'dst-port': 443 }, narrow], // the narrow rule first, the wide https one matches too
    [{ ...V4, 'dst-ip': '198.18.22.200', 'dst-port': 443 }, wideHttps], // the last /24 of labs
    [{ ...V4, 'dst-ip': '198.18.3.1', 'dst-port': 443 }, null], // between two of its /24s
  ]);
});
