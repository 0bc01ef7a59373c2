// Automation at scale over HTTP: the whole configuration exported (JSON and YAML), loaded back
// into the candidate (replace and merge) as one change with every problem reported at once,
// atomic batches of the single object requests, and the journal entries of both replayed on
// a restarted daemon.
import YAML from 'yaml';
import { Client, expectError, expectMessage, ok, startTestDaemon, tempDir, useDaemon } from '../helpers/daemon';

const d = useDaemon();
const c = d.client;

const EMPTY_DIFF = { added: [], changed: [], deleted: [], reordered: [] };

/** One object of every kind, committed: what the round trips start from. */
async function seed(client: Client): Promise<void> {
  await client.begin();
  await ok(client.put('/api/interfaces/eth0', { ip: '203.0.113.2/24', management: ['ping'] }));
  await ok(client.put('/api/interfaces/eth1', { ip: '192.168.1.1/24', management: ['ssh', 'https'] }));
  await ok(client.post('/api/zones', { name: 'trust', type: 'l3', color: 'green', interfaces: ['eth1'], networks: ['192.168.1.0/24'] }));
  await ok(client.post('/api/zones', { name: 'untrust', type: 'l3', interfaces: ['eth0'] }));
  await ok(client.post('/api/vlans', { name: 'vl10', id: 10, parent: 'eth2', ip: '10.10.0.1/24', zone: 'trust' }));
  await ok(client.post('/api/addresses', { name: 'lan', ips: ['10.1.2.3/16', '192.168.1.7'] }));
  await ok(client.post('/api/addresses', { name: 'web', ips: ['2001:db8::10'] }));
  await ok(client.post('/api/services', { name: 'alt', protocol: 'tcp', ports: [8443, '8000-8080'] }));
  await ok(client.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
  await ok(client.post('/api/dhcp', { interface: 'eth1', start_ip: '192.168.1.100', end_ip: '192.168.1.200', dns: ['192.168.1.1'] }));
  await ok(client.post('/api/routes', { destination: 'default', gateway: '203.0.113.1' }));
  await ok(client.post('/api/policies', { action: 'allow', 'src-zone': 'trust', 'dst-zone': 'untrust', 'src-addr': 'lan', services: ['https', 'alt'], log: true }));
  await ok(client.post('/api/policies', { action: 'deny' }));
  await ok(client.post('/api/policies/2/move', { position: 'top' }));
  await ok(client.post('/api/nat', { type: 'snat', 'src-zone': 'trust', 'out-interface': 'eth0' }));
  await ok(client.post('/api/nat', { type: 'dnat-port', 'dst-addr': 'web', service: 'https', 'translated-ip': '192.168.1.7', 'translated-port': '8443' }));
  await client.commit();
}

beforeAll(async () => {
  await seed(c);
});

afterEach(async () => {
  await c.post('/api/config/discard?force=true');
});

const changes = async (client = c) => (await client.get('/api/config/session')).body.changes as number;

test('export: the whole running configuration in the create payloads\' spellings, rules in evaluation order', async () => {
  const r = await ok(c.get('/api/config/export'));
  const x = r.body;
  expect(x.format).toBe('fwd-config/1');
  expect(x.version).toBe(1);
  expect(Object.keys(x)).toEqual(['format', 'version', 'interfaces', 'zones', 'addresses', 'services', 'vlans', 'dhcp', 'routes', 'policies', 'nat']);
  expect(x.interfaces.map((i: { name: string }) => i.name)).toEqual(['eth0', 'eth1', 'eth2', 'eth3']);
  expect(x.interfaces[1]).toEqual({ name: 'eth1', ip: '192.168.1.1/24', management: ['ssh', 'https'], state: 'up', zone: 'trust' });
  expect(x.zones).toEqual([
    { name: 'trust', type: 'l3', color: 'green', networks: ['192.168.1.0/24'] },
    { name: 'untrust', type: 'l3', color: '', networks: [] },
  ]);
  expect(x.addresses).toEqual([{ name: 'lan', ips: ['10.1.0.0/16', '192.168.1.7/32'] }, { name: 'web', ips: ['2001:db8::10/128'] }]);
  expect(x.services).toEqual([{ name: 'alt', protocol: 'tcp', ports: [8443, '8000-8080'] }, { name: 'https', protocol: 'tcp', ports: [443] }]);
  expect(x.vlans).toEqual([{ name: 'vl10', id: 10, parent: 'eth2', ip: '10.10.0.1/24', zone: 'trust', state: 'up', management: [] }]);
  expect(x.dhcp).toEqual([{ interface: 'eth1', start_ip: '192.168.1.100', end_ip: '192.168.1.200', gateway: '', dns: ['192.168.1.1'], lease_time: 1440 }]);
  expect(x.routes).toEqual([{ id: 1, description: '', destination: '0.0.0.0/0', gateway: '203.0.113.1', interface: '', metric: 0 }]);
  expect(x.policies).toEqual([
    { id: 2, action: 'deny', 'src-zone': 'any', 'dst-zone': 'any', 'src-addr': 'any', 'dst-addr': 'any', services: ['any'], log: false },
    { id: 1, action: 'allow', 'src-zone': 'trust', 'dst-zone': 'untrust', 'src-addr': 'lan', 'dst-addr': 'any', services: ['https', 'alt'], log: true },
  ]);
  expect(x.nat[1]).toEqual({
    id: 2, description: '', type: 'dnat-port', 'src-zone': 'any', 'dst-zone': 'any', 'src-addr': 'any', 'dst-addr': 'web',
    service: 'https', 'translated-ip': '192.168.1.7', 'translated-port': '8443', 'out-interface': '',
  });
});

test('export as YAML (?format=yaml or Accept) is the same document; a bad format is 400 ERR_NET_1005', async () => {
  const json = (await ok(c.get('/api/config/export'))).body;
  const byQuery = await c.get('/api/config/export?format=yaml');
  expect(byQuery.status).toBe(200);
  expect(byQuery.headers.get('content-type')).toMatch(/^application\/yaml/);
  expect(YAML.parse(byQuery.text)).toEqual(json);
  const byAccept = await c.raw('GET', '/api/config/export', undefined, { Accept: 'application/yaml' });
  expect(byAccept.headers.get('content-type')).toMatch(/^application\/yaml/);
  expect(YAML.parse(byAccept.text)).toEqual(json);
  const jsonFirst = await c.raw('GET', '/api/config/export', undefined, { Accept: 'application/json, application/yaml' });
  expect(jsonFirst.body).toEqual(json);
  expectError(await c.get('/api/config/export?format=xml'), 400, 'ERR_NET_1005');
});

test('export of the candidate needs a session and shows its changes, labelled with the base version', async () => {
  expectError(await c.get('/api/config/export?config=candidate'), 409, 'ERR_SYS_3001');
  await c.begin();
  await ok(c.post('/api/addresses', { name: 'extra', ips: ['10.9.0.0/16'] }));
  const x = (await ok(c.get('/api/config/export?config=candidate'))).body;
  expect(x.version).toBe(1);
  expect(x.addresses.map((a: { name: string }) => a.name)).toEqual(['extra', 'lan', 'web']);
  expect((await ok(c.get('/api/config/export'))).body.addresses).toHaveLength(2);
});

test('round trip: export, load with replace, the diff is empty; one change of the session', async () => {
  const exported = (await ok(c.get('/api/config/export'))).body;
  await c.begin();
  const r = await ok(c.put('/api/config/candidate', exported));
  expect(r.body).toEqual({ base_version: 1, ...EMPTY_DIFF });
  expect(await changes()).toBe(1);
  expect((await ok(c.get('/api/config/diff'))).body).toEqual({ base_version: 1, ...EMPTY_DIFF });
  // the same as YAML
  const yaml = await c.raw('PUT', '/api/config/candidate', YAML.stringify(exported), { 'Content-Type': 'application/yaml' });
  expect(yaml.body).toEqual({ base_version: 1, ...EMPTY_DIFF });
});

test('replace: the candidate becomes the document; rules keep their ids, new ones get fresh ids', async () => {
  const x = (await ok(c.get('/api/config/export'))).body;
  x.addresses = x.addresses.filter((a: { name: string }) => a.name !== 'web');
  x.nat = x.nat.filter((n: { 'dst-addr': string }) => n['dst-addr'] !== 'web');
  x.dhcp = [];
  x.interfaces = x.interfaces.filter((i: { name: string }) => i.name !== 'eth1'); // reset to defaults
  x.zones[0].networks = ['192.168.0.0/16'];
  x.policies = [x.policies[1], { action: 'allow', 'src-addr': 'lan' }, x.policies[0]];
  await c.begin();
  const r = await ok(c.put('/api/config/candidate?mode=replace', x));
  expect(r.body.deleted).toEqual(expect.arrayContaining([{ kind: 'address', key: 'web' }, { kind: 'dhcp', key: 'eth1' }, { kind: 'nat', key: '2' }]));
  expect(r.body.changed).toEqual(expect.arrayContaining([{ kind: 'zone', key: 'trust' }, { kind: 'interface', key: 'eth1' }]));
  expect(r.body.added).toEqual([{ kind: 'policy', key: '3' }]);
  expect(r.body.reordered).toEqual(['policies']);
  const policies = (await ok(c.get('/api/policies?config=candidate'))).body;
  expect(policies.map((p: { id: number }) => p.id)).toEqual([1, 3, 2]);
  expect((await ok(c.get('/api/interfaces/eth1?config=candidate'))).body).toEqual({ name: 'eth1', ip: '', management: [], state: 'up', zone: '' });
  // a later create gets the next id after every one the load used
  expect((await ok(c.post('/api/policies', { action: 'deny' }))).body.id).toBe('4');
});

test('merge: adds and updates, deletes nothing; a rule whose id exists is updated in place', async () => {
  await c.begin();
  const r = await ok(c.put('/api/config/candidate?mode=merge', {
    addresses: [{ name: 'lan', ips: ['10.2.0.0/16'] }, { name: 'dmz', ips: ['172.16.0.0/12'] }],
    policies: [{ id: 1, log: false, 'dst-addr': 'dmz' }, { action: 'deny', 'src-addr': 'dmz' }],
  }));
  expect(r.body.added).toEqual([{ kind: 'address', key: 'dmz' }, { kind: 'policy', key: '3' }]);
  expect(r.body.changed).toEqual([{ kind: 'address', key: 'lan' }, { kind: 'policy', key: '1' }]);
  expect(r.body.deleted).toEqual([]);
  const p1 = (await ok(c.get('/api/policies/1?config=candidate'))).body;
  expect({ log: p1.log, dst: p1.dstAddr.name, src: p1.srcAddr.name, action: p1.action }).toEqual({ log: false, dst: 'dmz', src: 'lan', action: 'allow' });
  expect((await ok(c.get('/api/policies?config=candidate'))).body.map((p: { id: number }) => p.id)).toEqual([2, 1, 3]);
  expect(await changes()).toBe(1);
});

test('a bad document: every problem with its place, nothing changes', async () => {
  await c.begin();
  await ok(c.post('/api/addresses', { name: 'kept', ips: ['10.0.0.0/8'] }));
  const before = (await ok(c.get('/api/config/export?config=candidate'))).body;
  const r = expectError(await c.put('/api/config/candidate', {
    format: 'fwd-config/1',
    addresses: [{ name: 'a', ips: ['10.0.0.300/8'] }, { name: 'a', ips: ['10.0.0.0/8'] }],
    policies: [{ id: 7, action: 'allow' }, { id: 7, action: 'deny' }, { action: 'allow', 'dst-addr': 'nope' }, { action: 'maybe' }],
    extra: [],
  }), 400, 'ERR_NET_1004');
  expect(r.body.details.split('\n')).toEqual([
    'unknown field "extra"',
    'addresses[0].ips[0]: "10.0.0.300/8" is not an IPv4 or IPv6 network',
    'addresses[1].name: "a" appears twice in the document',
    'policies[1].id: 7 appears twice in the document',
    'policies[2].dst-addr: address "nope" does not exist',
    'policies[3].action: "maybe" is not one of allow, deny',
  ]);
  expect((await ok(c.get('/api/config/export?config=candidate'))).body).toEqual(before);
  expect(await changes()).toBe(1);
  // one kind of problem: its own code
  const one = expectError(await c.put('/api/config/candidate?mode=merge', { policies: [{ action: 'allow', 'dst-addr': 'web' }, { action: 'allow', 'dst-addr': 'gone' }] }), 400, 'ERR_NET_2003');
  expect(one.body.details).toBe('policies[1].dst-addr: address "gone" does not exist');
});

test('every unknown reference of one object, each with its path, in a load and in a plan (issue 43 item 4)', async () => {
  await c.begin();
  const doc = { policies: [{ action: 'allow', 'src-addr': 'nope', services: ['svc-a', 'svc-b'] }] };
  const expected = [
    'policies[0].src-addr: address "nope" does not exist',
    'policies[0].services[0]: service "svc-a" does not exist',
    'policies[0].services[1]: service "svc-b" does not exist',
  ];
  const load = expectError(await c.put('/api/config/candidate?mode=merge', doc), 400, 'ERR_NET_2003');
  expect(load.body.details.split('\n')).toEqual(expected);
  const plan = expectError(await c.post('/api/config/plan?mode=merge', doc), 400, 'ERR_NET_2003');
  expect(plan.body.details.split('\n')).toEqual(expected);
  // a single-object request still answers its first problem
  const one = expectError(await c.post('/api/policies', doc.policies[0]), 400, 'ERR_NET_2003');
  expect(one.body.details).toMatch(/^field "[^"\n]+": [^\n]+ does not exist$/);
});

test('a bad request: mode, media type, YAML, shape and format', async () => {
  await c.begin();
  expectError(await c.put('/api/config/candidate?mode=sync', {}), 400, 'ERR_NET_1005');
  // JSON or YAML only (issue 25: a cross-site page may send text/plain or a form without asking)
  expectError(await c.raw('PUT', '/api/config/candidate', 'a=1', { 'Content-Type': 'text/plain' }), 415, 'ERR_NET_1014');
  expectError(await c.raw('PUT', '/api/config/candidate?mode=merge', '{"addresses":[]}', { 'Content-Type': 'application/x-www-form-urlencoded' }), 415, 'ERR_NET_1014');
  expect((await c.raw('PUT', '/api/config/candidate?mode=merge', '{"addresses":[]}')).status).toBe(200);
  expect(expectError(await c.raw('PUT', '/api/config/candidate', 'a=1'), 400, 'ERR_NET_1004').body.details).toMatch(/^malformed JSON/);
  const yaml = expectError(await c.raw('PUT', '/api/config/candidate', 'addresses: [\n', { 'Content-Type': 'application/yaml' }), 400, 'ERR_NET_1004');
  expect(yaml.body.details).toMatch(/^malformed YAML/);
  expectError(await c.raw('PUT', '/api/config/candidate', '{', {}), 400, 'ERR_NET_1004');
  expectError(await c.raw('PUT', '/api/config/candidate', '', {}), 400, 'ERR_NET_1004');
  expect(expectError(await c.put('/api/config/candidate', []), 400, 'ERR_NET_1004').body.details).toBe('the document must be an object');
  expect(expectError(await c.put('/api/config/candidate', { format: 'other/2' }), 400, 'ERR_NET_1004').body.details).toMatch(/^format:/);
  expect(expectError(await c.put('/api/config/candidate', { zones: [{ name: 'z', type: 'l3', interfaces: ['eth0'] }] }), 400, 'ERR_NET_1004').body.details)
    .toMatch(/^zones\[0\]\.interfaces: /);
  expect(expectError(await c.put('/api/config/candidate', { interfaces: [{ name: 'eth9' }] }), 404, 'ERR_NET_1003').body.details)
    .toBe('interfaces[0]: interface "eth9" not found');
  expect(await changes()).toBe(1);
});

test('load and batch need the caller\'s session', async () => {
  expectError(await c.put('/api/config/candidate', { addresses: [] }), 409, 'ERR_SYS_3001');
  expectError(await c.post('/api/config/batch', { operations: [{ method: 'DELETE', path: '/api/addresses/lan' }] }), 409, 'ERR_SYS_3001');
});

test('batch: the single requests in order, moves included, as one change; each result with its message and id', async () => {
  await c.begin();
  const r = await ok(c.post('/api/config/batch', { operations: [
    { method: 'POST', path: '/api/addresses', body: { name: 'b1', ips: ['10.50.0.0/16'] } },
    { method: 'POST', path: '/api/policies', body: { action: 'allow', 'src-addr': 'b1' } },
    { method: 'POST', path: '/api/policies/3/move', body: { position: 'top' } },
    { method: 'PUT', path: '/api/addresses/b1', body: { ips: ['10.51.0.0/16'] } },
    { method: 'PUT', path: '/api/interfaces/eth3', body: { management: ['ping'] } },
    { method: 'DELETE', path: '/api/nat/2' },
    { method: 'POST', path: '/api/routes', body: { destination: '10.99.0.0/16', interface: 'eth3' } },
  ] }));
  expect(r.body).toEqual({ message: 'batch applied to candidate', results: [
    { message: 'address created in candidate' },
    { message: 'policy created in candidate', id: '3' },
    { message: 'policy moved successfully' },
    { message: 'address updated in candidate' },
    { message: 'interface updated in candidate' },
    { message: 'NAT rule deleted in candidate' },
    { message: 'route created in candidate', id: '2' },
  ] });
  expect(await changes()).toBe(1);
  expect((await ok(c.get('/api/policies?config=candidate'))).body.map((p: { id: number }) => p.id)).toEqual([3, 2, 1]);
  expect((await ok(c.get('/api/addresses/b1?config=candidate'))).body.ips).toEqual([{ ip: [10, 51, 0, 0], mask: [255, 255, 0, 0] }]);
});

test('batch: a failing operation answers its own status and code, placed, and nothing changes', async () => {
  await c.begin();
  const before = (await ok(c.get('/api/config/export?config=candidate'))).body;
  const send = (operations: unknown[]) => c.post('/api/config/batch', { operations });
  const create = { method: 'POST', path: '/api/addresses', body: { name: 'x1', ips: ['10.60.0.0/16'] } };
  const cases: Array<[unknown[], number, string, string]> = [
    [[create, create], 409, 'ERR_NET_2006', 'operations[1]: address "x1" already exists'],
    [[create, { method: 'DELETE', path: '/api/addresses/lan' }], 409, 'ERR_NET_2007', 'operations[1]: address "lan" is used by policy 1'],
    [[create, create, create, { method: 'POST', path: '/api/policies/99/move', body: { position: 'top' } }], 409, 'ERR_NET_2006', 'operations[1]: address "x1" already exists'],
    [[create, { method: 'POST', path: '/api/policies/99/move', body: { position: 'top' } }], 404, 'ERR_NET_1003', 'operations[1]: policy "99" not found'],
    [[create, { method: 'POST', path: '/api/zones', body: { name: 'z', type: 'l4' } }], 400, 'ERR_NET_1005', 'operations[1]: field "type": "l4" is not one of l2, l3'],
    [[create, { method: 'POST', path: '/api/nowhere', body: {} }], 404, 'ERR_NET_1011', 'operations[1]: POST /api/nowhere is not a change of one object'],
    [[{ method: 'POST', path: '/api/config/commit' }], 404, 'ERR_NET_1011', 'operations[0]: POST /api/config/commit is not a change of one object'],
    [[create, { method: 'DELETE', path: '/api/interfaces/eth0' }], 405, 'ERR_NET_1009', 'operations[1]: DELETE is not allowed on /api/interfaces/eth0'],
    [[{ method: 'PUT', path: '/api/policies/abc', body: {} }], 400, 'ERR_NET_1002', 'operations[0]: "abc" is not a valid id'],
    [[{ method: 'DELETE', path: '/api/addresses?x=1' }], 400, 'ERR_NET_1004', 'operations[0]: "/api/addresses?x=1": an operation\'s path has no query'],
  ];
  for (const [ops, status, code, details] of cases) {
    const r = expectError(await send(ops), status, code);
    expect(r.body.details).toBe(details);
  }
  expectError(await send([]), 400, 'ERR_NET_1004');
  expectError(await send([{ method: 'GET', path: '/api/addresses' }]), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/config/batch', { operations: [create], more: 1 }), 400, 'ERR_NET_1004');
  const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ method: 'DELETE', path: `/api/addresses/n${i}` }));
  expectError(await send(tooMany), 400, 'ERR_NET_1004');
  expect((await ok(c.get('/api/config/export?config=candidate'))).body).toEqual(before);
  expect(await changes()).toBe(0);
});

test('a batch of 10,000 creations is one request and one change', async () => {
  await c.begin();
  const operations = Array.from({ length: 10_000 }, (_, i) => ({
    method: 'POST', path: '/api/addresses', body: { name: `bulk${i}`, ips: [`10.${100 + (i >> 8)}.${i & 255}.0/24`] },
  }));
  const r = await ok(c.post('/api/config/batch', { operations }));
  expect(r.body.results).toHaveLength(10_000);
  expect(Object.keys((await ok(c.get('/api/addresses?config=candidate'))).body)).toHaveLength(10_002);
  expect(await changes()).toBe(1);
});

test('a load and a batch are journal entries: a restarted daemon rebuilds the same candidate, and commits it', async () => {
  const dir = tempDir();
  let daemon = await startTestDaemon({}, dir);
  try {
    const a = await new Client(daemon.url).login();
    await seed(a);
    const x = (await ok(a.get('/api/config/export'))).body;
    x.policies.push({ action: 'deny', 'src-addr': 'web' });
    await a.begin();
    await ok(a.put('/api/config/candidate', x));
    await ok(a.post('/api/config/batch', { operations: [{ method: 'POST', path: '/api/services', body: { name: 'dns', protocol: 'udp', ports: [53] } }] }));
    const candidate = (await ok(a.get('/api/config/export?config=candidate'))).body;
    // on Redis, the restarted server finds its data in the same folder
    await daemon.close();
    daemon = await startTestDaemon({}, dir);
    const b = await new Client(daemon.url).login();
    expect((await ok(b.get('/api/config/export?config=candidate'))).body).toEqual(candidate);
    expect(await changes(b)).toBe(2);
    expectMessage(await b.post('/api/config/commit'), 'commit successful');
    expect((await ok(b.get('/api/config/export'))).body).toEqual({ ...candidate, version: 2 });
  } finally {
    await daemon.close();
  }
});
