// Source ports of services over HTTP (issue 27, part 4): `source-ports` on tcp, udp and sctp
// services, with the checks of `ports` and the contract's codes; the read model, export and
// load, the rule-level diff; POST /api/eval and the batch equal to the reference evaluator
// (a policy of services with and without source ports, packets with and without src-port); the
// analysis (a cover by source ports, a partial shadow whose example carries its src-port,
// replayed on /api/eval); the nft rendering of policies and NAT.
import { expectError, ok, refusal, useDaemon } from '../helpers/daemon';
import { deepResult, expectEvalCases } from '../helpers/eval-checks';
import { lanWan } from '../helpers/lan-wan';

const c = useDaemon().client;
const svc = async (name: string) => (await ok(c.get(`/api/services/${name}?config=candidate`))).body;
const V4 = { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8' };

beforeAll(async () => {
  await c.begin();
  await lanWan(c);
});

test('create and edit: stored like ports; refusals name the field; nothing created', async () => {
  await ok(c.post('/api/services', { name: 'dns-53', protocol: 'udp', ports: [53], 'source-ports': ['53'] }));
  await ok(c.post('/api/services', { name: 'dns', protocol: 'udp', ports: [53] }));
  await ok(c.post('/api/services', { name: 'ssh-hi', protocol: 'tcp', ports: [22], 'source-ports': ['1024-65535', 22] }));
  await ok(c.post('/api/services', { name: 'sctp-src', protocol: 'sctp', ports: [36412], 'source-ports': [36412] }));
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443], 'source-ports': [] }));
  expect(await svc('dns-53')).toEqual({ name: 'dns-53', protocol: 'udp', ports: [53], sourcePorts: [53] });
  expect(await svc('ssh-hi')).toEqual({ name: 'ssh-hi', protocol: 'tcp', ports: [22], sourcePorts: ['1024-65535', 22] });
  expect(await svc('sctp-src')).toEqual({ name: 'sctp-src', protocol: 'sctp', ports: [36412], sourcePorts: [36412] });
  // [] is every source port: the field is not stored, the seed's read model is unchanged
  expect(await svc('https')).toEqual({ name: 'https', protocol: 'tcp', ports: [443] });

  const bad = refusal((body: Record<string, unknown>) => c.post('/api/services', { name: 'x', ...body }));
  await bad({ protocol: 'icmp', 'source-ports': [1] }, 400, 'ERR_NET_1006', /field "source-ports"/);
  await bad({ protocol: 'gre', 'source-ports': [1] }, 400, 'ERR_NET_1006', /field "source-ports"/);
  await bad({ protocol: 'tcp', ports: [1], 'source-ports': [0] }, 400, 'ERR_NET_1008', /field "source-ports\[0\]"/);
  await bad({ protocol: 'tcp', ports: [1], 'source-ports': ['5-3'] }, 400, 'ERR_NET_1008', /field "source-ports\[0\]"/);
  await bad({ protocol: 'tcp', ports: [1], 'source-ports': [1, '70000'] }, 400, 'ERR_NET_1008', /field "source-ports\[1\]"/);
  await bad({ protocol: 'tcp', ports: [1], 'source-ports': [80, '70-90'] }, 400, 'ERR_NET_1008', /field "source-ports": 70-90 and 80 overlap/);
  await bad({ protocol: 'tcp', ports: [1], 'source-ports': [true] }, 400, 'ERR_NET_1004', /source-ports/);
  await bad({ protocol: 'tcp', ports: [1], 'source-ports': 53 }, 400, 'ERR_NET_1004', /source-ports/);
  expectError(await c.get('/api/services/x?config=candidate'), 404, 'ERR_NET_1003');

  // a PUT keeps the source ports it does not name, [] removes them, a bad one changes nothing
  await ok(c.put('/api/services/ssh-hi', { ports: [2222] }));
  expect(await svc('ssh-hi')).toEqual({ name: 'ssh-hi', protocol: 'tcp', ports: [2222], sourcePorts: ['1024-65535', 22] });
  await ok(c.put('/api/services/ssh-hi', { protocol: 'udp' }));
  expect((await svc('ssh-hi')).sourcePorts).toEqual(['1024-65535', 22]);
  expectError(await c.put('/api/services/ssh-hi', { 'source-ports': ['x'] }), 400, 'ERR_NET_1008');
  expectError(await c.put('/api/services/dns', { protocol: 'icmp', ports: [], 'source-ports': [1] }), 400, 'ERR_NET_1006');
  expect((await svc('ssh-hi')).sourcePorts).toEqual(['1024-65535', 22]);
  await ok(c.put('/api/services/ssh-hi', { 'source-ports': [] }));
  expect(await svc('ssh-hi')).toEqual({ name: 'ssh-hi', protocol: 'udp', ports: [2222] });
  await ok(c.put('/api/services/ssh-hi', { protocol: 'tcp', ports: [22], 'source-ports': ['1024-65535'] }));
});

test('eval and batch: a service with source ports takes only their packets, as the reference says', async () => {
  // 1 allows dns from source port 53 and ssh from high ports; 2 denies dns from anywhere
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['dns-53', 'ssh-hi', 'sctp-src'] }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['dns', 'https'], log: true }));
  await ok(c.post('/api/config/commit'));
  const cases: Array<[Record<string, unknown>, number | null]> = [
    [{ ...V4, protocol: 'udp', 'dst-port': 53, 'src-port': 53 }, 1],
    [{ ...V4, protocol: 'udp', 'dst-port': 53, 'src-port': 54 }, 2],
    [{ ...V4, protocol: 'udp', 'dst-port': 53 }, 2], // no src-port: source port 0, which no service names
    [{ ...V4, protocol: 'tcp', 'dst-port': 22, 'src-port': 40000 }, 1],
    [{ ...V4, protocol: 'tcp', 'dst-port': 22, 'src-port': 1023 }, null],
    [{ ...V4, protocol: 'tcp', 'dst-port': 443, 'src-port': 1023 }, 2],
    [{ ...V4, protocol: 'sctp', 'dst-port': 36412, 'src-port': 36412 }, 1],
    [{ ...V4, protocol: 'sctp', 'dst-port': 36412, 'src-port': 36413 }, null],
    [{ 'src-ip': '2001:db8::5', 'dst-ip': '2001:db8:1::1', 'src-zone': 'lan', 'dst-zone': 'wan', protocol: 'udp', 'dst-port': 53, 'src-port': 53 }, 1],
  ];
  await expectEvalCases(c, cases);
  expectError(await c.post('/api/eval', { ...V4, protocol: 'udp', 'dst-port': 53, 'src-port': 65536 }), 400, 'ERR_NET_1004');
  await c.begin();
});

test('analysis: covers and shadows by source ports', async () => {
  await ok(c.post('/api/services', { name: 'dns-lo', protocol: 'udp', ports: [53], 'source-ports': ['1-1023'] }));
  await ok(c.post('/api/services', { name: 'dns-hi', protocol: 'udp', ports: [53], 'source-ports': ['1024-65535'] }));
  await ok(c.post('/api/services', { name: 'dns-any', protocol: 'udp', ports: [53], 'source-ports': ['1-65535'] }));
  await ok(c.put('/api/policies/2', { services: ['https'] })); // 2 no longer denies dns
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['dns-lo'] })); // 3
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['dns-hi'] })); // 4
  // 5: 3 and 4 take all of it between them, one of them denying: shadowed by both (1, dns from
  // source port 53, lies inside 3 and is not needed)
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['dns-any'] }));
  // 6: dns from source ports 1-1023 only: 3 alone covers it, so it is redundant, not shadowed
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['dns-lo'] }));
  // 7: dns from every source port, 0 included (a packet without src-port): not covered,
  // partly shadowed by 4
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['dns'] }));
  const r = await c.post('/api/config/commit');
  expect(r.status).toBe(200);
  expect(r.body.warnings).toMatch(/policy 5 is shadowed by policies 3, 4/);
  expect(r.body.warnings).toMatch(/policy 6 is redundant: covered by policy 3/);
  const a = (await deepResult(c, (await ok(c.get('/api/analysis'))).body.version)).body;
  expect(a.shadowed).toEqual([{ id: 5, coveredBy: [3, 4] }]);
  expect(a.redundant).toEqual([{ id: 6, coveredBy: [3] }]);
  expect(a.partiallyShadowed).toEqual([{ id: 7, by: 4, example: expect.any(Object) }]);
  const example = a.partiallyShadowed[0].example;
  expect(example).toMatchObject({ protocol: 'udp', 'dst-port': 53, 'src-zone': 'lan', 'dst-zone': 'wan' });
  expect(example['src-port']).toBeGreaterThanOrEqual(1024);
  const e = (await ok(c.post('/api/eval', example))).body;
  expect(e).toMatchObject({ action: 'deny', reason: 'policy', policy: { id: 4 } });
  await c.begin();
});

test('export and load keep source ports; diff names the change; the data plane renders them', async () => {
  const x = (await ok(c.get('/api/config/export'))).body;
  expect(x.services.find((s: { name: string }) => s.name === 'dns-53')).toEqual({ name: 'dns-53', protocol: 'udp', ports: [53], 'source-ports': [53] });
  expect(x.services.find((s: { name: string }) => s.name === 'dns')).toEqual({ name: 'dns', protocol: 'udp', ports: [53] });
  await ok(c.put('/api/config/candidate', x));
  expect((await ok(c.get('/api/config/diff'))).body).toMatchObject({ added: [], changed: [], deleted: [] });
  // a load is checked like a create: the problem is placed in the document
  const broken = { ...x, services: [...x.services, { name: 'ping-from', protocol: 'icmp', ports: [], 'source-ports': [53] }] };
  const l = expectError(await c.put('/api/config/candidate', broken), 400, 'ERR_NET_1006');
  expect(l.body.details).toMatch(/services\[\d+\]\.source-ports: /);
  await ok(c.put('/api/services/dns-53', { 'source-ports': [53, 5353] }));
  const d = (await ok(c.get('/api/config/diff?detail=true'))).body;
  expect(d.changed).toEqual([{ kind: 'service', key: 'dns-53', fields: [{ field: 'source-ports', old: [53], new: [53, 5353] }] }]);
  await ok(c.post('/api/nat', { type: 'dnat-port', 'src-zone': 'wan', 'dst-addr': 'any', service: 'dns-53', 'translated-ip': '10.0.0.53', 'translated-port': '53' }));
  const nft: string = (await ok(c.get('/api/dataplane/render?config=candidate'))).body.nft;
  expect(nft).toMatch(/set sports_[0-9a-f]+ \{ type inet_service; flags interval; elements = \{ 53, 5353 \} \}/);
  expect(nft).toMatch(/meta l4proto udp ct original proto-dst 53 ct original proto-src @sports_[0-9a-f]+ counter name "policy_\d+"/);
  expect(nft).toMatch(/meta l4proto tcp ct original proto-dst 22 ct original proto-src 1024-65535 counter/);
  expect(nft).toMatch(/meta l4proto udp th dport 53 th sport @sports_[0-9a-f]+ .*dnat/);
  // a service without source ports renders as before
  expect(nft).toMatch(/meta l4proto udp ct original proto-dst 53 (log prefix "fwd policy \d+: " )?counter/);
  await ok(c.post('/api/config/discard'));
});
