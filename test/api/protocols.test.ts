// Services beyond tcp and udp over HTTP (issue 27, part 2): sctp with ports, icmp and icmpv6
// with an optional type and code, any other IP protocol by name or number; their refusals with
// the contract's codes; the read model and export (seed services unchanged); POST /api/eval and
// the batch with icmp-type/icmp-code, equal to the reference evaluator; the nft rendering.
import { expectError, ok, refusal, useDaemon } from '../helpers/daemon';
import { expectEvalCases } from '../helpers/eval-checks';
import { lanWan } from '../helpers/lan-wan';

const c = useDaemon().client;
const svc = async (name: string) => (await ok(c.get(`/api/services/${name}?config=candidate`))).body;
const V4 = { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8' };
const V6 = { 'src-ip': '2001:db8::5', 'dst-ip': '2001:db8:1::1', 'src-zone': 'lan', 'dst-zone': 'wan' };

beforeAll(async () => {
  await c.begin();
  await lanWan(c);
});

test('create every protocol kind; stored by name, or number when it has none', async () => {
  await ok(c.post('/api/services', { name: 'sctp-s1ap', protocol: 'sctp', ports: [36412, '2905-2906'] }));
  await ok(c.post('/api/services', { name: 'ping', protocol: 'icmp', 'icmp-type': 8 }));
  await ok(c.post('/api/services', { name: 'frag-needed', protocol: 'icmp', 'icmp-type': 3, 'icmp-code': 4, ports: [] }));
  await ok(c.post('/api/services', { name: 'ping6', protocol: 'icmpv6', 'icmp-type': 128 }));
  await ok(c.post('/api/services', { name: 'icmp-all', protocol: 'icmp' }));
  await ok(c.post('/api/services', { name: 'gre', protocol: 'gre' }));
  await ok(c.post('/api/services', { name: 'esp', protocol: '50' }));
  await ok(c.post('/api/services', { name: 'exp', protocol: '253' }));
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
  expect(await svc('sctp-s1ap')).toEqual({ name: 'sctp-s1ap', protocol: 'sctp', ports: [36412, '2905-2906'] });
  expect(await svc('ping')).toEqual({ name: 'ping', protocol: 'icmp', ports: [], icmpType: 8 });
  expect(await svc('frag-needed')).toEqual({ name: 'frag-needed', protocol: 'icmp', ports: [], icmpType: 3, icmpCode: 4 });
  expect(await svc('esp')).toEqual({ name: 'esp', protocol: 'esp', ports: [] });
  expect(await svc('exp')).toEqual({ name: 'exp', protocol: '253', ports: [] });
  // the seed's service read model is unchanged
  expect(await svc('https')).toEqual({ name: 'https', protocol: 'tcp', ports: [443] });
});

test('refusals: the contract codes with details naming the field; nothing created', async () => {
  const bad = refusal((body: Record<string, unknown>) => c.post('/api/services', { name: 'x', ...body }));
  await bad({ protocol: 'foo' }, 400, 'ERR_NET_1006', /field "protocol"/);
  await bad({ protocol: '256' }, 400, 'ERR_NET_1006', /field "protocol"/);
  await bad({ protocol: '-1' }, 400, 'ERR_NET_1006', /field "protocol"/);
  // issue 41: a JSON integer is a number like "47"; out of range or a fraction is still refused
  await bad({ protocol: 256 }, 400, 'ERR_NET_1006', /field "protocol"/);
  await bad({ protocol: -1 }, 400, 'ERR_NET_1006', /field "protocol"/);
  await bad({ protocol: 47.5 }, 400, 'ERR_NET_1004', /protocol/);
  await bad({ protocol: true }, 400, 'ERR_NET_1004', /protocol/);
  await bad({ protocol: 'tcp' }, 400, 'ERR_NET_1004', /ports/);
  await bad({ protocol: 'sctp' }, 400, 'ERR_NET_1004', /ports/);
  await bad({ protocol: '6' }, 400, 'ERR_NET_1004', /ports/);
  await bad({ protocol: 'udp', ports: [] }, 400, 'ERR_NET_1008', /field "ports"/);
  await bad({ protocol: 'icmp', ports: [1] }, 400, 'ERR_NET_1006', /field "protocol"/);
  await bad({ protocol: 'gre', 'icmp-type': 8 }, 400, 'ERR_NET_1004', /field "icmp-type"/);
  await bad({ protocol: 'tcp', ports: [1], 'icmp-code': 1 }, 400, 'ERR_NET_1004', /field "icmp-code"/);
  await bad({ protocol: 'icmp', 'icmp-code': 1 }, 400, 'ERR_NET_1004', /field "icmp-code"/);
  await bad({ protocol: 'icmp', 'icmp-type': 256 }, 400, 'ERR_NET_1008', /field "icmp-type"/);
  await bad({ protocol: 'icmpv6', 'icmp-type': 1, 'icmp-code': 300 }, 400, 'ERR_NET_1008', /field "icmp-code"/);
  await bad({ protocol: 'icmp', 'icmp-type': 'echo' }, 400, 'ERR_NET_1004', /icmp-type/);
  expectError(await c.get('/api/services/x?config=candidate'), 404, 'ERR_NET_1003');
  // an edit swaps tcp and udp only, as the seed's did; the merged service is checked whole
  expectError(await c.put('/api/services/https', { protocol: 'gre', ports: [] }), 400, 'ERR_NET_1006');
  expectError(await c.put('/api/services/ping', { protocol: 'icmpv6' }), 400, 'ERR_NET_1006');
  expectError(await c.put('/api/services/ping', { ports: [1] }), 400, 'ERR_NET_1006');
  await ok(c.put('/api/services/https', { protocol: 'udp' }));
  expect(await svc('https')).toEqual({ name: 'https', protocol: 'udp', ports: [443] });
  await ok(c.put('/api/services/https', { protocol: 'tcp' }));
  await ok(c.put('/api/services/ping', { 'icmp-code': 0 }));
  expect(await svc('ping')).toEqual({ name: 'ping', protocol: 'icmp', ports: [], icmpType: 8, icmpCode: 0 });
  await ok(c.put('/api/services/ping', { protocol: 'icmp', 'icmp-type': 8 })); // protocol given: the code goes
  expect(await svc('ping')).toEqual({ name: 'ping', protocol: 'icmp', ports: [], icmpType: 8 });
});

test('eval and batch: each protocol kind matches as the reference evaluator says', async () => {
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['ping', 'ping6', 'gre', 'sctp-s1ap', 'exp'] }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['icmp-all', 'esp'], log: true }));
  await ok(c.post('/api/config/commit'));
  const cases: Array<[Record<string, unknown>, number | null]> = [
    [{ ...V4, protocol: 'icmp', 'icmp-type': 8 }, 1],
    [{ ...V4, protocol: 'icmp', 'icmp-type': 8, 'icmp-code': 1 }, 1], // ping names no code
    [{ ...V4, protocol: 'icmp', 'icmp-type': 0 }, 2],
    [{ ...V4, protocol: 'icmp' }, 2], // type 0 when not given
    [{ ...V4, protocol: 1, 'icmp-type': 3, 'icmp-code': 4 }, 2],
    [{ ...V6, protocol: 'icmpv6', 'icmp-type': 128 }, 1],
    [{ ...V6, protocol: 58, 'icmp-type': 129 }, null],
    [{ ...V4, protocol: 47 }, 1],
    [{ ...V4, protocol: 50 }, 2],
    [{ ...V4, protocol: 253 }, 1],
    [{ ...V4, protocol: 254 }, null],
    [{ ...V4, protocol: 'sctp', 'dst-port': 36412 }, 1],
    [{ ...V4, protocol: 132, 'dst-port': 2906 }, 1],
    [{ ...V4, protocol: 'sctp', 'dst-port': 443 }, null],
    [{ ...V4, protocol: 'tcp', 'dst-port': 36412 }, null],
  ];
  await expectEvalCases(c, cases);
  expectError(await c.post('/api/eval', { ...V4, protocol: 'tcp', 'dst-port': 1, 'icmp-type': 8 }), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/eval', { ...V4, protocol: 'icmp', 'icmp-code': 256 }), 400, 'ERR_NET_1004');
  await c.begin();
});

test('export and load keep every kind; the data plane renders protocol numbers, ICMP type and code', async () => {
  const x = (await ok(c.get('/api/config/export'))).body;
  expect(x.services.find((s: { name: string }) => s.name === 'frag-needed')).toEqual({ name: 'frag-needed', protocol: 'icmp', ports: [], 'icmp-type': 3, 'icmp-code': 4 });
  expect(x.services.find((s: { name: string }) => s.name === 'https')).toEqual({ name: 'https', protocol: 'tcp', ports: [443] });
  await ok(c.put('/api/config/candidate', x));
  expect((await ok(c.get('/api/config/diff'))).body).toMatchObject({ added: [], changed: [], deleted: [] });
  const nft: string = (await ok(c.get('/api/dataplane/render?config=candidate'))).body.nft;
  expect(nft).toMatch(/meta l4proto 1 icmp type 8 counter name "policy_1" ct mark set 0x[0-9a-f]+ goto stamp/);
  expect(nft).toMatch(/meta l4proto 58 icmpv6 type 128 counter name "policy_1" ct mark set 0x[0-9a-f]+ goto stamp/);
  expect(nft).toMatch(/meta l4proto 47 counter name "policy_1" ct mark set 0x[0-9a-f]+ goto stamp/);
  expect(nft).toMatch(/meta l4proto 253 counter name "policy_1" ct mark set 0x[0-9a-f]+ goto stamp/);
  expect(nft).toMatch(/meta l4proto 132 ct original proto-dst @ports_[0-9a-f]+ counter name "policy_1" ct mark set 0x[0-9a-f]+ goto stamp/);
  expect(nft).toMatch(/meta l4proto 1 ct state new ct label != 127 limit rate \d+\/second burst \d+ packets ct label set 127 log group \d+ prefix "fwd policy 2 deny"/);
  expect(nft).toMatch(/meta l4proto 1 counter name "policy_2" drop/);
  expect(nft).toMatch(/meta l4proto 50 ct state new ct label != 127 limit rate \d+\/second burst \d+ packets ct label set 127 log group/);
});
