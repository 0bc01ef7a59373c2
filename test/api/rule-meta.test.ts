// Rule metadata over HTTP (issue 27, part 1): name, description, tags and disabled on policies
// and NAT rules — validation with the contract's codes, unique names, the read model (fields
// only when set, so seed answers are unchanged), the list filters, a disabled rule that keeps
// its place but never matches (eval, batch) and is reported as disabled by the analysis, not as
// shadowed, export and load, and the diff.
import { parseDoc } from '../../src/config/document';
import { parsePacket } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { expectError, ok, refusal, useDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';

const c = useDaemon().client;
const OUT = { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'tcp', 'dst-port': 443 };

beforeAll(async () => {
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
});

const policy = async (id: number) => (await ok(c.get(`/api/policies/${id}?config=candidate`))).body;
const ids = async (query: string, table = 'policies') =>
  (await ok(c.get(`/api/${table}?config=candidate${query}`))).body.map((r: { id: number }) => r.id);

test('policies: metadata is stored, read back only when set, edited and cleared', async () => {
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  // a seed policy's read model has exactly the seed's fields
  expect(Object.keys(await policy(1)).sort()).toEqual(['action', 'dstAddr', 'dstZone', 'id', 'log', 'services', 'srcAddr', 'srcZone']);
  await ok(c.post('/api/policies', {
    action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['https'],
    name: 'block-https', description: 'maintenance window', tags: ['temp', 'web', 'temp'], disabled: true,
  }));
  expect(await policy(2)).toMatchObject({ name: 'block-https', description: 'maintenance window', tags: ['temp', 'web'], disabled: true });
  await ok(c.put('/api/policies/2', { disabled: false, description: '' }));
  const p = await policy(2);
  expect(p).toMatchObject({ name: 'block-https', tags: ['temp', 'web'] });
  expect(p.disabled).toBeUndefined();
  expect(p.description).toBeUndefined();
  await ok(c.put('/api/policies/2', { disabled: true, name: 'block-https' }));
});

test('refusals: the contract codes, details naming the field, nothing changed', async () => {
  const bad = refusal((body: Record<string, unknown>) => c.post('/api/policies', { action: 'allow', ...body }));
  await bad({ name: 'has space' }, 400, 'ERR_NET_1004', /field "name"/);
  await bad({ name: 'any' }, 400, 'ERR_NET_1004', /field "name"/);
  await bad({ name: 'x'.repeat(65) }, 400, 'ERR_NET_1004', /field "name"/);
  await bad({ description: 'd'.repeat(1025) }, 400, 'ERR_NET_1004', /field "description"/);
  await bad({ tags: ['ok', 'not ok'] }, 400, 'ERR_NET_1004', /field "tags\[1\]"/);
  await bad({ tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }, 400, 'ERR_NET_1008', /field "tags"/);
  await bad({ tags: 'web' }, 400, 'ERR_NET_1004', /tags/);
  await bad({ disabled: 'yes' }, 400, 'ERR_NET_1004', /disabled/);
  await bad({ name: 'block-https' }, 409, 'ERR_NET_2006', /policy 2/);
  expectError(await c.put('/api/policies/1', { name: 'block-https' }), 409, 'ERR_NET_2006');
  // a description of 1,024 characters is fine
  await ok(c.put('/api/policies/1', { description: 'd'.repeat(1024) }));
  await ok(c.put('/api/policies/1', { description: '' }));
  expect(await ids('')).toEqual([1, 2]);
  expect((await policy(1)).name).toBeUndefined();
});

test('NAT rules: metadata, unique names among NAT rules only, a 1,024-character description', async () => {
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'out-interface': 'eth0', name: 'block-https', tags: ['egress'] }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'out-interface': 'eth0', name: 'masq-off', description: 'n'.repeat(1024), disabled: true }));
  const n = (await ok(c.get('/api/nat/1?config=candidate'))).body;
  expect(n).toMatchObject({ name: 'block-https', tags: ['egress'], description: '' });
  expect(n.disabled).toBeUndefined();
  expectError(await c.post('/api/nat', { type: 'snat', name: 'masq-off' }), 409, 'ERR_NET_2006');
  expectError(await c.put('/api/nat/1', { tags: [''] }), 400, 'ERR_NET_1004');
  expect(await ids('&disabled=true', 'nat')).toEqual([2]);
  expect(await ids('&type=snat&tag=egress', 'nat')).toEqual([1]);
  expect(await ids('&type=dnat&tag=egress', 'nat')).toEqual([]);
});

test('list filters: tag, disabled, q (name, description, tags; case ignored), name, together', async () => {
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'wan', name: 'Web-In', tags: ['web'], description: 'From the Internet' }));
  expect(await ids('&tag=web')).toEqual([2, 3]);
  expect(await ids('&tag=nothing')).toEqual([]);
  expect(await ids('&disabled=true')).toEqual([2]);
  expect(await ids('&disabled=false')).toEqual([1, 3]);
  expect(await ids('&q=INTERNET')).toEqual([3]);
  expect(await ids('&q=web')).toEqual([2, 3]);
  expect(await ids('&q=temp')).toEqual([2]);
  expect(await ids('&name=Web-In')).toEqual([3]);
  expect(await ids('&name=web-in')).toEqual([]);
  expect(await ids('&tag=web&disabled=false')).toEqual([3]);
  expectError(await c.get('/api/policies?config=candidate&disabled=maybe'), 400, 'ERR_NET_1005');
  expectError(await c.get('/api/nat?config=candidate&disabled=1'), 400, 'ERR_NET_1005');
});

test('a disabled policy never matches and is reported as disabled, not shadowed; it keeps its place', async () => {
  // policy 2 (deny https lan->wan, disabled) goes to the top, where enabled it would decide
  await ok(c.post('/api/policies/2/move', { position: 'top' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['https'], disabled: true }));
  let r = (await ok(c.post('/api/eval?config=candidate', OUT))).body;
  expect(r).toMatchObject({ action: 'allow', policy: { id: 1 }, nat: { id: 1 } });
  const analysis = (await ok(c.get('/api/analysis?config=candidate'))).body;
  expect(analysis.disabled).toEqual([2, 4]);
  expect(analysis.disabledNat).toEqual([2]);
  // policy 4 lies under policy 1 (same zones, any service): disabled, it is not "shadowed"
  const reported = [...analysis.shadowed, ...analysis.redundant].map((x: { id: number }) => x.id);
  expect(reported).not.toContain(4);
  expect(reported).not.toContain(2);
  // nothing is covered by a disabled policy either
  for (const x of [...analysis.shadowed, ...analysis.redundant]) expect(x.coveredBy).not.toContain(2);
  // enabled, policy 2 takes the packet again, from its place at the top
  await ok(c.put('/api/policies/2', { disabled: false }));
  r = (await ok(c.post('/api/eval?config=candidate', OUT))).body;
  expect(r).toMatchObject({ action: 'deny', policy: { id: 2 } });
  expect(await ids('')).toEqual([2, 1, 3, 4]);
  await ok(c.put('/api/policies/2', { disabled: true }));
});

test('committed: eval and batch skip disabled rules exactly as the reference evaluator does', async () => {
  await ok(c.post('/api/config/commit'));
  const packets = [OUT, { ...OUT, 'dst-port': 80 }, { ...OUT, 'src-ip': '8.8.8.8', 'dst-ip': '10.0.0.5' }];
  const batch = (await ok(c.post('/api/eval/batch', { packets }))).body;
  const doc = parseDoc((await ok(c.get(`/api/config/versions/${batch.version}`))).body.config);
  const ref = new ReferenceEvaluator(doc);
  packets.forEach((p, i) => expect(batch.results[i]).toEqual(ref.eval(parsePacket(p))));
  // the disabled NAT rule 2 never translates; rule 1 (enabled, masquerade out of eth0) does
  expect(batch.results[0]).toMatchObject({ action: 'allow', policy: { id: 1 }, nat: { id: 1 } });
  // ?stats=true takes the filters too (hits are null without a data plane)
  const stats = (await ok(c.get('/api/policies?stats=true&disabled=true'))).body;
  expect(stats.map((p: { id: number; hits: unknown }) => [p.id, p.hits])).toEqual([[2, null], [4, null]]);
  await c.begin();
});

test('export writes the metadata when set; a load brings it back; a repeated name is refused', async () => {
  const x = (await ok(c.get('/api/config/export'))).body;
  const p2 = x.policies.find((p: { id: number }) => p.id === 2);
  expect(p2).toMatchObject({ name: 'block-https', tags: ['temp', 'web'], disabled: true });
  const p1 = x.policies.find((p: { id: number }) => p.id === 1);
  expect(Object.keys(p1)).not.toContain('name');
  expect(Object.keys(p1)).not.toContain('disabled');
  expect(x.nat.find((n: { id: number }) => n.id === 2)).toMatchObject({ name: 'masq-off', disabled: true });
  await ok(c.put('/api/config/candidate', x));
  expect(await policy(2)).toMatchObject({ name: 'block-https', disabled: true });
  const dup = structuredClone(x);
  dup.policies.find((p: { id: number }) => p.id === 1).name = 'block-https';
  const r = expectError(await c.put('/api/config/candidate', dup), 409, 'ERR_NET_2006');
  expect(r.body.details).toMatch(/policies: the name "block-https" is given to rules/);
  expect((await policy(1)).name).toBeUndefined();
});

test('diff: a metadata change is a change of the rule', async () => {
  await ok(c.put('/api/policies/3', { tags: ['web', 'inbound'] }));
  await ok(c.put('/api/nat/2', { disabled: false }));
  const d = (await ok(c.get('/api/config/diff'))).body;
  // each diff item names its rule too (issue 43 item 8)
  expect(d.changed).toEqual(expect.arrayContaining([{ kind: 'policy', key: '3', name: 'Web-In' }, { kind: 'nat', key: '2', name: 'masq-off' }]));
});

test('the data plane: a disabled rule renders no rule but keeps its counter', async () => {
  const nft: string = (await ok(c.get('/api/dataplane/render?config=candidate'))).body.nft;
  // policies 2 and 4 are disabled (NAT rule 2 was enabled by the diff test)
  expect(nft).toMatch(/counter policy_2 \{/);
  expect(nft).toMatch(/counter policy_4 \{/);
  expect(nft).not.toMatch(/counter name "policy_2"/);
  expect(nft).not.toMatch(/counter name "policy_4"/);
  expect(nft).toMatch(/counter name "policy_1" ct mark set 0x[0-9a-f]+ goto stamp/);
  expect(nft).toMatch(/masquerade comment "nat 1"/);
  await ok(c.put('/api/nat/2', { disabled: true }));
  expect((await ok(c.get('/api/dataplane/render?config=candidate'))).body.nft).not.toMatch(/"nat 2"/);
  await ok(c.put('/api/nat/2', { disabled: false }));
  expect((await ok(c.get('/api/dataplane/render?config=candidate'))).body.nft).toMatch(/masquerade comment "nat 2"/);
});
