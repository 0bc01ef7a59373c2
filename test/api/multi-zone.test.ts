// Several zones per rule over HTTP (issue 41 item 2): policies, local policies and NAT rules
// whose `src-zone` / `dst-zone` are a list of zones. Create, edit, read (a one-zone rule's
// read model unchanged; several zones read as the list of their models), export and load,
// refusals with the contract's codes (unknown zone in a list, empty list, a zone twice, "any"
// in a list) that change nothing, references that block a zone's delete, POST /api/eval and
// the batch for packets from each zone (equal to the reference evaluator), and the analysis
// over lists (a rule over {lan, dmz} covers one over lan; one over {lan, guest} is not covered);
// fwctl's export, plan and apply of a document with a list.
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, ADMIN_PASSWORD, expectError, expectMessage, ok, tempDir, useDaemon } from '../helpers/daemon';
import { expectEvalCases } from '../helpers/eval-checks';
import { fwctl } from '../helpers/fwctl';
import { lanWan } from '../helpers/lan-wan';

const d = useDaemon();
const c = d.client;
const pkt = (src: string, dst: string, port = 80) => ({ 'src-ip': src, 'dst-ip': dst, protocol: 'tcp', 'dst-port': port });
const names = (z: unknown) => (Array.isArray(z) ? z.map((x: { name: string }) => x.name) : z === null ? null : (z as { name: string }).name);

beforeAll(async () => {
  await c.begin();
  await lanWan(c); // eth0 203.0.113.2/24 wan (default route), eth1 10.0.0.1/24 lan
  await ok(c.put('/api/interfaces/eth2', { ip: '10.2.0.1/24' }));
  await ok(c.put('/api/interfaces/eth3', { ip: '10.3.0.1/24' }));
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['eth2'] }));
  await ok(c.post('/api/zones', { name: 'guest', type: 'l3', interfaces: ['eth3'] }));
  await ok(c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80] }));
  await ok(c.post('/api/services', { name: 'dns', protocol: 'udp', ports: [53] }));
});

test('create and read: a list of zones reads as the list of their models, one zone as before', async () => {
  expectMessage(await c.post('/api/policies', { action: 'allow', 'src-zone': ['lan', 'dmz'], 'dst-zone': 'wan', services: ['web'] }), 'policy created in candidate');
  // a list of one zone is that zone: stored, read and exported as the name
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': ['guest'], 'dst-zone': 'wan', services: ['dns'] }));
  const p1 = (await ok(c.get('/api/policies/1?config=candidate'))).body;
  expect(Array.isArray(p1.srcZone)).toBe(true);
  expect(p1.srcZone).toEqual([expect.objectContaining({ name: 'lan', type: 'l3' }), expect.objectContaining({ name: 'dmz', type: 'l3' })]);
  expect(p1.dstZone).toEqual(expect.objectContaining({ name: 'wan' }));
  const p2 = (await ok(c.get('/api/policies/2?config=candidate'))).body;
  expect(p2.srcZone).toEqual(expect.objectContaining({ name: 'guest' }));
  expect(Array.isArray(p2.srcZone)).toBe(false);
  // the same zone model in a list as alone
  const guest = (await ok(c.get('/api/zones/guest?config=candidate'))).body;
  expect(p2.srcZone).toEqual(guest);
  // NAT and local policies take lists too
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': ['lan', 'dmz'], 'dst-zone': ['wan'], 'out-interface': 'eth0' }));
  const n1 = (await ok(c.get('/api/nat/1?config=candidate'))).body;
  expect([names(n1.srcZone), names(n1.dstZone)]).toEqual([['lan', 'dmz'], 'wan']);
  await ok(c.post('/api/local-policies', { action: 'allow', 'src-zone': ['lan', 'guest'], services: ['dns'] }));
  expect(names((await ok(c.get('/api/local-policies/1?config=candidate'))).body.srcZone)).toEqual(['lan', 'guest']);
});

test('refusals with the contract codes change nothing', async () => {
  const before = (await ok(c.get('/api/policies?config=candidate'))).body;
  const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
    [{ action: 'allow', 'src-zone': ['lan', 'nope'] }, 400, 'ERR_NET_2003', /src-zone\[1\].*nope/],
    [{ action: 'allow', 'dst-zone': [] }, 400, 'ERR_NET_1004', /dst-zone.*empty/],
    [{ action: 'allow', 'src-zone': ['lan', 'dmz', 'lan'] }, 400, 'ERR_NET_1004', /src-zone.*twice/],
    [{ action: 'allow', 'src-zone': ['lan', 'any'] }, 400, 'ERR_NET_1004', /src-zone\[1\].*any/],
    [{ action: 'allow', 'src-zone': ['lan', ''] }, 400, 'ERR_NET_1004', /src-zone\[1\]/],
    [{ action: 'allow', 'src-zone': ['lan', 7] }, 400, 'ERR_NET_1004', /src-zone/],
    [{ action: 'allow', 'src-zone': { name: 'lan' } }, 400, 'ERR_NET_1004', /src-zone/],
  ];
  for (const [body, status, code, details] of cases) {
    const e = expectError(await c.post('/api/policies', body), status, code);
    expect(e.body.details).toMatch(details);
    // an edit is refused alike
    expectError(await c.put('/api/policies/1', body), status, code);
  }
  expectError(await c.post('/api/nat', { type: 'snat', 'dst-zone': ['wan', 'nope'] }), 400, 'ERR_NET_2003');
  expectError(await c.post('/api/local-policies', { action: 'allow', 'src-zone': [] }), 400, 'ERR_NET_1004');
  expect((await ok(c.get('/api/policies?config=candidate'))).body).toEqual(before);
  // every zone of a list is a reference: none can be deleted
  for (const zone of ['lan', 'dmz']) {
    const e = expectError(await c.del(`/api/zones/${zone}`), 409, 'ERR_NET_2007');
    expect(e.body.details).toMatch(/policy 1/);
    expect(e.body.details).toMatch(/nat 1/);
  }
});

test('edit: a list replaces one zone and back; fields not named keep their lists', async () => {
  await ok(c.put('/api/policies/2', { 'src-zone': ['guest', 'dmz'] }));
  expect(names((await ok(c.get('/api/policies/2?config=candidate'))).body.srcZone)).toEqual(['guest', 'dmz']);
  await ok(c.put('/api/policies/2', { log: true }));
  expect(names((await ok(c.get('/api/policies/2?config=candidate'))).body.srcZone)).toEqual(['guest', 'dmz']);
  await ok(c.put('/api/policies/2', { 'src-zone': 'guest' }));
  expect(names((await ok(c.get('/api/policies/2?config=candidate'))).body.srcZone)).toEqual('guest');
  await ok(c.put('/api/policies/2', { 'src-zone': 'any', log: false }));
  expect((await ok(c.get('/api/policies/2?config=candidate'))).body.srcZone).toBeNull();
  await ok(c.put('/api/policies/2', { 'src-zone': ['guest'] }));
  await ok(c.post('/api/config/commit'));
});

test('eval: packets from each zone of a list match it, from another zone not; single and batch equal the reference', async () => {
  await expectEvalCases(c, [
    [pkt('10.0.0.5', '198.51.100.7'), 1], // lan -> wan
    [pkt('10.2.0.5', '198.51.100.7'), 1], // dmz -> wan
    [pkt('10.3.0.5', '198.51.100.7'), null], // guest -> wan: only dns
    [pkt('10.0.0.5', '10.2.0.5'), null], // lan -> dmz: dst-zone wan only
    [{ ...pkt('10.3.0.5', '198.51.100.7', 53), protocol: 'udp' }, 2],
    // a pinned zone: from dmz by the zone named, whatever the address
    [{ ...pkt('198.51.100.9', '198.51.100.7'), 'src-zone': 'dmz' }, 1],
    [{ ...pkt('198.51.100.9', '198.51.100.7'), 'src-zone': 'guest' }, null],
  ]);
  // the snat over [lan, dmz] applies to both, not to guest
  const r = (await ok(c.post('/api/eval/batch', { packets: [pkt('10.0.0.5', '198.51.100.7'), pkt('10.2.0.5', '198.51.100.7'), { ...pkt('10.3.0.5', '198.51.100.7', 53), protocol: 'udp' }] }))).body.results;
  expect(r.map((a: { nat: { id: number } | null }) => a.nat?.id ?? null)).toEqual([1, 1, null]);
  expect(r.map((a: { srcZone: string }) => a.srcZone)).toEqual(['lan', 'dmz', 'guest']);
  // the local policy over [lan, guest]: dns to the firewall from both, not from dmz
  await expectEvalCases(c, [
    [{ ...pkt('10.0.0.5', '10.0.0.1', 53), protocol: 'udp' }, 1],
    [{ ...pkt('10.3.0.5', '10.3.0.1', 53), protocol: 'udp' }, 1],
    [{ ...pkt('10.2.0.5', '10.2.0.1', 53), protocol: 'udp' }, null],
  ]);
});

test('analysis: a rule over {lan, dmz} covers one over lan and one over {dmz, lan}; not one over {lan, guest}', async () => {
  await c.begin();
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['web'] })); // 3: redundant
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': ['dmz', 'lan'], 'dst-zone': 'wan', services: ['web'] })); // 4: shadowed
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': ['lan', 'guest'], 'dst-zone': 'wan', services: ['web'] })); // 5: guest is new
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': ['lan', 'dmz', 'guest'], 'dst-zone': 'wan', services: ['web', 'dns'] })); // 6: dns from lan and dmz is new
  const a = (await ok(c.get('/api/analysis?config=candidate'))).body;
  expect(a.redundant).toEqual([{ id: 3, coveredBy: [1] }]);
  expect(a.shadowed).toEqual([{ id: 4, coveredBy: [1] }]);
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': ['guest', 'dmz', 'lan'], 'dst-zone': 'wan', services: ['web'] })); // 7: covered by 6 alone (and by 1 and 5)
  const b = (await ok(c.get('/api/analysis?config=candidate'))).body;
  expect(b.redundant).toEqual([{ id: 3, coveredBy: [1] }, { id: 7, coveredBy: [6] }]);
  // without 6: by 1 and 5 together
  await ok(c.del('/api/policies/6'));
  const d = (await ok(c.get('/api/analysis?config=candidate'))).body;
  expect(d.redundant).toEqual([{ id: 3, coveredBy: [1] }, { id: 7, coveredBy: [1, 5] }]);
  expect(b.shadowed).toEqual([{ id: 4, coveredBy: [1] }]);
  await ok(c.post('/api/config/discard'));
});

test('export writes lists as lists and one zone as its name; a load of it changes nothing; a list loads', async () => {
  const x = (await ok(c.get('/api/config/export'))).body;
  expect(x.policies.map((p: Record<string, unknown>) => [p['src-zone'], p['dst-zone']])).toEqual([[['lan', 'dmz'], 'wan'], ['guest', 'wan']]);
  expect(x.nat[0]['src-zone']).toEqual(['lan', 'dmz']);
  expect(x.nat[0]['dst-zone']).toBe('wan');
  expect(x['local-policies'][0]['src-zone']).toEqual(['lan', 'guest']);
  await c.begin();
  await ok(c.put('/api/config/candidate', x));
  expect((await ok(c.get('/api/config/diff'))).body).toMatchObject({ added: [], changed: [], deleted: [] });
  // a changed list is a change of that policy; a bad list is refused with its place
  const edited = { ...x, policies: [{ ...x.policies[0], 'src-zone': ['dmz', 'guest'] }, x.policies[1]] };
  await ok(c.put('/api/config/candidate', edited));
  expect((await ok(c.get('/api/config/diff'))).body.changed).toEqual([{ kind: 'policy', key: '1' }]);
  expect(names((await ok(c.get('/api/policies/1?config=candidate'))).body.srcZone)).toEqual(['dmz', 'guest']);
  const bad = { ...x, policies: [{ ...x.policies[0], 'src-zone': ['dmz', 'nope'] }] };
  const e = expectError(await c.put('/api/config/candidate', bad), 400, 'ERR_NET_2003');
  expect(e.body.details).toMatch(/policies\[0\]/);
  await ok(c.post('/api/config/discard'));
});

test('fwctl: export (JSON and YAML) round-trips a list, plan shows a changed list field by field, apply commits it', async () => {
  const home = tempDir('fwctl-zones-');
  const env = { XDG_CONFIG_HOME: path.join(home, 'cfg'), HOME: home };
  expect((await fwctl(['login', d.url, '--user', ADMIN], { ...env, FWCTL_PASSWORD: ADMIN_PASSWORD })).code).toBe(0);
  const yaml = await fwctl(['export', '--format', 'yaml'], env);
  expect(yaml.code).toBe(0);
  fs.writeFileSync(path.join(home, 'running.yaml'), yaml.stdout);
  expect((await fwctl(['plan', '-f', path.join(home, 'running.yaml')], env)).code).toBe(0);
  const doc = JSON.parse((await fwctl(['export'], env)).stdout);
  expect(doc.policies[0]['src-zone']).toEqual(['lan', 'dmz']);
  doc.policies[0]['src-zone'] = ['dmz', 'guest'];
  fs.writeFileSync(path.join(home, 'changed.json'), JSON.stringify(doc));
  const plan = await fwctl(['plan', '-f', path.join(home, 'changed.json')], env);
  expect(plan.code).toBe(2);
  expect(plan.stdout).toMatch(/^ +src-zone: \["lan","dmz"\] -> \["dmz","guest"\]$/m);
  const apply = await fwctl(['apply', '-f', path.join(home, 'changed.json'), '--yes'], env);
  expect(apply.code).toBe(0);
  expect(names((await ok(c.get('/api/policies/1'))).body.srcZone)).toEqual(['dmz', 'guest']);
});
