// Issue 41 item 3 over HTTP: a port forward of tcp/53 and udp/53 as one dnat-port rule (a
// service group of one port number), and source NAT to a pool (a prefix or a range): the
// stored form, eval's answer (the pool's first address), validation, and the nft text.
import { parseDoc } from '../../src/config/document';
import { renderNft } from '../../src/dataplane/nft';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { parsePacket } from '../../src/eval/packet';
import { expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';

const c = useDaemon().client;

beforeAll(async () => {
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/addresses', { name: 'pub', ips: ['203.0.113.2/32'] }));
  await ok(c.post('/api/services', { name: 'dns-tcp', protocol: 'tcp', ports: [53] }));
  await ok(c.post('/api/services', { name: 'dns-udp', protocol: 'udp', ports: ['53'] }));
  await ok(c.post('/api/services', { name: 'ntp', protocol: 'udp', ports: [123] }));
  await ok(c.post('/api/service-groups', { name: 'dns', members: ['dns-tcp', 'dns-udp'] }));
  await ok(c.post('/api/service-groups', { name: 'mixed', members: ['dns-udp', 'ntp'] }));
  await ok(c.post('/api/policies', { action: 'allow' }));
});

const DNS_TO = (protocol: string) => ({ 'src-ip': '198.51.100.7', 'dst-ip': '203.0.113.2', protocol, 'dst-port': 53, 'in-interface': 'eth0' });

test('dnat-port with a group of one port number forwards tcp and udp in one rule', async () => {
  const r = expectMessage(
    await c.post('/api/nat', { type: 'dnat-port', 'src-zone': 'wan', 'dst-addr': 'pub', service: 'dns', 'translated-ip': '10.0.0.53', 'translated-port': '5353' }),
    'NAT rule added in candidate',
  );
  expect(r.body.id).toBe('1');
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  for (const protocol of ['tcp', 'udp']) {
    const e = (await ok(c.post('/api/eval', DNS_TO(protocol)))).body;
    expect(e.nat).toEqual({ id: 1, type: 'dnat-port', translatedIP: '10.0.0.53', translatedPort: '5353' });
    expect(e.dstZone).toBe('lan');
  }
  // another port of the same address is not forwarded, nor another protocol
  expect((await ok(c.post('/api/eval', { ...DNS_TO('tcp'), 'dst-port': 54 }))).body.nat).toBeNull();
  expect((await ok(c.post('/api/eval', { ...DNS_TO('tcp'), protocol: 'sctp' }))).body.nat).toBeNull();
  // the kernel: one dnat per protocol, both counted as rule 1
  const nft = renderNft(parseDoc((await ok(c.get('/api/config/versions/1'))).body.config));
  const dnats = nft.split('\n').filter((l) => l.includes('dnat ip to 10.0.0.53:5353'));
  expect(dnats).toHaveLength(2);
  expect(dnats.some((l) => /meta l4proto tcp .*th dport 53 /.test(l) || /tcp dport 53 /.test(l))).toBe(true);
  expect(dnats.some((l) => /meta l4proto udp .*th dport 53 /.test(l) || /udp dport 53 /.test(l))).toBe(true);
  expect(dnats.every((l) => l.includes('counter name "nat_1"'))).toBe(true);
});

test('dnat-port with a group of two port numbers is refused at commit, naming them', async () => {
  await c.begin();
  await ok(c.post('/api/nat', { type: 'dnat-port', 'dst-addr': 'pub', service: 'mixed', 'translated-ip': '10.0.0.54', 'translated-port': '53' }));
  const e = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  expect(e.body.details).toContain('nat 2: service group mixed holds different ports (dns-udp 53, ntp 123); a dnat-port rule needs a single port number');
  await ok(c.del('/api/nat/2'));
});

test('snat translated-ip: an address, a prefix or a range, stored canonical; pools only for snat', async () => {
  const add = async (tip: string) => (await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'translated-ip': tip }))).body.id as string;
  const read = async (id: string) => (await ok(c.get(`/api/nat/${id}?config=candidate`))).body.translatedIP;
  expect(await read(await add('203.0.113.8-203.0.113.11'))).toBe('203.0.113.8-203.0.113.11');
  expect(await read(await add('203.0.113.21/30'))).toBe('203.0.113.20/30');
  // no zone: lan has no IPv6 address, so a zone-bound v6 rule would have nothing to match
  const v6 = (await ok(c.post('/api/nat', { type: 'snat', 'translated-ip': '2001:DB8::a-2001:db8::0:f' }))).body.id as string;
  expect(await read(v6)).toBe('2001:db8::a-2001:db8::f');
  expect(await read(await add('203.0.113.9-203.0.113.9'))).toBe('203.0.113.9');
  const bad: Array<[string, RegExp]> = [
    ['203.0.113.11-203.0.113.8', /starts after it ends/],
    ['203.0.113.8-2001:db8::1', /mixes an IPv4 and an IPv6 address/],
    ['203.0.113.8-', /not a range of two IP addresses/],
    ['203.0.113.8/33', /not an IP address, a prefix or a range/],
  ];
  for (const [tip, why] of bad) {
    const e = expectError(await c.post('/api/nat', { type: 'snat', 'translated-ip': tip }), 400, 'ERR_NET_1001');
    expect(e.body.details).toMatch(/field "translated-ip"/);
    expect(e.body.details).toMatch(why);
  }
  const e = expectError(await c.post('/api/nat', { type: 'dnat-ip', 'translated-ip': '10.0.0.0/30' }), 400, 'ERR_NET_1001');
  expect(e.body.details).toMatch(/is a pool; a dnat-ip rule translates to one address/);
  // an edit that turns a pool's snat into a dnat is refused too, and changes nothing
  expectError(await c.put('/api/nat/3', { type: 'dnat-ip' }), 400, 'ERR_NET_1001');
  expect(await read('3')).toBe('203.0.113.8-203.0.113.11');
});

test('snat to a pool: eval answers its first address; the kernel gets the range', async () => {
  // rule 3 (the range) is first for lan: the prefix and v6 rules come after it
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  const out = (await ok(c.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'tcp', 'dst-port': 443 }))).body;
  expect(out.nat).toEqual({ id: 3, type: 'snat', translatedIP: '203.0.113.8', translatedPort: '' });
  const v6 = (await ok(c.post('/api/eval', { 'src-ip': '2001:db8:1::5', 'dst-ip': '2001:db8:2::1', protocol: 'udp', 'dst-port': 53, 'src-zone': 'lan', 'dst-zone': 'wan' }))).body;
  expect(v6.nat).toEqual({ id: 5, type: 'snat', translatedIP: '2001:db8::a', translatedPort: '' });
  await c.begin();
  await ok(c.post('/api/nat/4/move', { position: 'top' }));
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  const moved = (await ok(c.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'tcp', 'dst-port': 443 }))).body;
  expect(moved.nat).toEqual({ id: 4, type: 'snat', translatedIP: '203.0.113.20', translatedPort: '' });
  const doc = parseDoc((await ok(c.get('/api/config/versions/3'))).body.config);
  // the reference evaluator agrees, packet for packet, for both pools and both DNAT protocols
  const packets = [
    { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'tcp', 'dst-port': 443 },
    { 'src-ip': '2001:db8:1::5', 'dst-ip': '2001:db8:2::1', protocol: 'udp', 'dst-port': 53, 'src-zone': 'lan', 'dst-zone': 'wan' },
    DNS_TO('tcp'), DNS_TO('udp'),
  ];
  const batch = (await ok(c.post('/api/eval/batch', { packets }))).body.results;
  const ref = new ReferenceEvaluator(doc);
  packets.forEach((p, i) => expect({ i, ...batch[i] }).toEqual({ i, ...ref.eval(parsePacket(p)) }));
  expect(batch.map((a: { nat: { translatedIP: string } | null }) => a.nat?.translatedIP)).toEqual(['203.0.113.20', '2001:db8::a', '10.0.0.53', '10.0.0.53']);
  const nft = renderNft(doc);
  expect(nft).toMatch(/counter name "nat_3" snat ip to 203\.0\.113\.8-203\.0\.113\.11 comment "nat 3"/);
  expect(nft).toMatch(/counter name "nat_4" snat ip to 203\.0\.113\.20-203\.0\.113\.23 comment "nat 4"/);
  expect(nft).toMatch(/counter name "nat_5" snat ip6 to 2001:db8::a-2001:db8::f comment "nat 5"/);
  expect(nft).toMatch(/counter name "nat_6" snat ip to 203\.0\.113\.9 comment "nat 6"/);
});

test('persistent: an snat keeps one pool address per source; stored, read, exported and rendered only when set', async () => {
  await c.begin();
  const id = (await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'translated-ip': '203.0.113.32/29', persistent: true }))).body.id as string;
  expect((await ok(c.get(`/api/nat/${id}?config=candidate`))).body).toMatchObject({ translatedIP: '203.0.113.32/29', persistent: true });
  const masq = (await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'out-interface': 'eth0', persistent: true }))).body.id as string;
  // only an snat chooses an address per source
  const e = expectError(await c.post('/api/nat', { type: 'dnat-ip', 'translated-ip': '10.0.0.9', persistent: true }), 400, 'ERR_NET_1004');
  expect(e.body.details).toMatch(/field "persistent": only an snat rule picks an address per source \(this rule is dnat-ip\)/);
  expectError(await c.put(`/api/nat/${id}`, { type: 'dnat-ip', 'translated-ip': '10.0.0.9' }), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/nat', { type: 'snat', persistent: 'yes' }), 400, 'ERR_NET_1004');
  const exported = (await ok(c.get('/api/config/export?config=candidate'))).body;
  expect(exported.nat.find((n: { id: number }) => String(n.id) === id).persistent).toBe(true);
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  const version = (await ok(c.get('/api/status'))).body.version as number;
  const nft = renderNft(parseDoc((await ok(c.get(`/api/config/versions/${version}`))).body.config));
  expect(nft).toMatch(new RegExp(`snat ip to 203\\.0\\.113\\.32-203\\.0\\.113\\.39 persistent comment "nat ${id}"`));
  expect(nft).toMatch(new RegExp(`masquerade persistent comment "nat ${masq}"`));
  // turned off: gone from the read model and the kernel's text
  await c.begin();
  await ok(c.put(`/api/nat/${id}`, { persistent: false }));
  const off = (await ok(c.get(`/api/nat/${id}?config=candidate`))).body;
  expect(off.persistent).toBeUndefined();
  expect(Object.keys(off)).not.toContain('persistent');
  await ok(c.del(`/api/nat/${id}`));
  await ok(c.del(`/api/nat/${masq}`));
});
