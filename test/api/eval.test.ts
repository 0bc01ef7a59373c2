// Packet evaluation over HTTP: single and batch answers (checked by hand and against the
// reference evaluator on the same committed document), batch answers byte for byte equal to
// the single answers whatever the body's JSON formatting (the scanned fast path and the
// JSON.parse one) and however it is uploaded, bad packets with their index, ?config=candidate,
// the analysis and the commit warnings.
import { parseDoc } from '../../src/config/document';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { parsePacket } from '../../src/eval/packet';
import { expectError, expectMessage, ok, rawChunked, useDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';

const used = useDaemon();
const c = used.client;

const A = { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'tcp', 'dst-port': 443 };
const B = { 'src-ip': '198.51.100.7', 'dst-ip': '203.0.113.2', protocol: 'tcp', 'dst-port': 443, 'in-interface': 'eth0' };
const C = { 'src-ip': '10.0.0.5', 'dst-ip': '10.0.0.99', protocol: 'udp', 'dst-port': 53 };
const D = { 'src-ip': '2001:db8::1', 'dst-ip': '2001:db8:1::1', protocol: 'icmp' };
const E = { ...D, 'dst-zone': 'wan', 'src-zone': 'lan' };

beforeAll(async () => {
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/addresses', { name: 'pub', ips: ['203.0.113.2/32'] }));
  await ok(c.post('/api/addresses', { name: 'unused', ips: ['192.0.2.0/24'] }));
  await ok(c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }));
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'dst-zone': 'wan', 'out-interface': 'eth0' }));
  await ok(c.post('/api/nat', { type: 'dnat-port', 'src-zone': 'wan', 'dst-addr': 'pub', service: 'https', 'translated-ip': '10.0.0.10', 'translated-port': '8443' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', log: true }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'wan', 'dst-zone': 'lan', 'dst-addr': 'pub', services: ['https'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['https'] }));
  const r = expectMessage(await c.post('/api/config/commit'), 'commit successful');
  // policy 3 can never match: policy 1 covers it with the same action
  expect(r.body.warnings).toMatch(/policy 3/);
});

test('single packets: outbound with masquerade, inbound DNAT, default deny, no route', async () => {
  const a = await c.post('/api/eval', A);
  expect(a.status).toBe(200);
  expect(a.body).toEqual({
    version: 1, action: 'allow', reason: 'policy', srcZone: 'lan', dstZone: 'wan', egressInterface: 'eth0',
    route: { id: 1, destination: '0.0.0.0/0' },
    nat: { id: 1, type: 'snat', translatedIP: '203.0.113.2', translatedPort: '' },
    policy: { id: 1, action: 'allow', log: true },
  });
  const b = (await c.post('/api/eval', B)).body;
  expect(b).toMatchObject({ action: 'allow', reason: 'policy', srcZone: 'wan', dstZone: 'lan', egressInterface: 'eth1', policy: { id: 2, action: 'allow', log: false } });
  expect(b.nat).toEqual({ id: 2, type: 'dnat-port', translatedIP: '10.0.0.10', translatedPort: '8443' });
  const cc = (await c.post('/api/eval', C)).body;
  expect(cc).toMatchObject({ action: 'deny', reason: 'default-deny', srcZone: 'lan', dstZone: 'lan', policy: null, nat: null });
  expect(cc.route).toEqual({ id: null, destination: '10.0.0.0/24' });
  const d = (await c.post('/api/eval', D)).body;
  expect(d).toMatchObject({ action: 'deny', reason: 'no-route', route: null, policy: null, egressInterface: null });
  const e = (await c.post('/api/eval', E)).body;
  expect(e).toMatchObject({ action: 'allow', reason: 'policy', srcZone: 'lan', dstZone: 'wan', policy: { id: 1 } });
});

test('batch answers in order, and each equals the reference evaluator on the committed document', async () => {
  const packets = [A, B, C, D, E];
  for (let i = 0; i < 200; i++) {
    packets.push({ 'src-ip': `10.0.${i % 3}.${i}`, 'dst-ip': `${(i * 37) % 223 + 1}.${i}.0.${(i * 7) % 255}`, protocol: i % 2 ? 'tcp' : 'udp', 'dst-port': (i * 131) % 65536 } as typeof A);
  }
  const r = await c.post('/api/eval/batch', { packets });
  expect(r.status).toBe(200);
  expect(r.body.version).toBe(1);
  expect(r.body.results).toHaveLength(packets.length);
  const doc = parseDoc((await c.get('/api/config/versions/1')).body.config);
  const ref = new ReferenceEvaluator(doc);
  packets.forEach((p, i) => expect({ i, ...r.body.results[i] }).toEqual({ i, ...ref.eval(parsePacket(p)) }));
});

test('bad packets: 400 with the index of the offending packet; nothing is evaluated', async () => {
  const bad = (packets: unknown[]) => c.post('/api/eval/batch', { packets });
  let r = expectError(await bad([A, B, { ...A, 'dst-port': 70000 }]), 400, 'ERR_NET_1004');
  expect(r.body.details).toContain('packets[2]');
  r = expectError(await bad([A, { ...A, 'src-ip': '10.0.0.300' }]), 400, 'ERR_NET_1001');
  expect(r.body.details).toContain('packets[1]');
  r = expectError(await bad([{ ...A, 'dst-ip': '2001:db8::1' }]), 400, 'ERR_NET_1001');
  expect(r.body.details).toContain('packets[0]');
  r = expectError(await bad([A, { ...A, colour: 'red' }]), 400, 'ERR_NET_1004');
  expect(r.body.details).toContain('packets[1]');
  expectError(await bad([A, 'not a packet']), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/eval/batch', { packets: A }), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/eval/batch', {}), 400, 'ERR_NET_1004');
  expectError(await bad(new Array(10001).fill(A)), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/eval', { ...A, protocol: 'grease' }), 400, 'ERR_NET_1004'); // 'gre' is a protocol name since issue 41
  expectError(await c.post('/api/eval', { 'src-ip': '10.0.0.5', protocol: 'tcp', 'dst-port': 1 }), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/eval?config=whatever', A), 400, 'ERR_NET_1005');
});

/** Many packets of every kind: both families, names, protocols by name and number, ports. */
function mixedPackets(): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [A, B, C, D, E];
  for (let i = 0; i < 300; i++) {
    const p: Record<string, unknown> = i % 5 === 4
      ? { 'src-ip': `2001:db8::${(i * 7).toString(16)}`, 'dst-ip': i % 2 ? '2001:db8:1::1' : `::ffff:10.0.0.${i % 250}`, protocol: ['tcp', 'udp', 'icmp', 6, 47][i % 5] }
      : { 'src-ip': `${[10, 198, 203][i % 3]}.${i % 2 ? 0 : 51}.${i % 3 ? 0 : 100}.${i % 250}`, 'dst-ip': i % 4 ? '203.0.113.2' : `10.0.0.${i % 250}`, protocol: ['tcp', 'udp', 'icmp', 17, 6, 0][i % 6] };
    if (p.protocol === 'tcp' || p.protocol === 'udp' || p.protocol === 6 || p.protocol === 17 || i % 3 === 0) p['dst-port'] = [443, 53, 0, 65535, 8443][i % 5];
    if (i % 7 === 0) p['src-port'] = 1024 + i;
    if (i % 4 === 1) p['in-interface'] = ['eth0', 'eth1', ''][i % 3];
    if (i % 6 === 2) p['src-zone'] = ['lan', 'wan', null][i % 3];
    if (i % 9 === 3) p['dst-zone'] = ['wan', 'lan'][i % 2];
    out.push(p);
  }
  return out;
}

test('batch answers are the single answers, byte for byte, however the body is written', async () => {
  const packets = mixedPackets();
  const singles: unknown[] = [];
  for (const p of packets) {
    const r = await c.post('/api/eval', p);
    expect(r.status).toBe(200);
    const { version, ...rest } = r.body;
    expect(version).toBe(1);
    singles.push(rest);
  }
  const want = JSON.stringify({ version: 1, results: singles });
  // compact (the scanner takes it), pretty-printed, and with escapes and 443.0 (JSON.parse takes those)
  const escaped = JSON.stringify({ packets }).replace(/"eth0"/g, '"eth\u0030"').replace(/"dst-port":443/g, '"dst-port":443.0');
  for (const body of [JSON.stringify({ packets }), JSON.stringify({ packets }, null, 2), escaped]) {
    const r = await c.raw('POST', '/api/eval/batch', body);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text).toBe(want);
  }
  // uploaded in chunks without a Content-Length
  const chunked = await rawChunked(used.url, '/api/eval/batch', c.token, JSON.stringify({ packets }));
  expect(chunked).toEqual({ status: 200, body: want });
});

test('batch errors through the fast path: unknown names with the index, malformed and empty bodies', async () => {
  const post = (body: string) => c.raw('POST', '/api/eval/batch', body);
  let r = expectError(await post(JSON.stringify({ packets: [A, B, { ...A, 'src-zone': 'nope' }, { ...A, 'in-interface': 'eth9' }] })), 400, 'ERR_NET_2003');
  expect(r.body.details).toBe('packets[2].src-zone: unknown zone "nope"');
  r = expectError(await post(JSON.stringify({ packets: [A, { ...A, 'in-interface': 'eth9', 'dst-zone': 'nope' }] })), 400, 'ERR_NET_2003');
  expect(r.body.details).toBe('packets[1].in-interface: unknown interface or VLAN "eth9"');
  r = expectError(await post(JSON.stringify({ packets: [A, { ...A, 'dst-port': 70000 }] })), 400, 'ERR_NET_1004');
  expect(r.body.details).toBe('packets[1].dst-port: must be an integer 0-65535');
  r = expectError(await post('{"packets":[' + JSON.stringify(A) + ',]}'), 400, 'ERR_NET_1004');
  expect(r.body.details).toMatch(/^malformed JSON/);
  r = expectError(await post(''), 400, 'ERR_NET_1004');
  expect(r.body.details).toBe('body: must be a JSON object');
  r = expectError(await c.raw('POST', '/api/eval/batch'), 400, 'ERR_NET_1004');
  expect(r.body.details).toBe('body: must be a JSON object');
  // the pool of batches survives errors: a good batch still answers
  expect((await c.post('/api/eval/batch', { packets: [A] })).body.results[0].policy.id).toBe(1);
});

test('concurrent batches, bodies and answers in reused memory: each answer is its own body\'s', async () => {
  const base = [A, B, C, D, E];
  const singles: string[] = [];
  for (const p of base) {
    const { version, ...rest } = (await c.post('/api/eval', p)).body;
    expect(version).toBe(1);
    singles.push(JSON.stringify(rest));
  }
  // sizes from one packet to 6,000 (bodies of several chunks, answers larger than what the
  // socket takes at once), each a different sequence, all in flight together with small
  // requests and refused batches that take and give back the same memory
  const sizes = [1, 6000, 40, 2500, 6000, 300, 4000, 7, 6000, 1200];
  const seqs = sizes.map((n, k) => Array.from({ length: n }, (_, i) => (i * (k + 1) + (i >> 3) + k) % base.length));
  const batches = seqs.map((seq) => c.raw('POST', '/api/eval/batch', JSON.stringify({ packets: seq.map((i) => base[i]) })));
  const others = sizes.map((n, k) => (k % 2 === 0 ? c.post('/api/eval', base[k % base.length]) : c.raw('POST', '/api/eval/batch', JSON.stringify({ packets: [A, { ...A, 'dst-port': n + 70000 }] }))));
  const [answers, rest] = await Promise.all([Promise.all(batches), Promise.all(others)]);
  answers.forEach((r, k) => {
    expect(r.status).toBe(200);
    const want = `{"version":1,"results":[${seqs[k].map((i) => singles[i]).join(',')}]}`;
    expect({ k, same: r.text === want, length: r.text.length }).toEqual({ k, same: true, length: want.length });
  });
  rest.forEach((r, k) => expect(r.status).toBe(k % 2 === 0 ? 200 : 400));
});

test('a full batch of 10,000 packets is answered', async () => {
  const r = await c.post('/api/eval/batch', { packets: new Array(10000).fill(B) });
  expect(r.status).toBe(200);
  expect(r.body.results).toHaveLength(10000);
  expect(r.body.results[9999].policy.id).toBe(2);
});

test('?config=candidate evaluates the candidate; running is unchanged until commit', async () => {
  expectError(await c.post('/api/eval?config=candidate', A), 409, 'ERR_SYS_3001');
  await c.begin();
  const id = (await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan' }))).body.id;
  await ok(c.post(`/api/policies/${id}/move`, { position: 'top' }));
  expect((await c.post('/api/eval?config=candidate', A)).body).toMatchObject({ action: 'deny', policy: { id: Number(id) } });
  expect((await c.post('/api/eval/batch?config=candidate', { packets: [A, B] })).body.results.map((x: { action: string }) => x.action)).toEqual(['deny', 'allow']);
  expect((await c.post('/api/eval', A)).body).toMatchObject({ action: 'allow', policy: { id: 1 } });
  // a further change is seen by the next candidate eval
  await ok(c.del(`/api/policies/${id}`));
  expect((await c.post('/api/eval?config=candidate', A)).body).toMatchObject({ action: 'allow', policy: { id: 1 } });
  await ok(c.post('/api/config/discard'));
});

test('analysis lists the redundant policy with its cover, and unused objects', async () => {
  const r = await c.get('/api/analysis');
  expect(r.status).toBe(200);
  expect(r.body.version).toBe(1);
  expect(r.body.redundant).toEqual([{ id: 3, coveredBy: [1] }]);
  expect(r.body.shadowed).toEqual([]);
  expect(r.body.unusedAddresses).toEqual(['unused']);
  expect(r.body.unusedServices).toEqual([]);
  await c.begin();
  expectMessage(await c.post('/api/config/validate'), 'validation passed');
  // a candidate without change: the finding was there before, so one counted line (issue 43)
  expect((await c.post('/api/config/validate')).body.warnings).toBe('1 policy was already shadowed or redundant before this change (GET /api/analysis lists them all)');
  await ok(c.post('/api/config/discard'));
});
