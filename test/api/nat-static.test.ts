// Issue 41 item 3 over HTTP: two-way static NAT as one rule {type: "static", src-addr: inside,
// translated-ip: outside}: eval in both directions (a host and a prefix mapped host by host),
// the reference evaluator agreeing, the analysis, the nft text, validation and the commit check.
import { parseDoc } from '../../src/config/document';
import { renderNft } from '../../src/dataplane/nft';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { parsePacket } from '../../src/eval/packet';
import { expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';
import { deepResult } from '../helpers/eval-checks';

const c = useDaemon().client;

beforeAll(async () => {
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/addresses', { name: 'web', ips: ['10.0.0.5/32'] }));
  await ok(c.post('/api/addresses', { name: 'dmz', ips: ['10.0.0.16/28'] }));
  await ok(c.post('/api/addresses', { name: 'two', ips: ['10.0.0.5/32', '10.0.0.6/32'] }));
  await ok(c.post('/api/addresses', { name: 'peers', ips: ['198.51.100.0/24'] }));
  await ok(c.post('/api/services', { name: 'ssh', protocol: 'tcp', ports: [22] }));
  await ok(c.post('/api/policies', { action: 'allow' }));
});

const OUT = { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'tcp', 'dst-port': 443 };
const IN = { 'src-ip': '198.51.100.7', 'dst-ip': '203.0.113.50', protocol: 'tcp', 'dst-port': 22, 'in-interface': 'eth0' };
const evalOf = async (p: object) => (await ok(c.post('/api/eval', p))).body;

test('one static rule translates the inside host outbound and the outside address inbound', async () => {
  const r = expectMessage(
    await c.post('/api/nat', { type: 'static', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'web', 'translated-ip': '203.0.113.50' }),
    'NAT rule added in candidate',
  );
  expect(r.body.id).toBe('1');
  const read = (await ok(c.get('/api/nat/1?config=candidate'))).body;
  expect(read).toMatchObject({ type: 'static', srcAddress: 'web', translatedIP: '203.0.113.50', translatedPort: '', service: '' });
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  const out = await evalOf(OUT);
  expect(out.nat).toEqual({ id: 1, type: 'static', translatedIP: '203.0.113.50', translatedPort: '', translates: 'source' });
  expect(out.dstZone).toBe('wan');
  const inbound = await evalOf(IN);
  expect(inbound.nat).toEqual({ id: 1, type: 'static', translatedIP: '10.0.0.5', translatedPort: '', translates: 'destination' });
  expect(inbound.dstZone).toBe('lan');
  expect(inbound.route).toEqual({ id: null, destination: '10.0.0.0/24' });
  // another inside host is not translated; an inbound packet from lan (not the rule's dst-zone) neither
  expect((await evalOf({ ...OUT, 'src-ip': '10.0.0.6' })).nat).toBeNull();
  expect((await evalOf({ ...IN, 'src-ip': '10.0.0.9', 'in-interface': 'eth1' })).nat).toBeNull();
  // the type filter
  expect((await ok(c.get('/api/nat?type=static'))).body.map((n: { id: number }) => n.id)).toEqual([1]);
  expect((await ok(c.get('/api/nat?type=dnat'))).body).toEqual([]);
});

test('a prefix maps to a prefix of the same size host by host; the reference evaluator and nft agree', async () => {
  await c.begin();
  // dst-addr narrows the peers: outbound destinations, inbound sources
  await ok(c.post('/api/nat', { type: 'static', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'dmz', 'dst-addr': 'peers', 'translated-ip': '203.0.113.64/28' }));
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  const packets = [
    OUT, IN,
    { ...OUT, 'src-ip': '10.0.0.20', 'dst-ip': '198.51.100.9' },
    { ...OUT, 'src-ip': '10.0.0.20' }, // not to a peer: no translation
    { ...IN, 'dst-ip': '203.0.113.77' },
    { ...IN, 'src-ip': '192.0.2.1', 'dst-ip': '203.0.113.77' }, // not from a peer
    { ...IN, protocol: 'udp', 'dst-port': 53 },
  ];
  const batch = (await ok(c.post('/api/eval/batch', { packets }))).body.results;
  const doc = parseDoc((await ok(c.get('/api/config/versions/2'))).body.config);
  const ref = new ReferenceEvaluator(doc);
  packets.forEach((p, i) => expect({ i, ...batch[i] }).toEqual({ i, ...ref.eval(parsePacket(p)) }));
  expect(batch.map((a: { nat: { translatedIP: string; translates: string } | null }) => (a.nat ? `${a.nat.translates} ${a.nat.translatedIP}` : null))).toEqual([
    'source 203.0.113.50', 'destination 10.0.0.5', 'source 203.0.113.68', null, 'destination 10.0.0.29', null, 'destination 10.0.0.5',
  ]);
  const nft = renderNft(doc);
  expect(nft).toMatch(/ip saddr 10\.0\.0\.5 return comment "nat 1: static outbound, in postrouting"/);
  expect(nft).toMatch(/ip daddr 203\.0\.113\.50 counter name "nat_1" dnat ip to 10\.0\.0\.5 comment "nat 1"/);
  expect(nft).toMatch(/ip saddr 10\.0\.0\.5 counter name "nat_1" snat ip to 203\.0\.113\.50 comment "nat 1"/);
  expect(nft).toMatch(/ip daddr 203\.0\.113\.64\/28 counter name "nat_2" dnat ip prefix to ip daddr map \{ 203\.0\.113\.64\/28 : 10\.0\.0\.16\/28 \} comment "nat 2"/);
  expect(nft).toMatch(/ip saddr 10\.0\.0\.16\/28 counter name "nat_2" snat ip prefix to ip saddr map \{ 10\.0\.0\.16\/28 : 203\.0\.113\.64\/28 \} comment "nat 2"/);
});

test('the analysis: a static rule whose both directions earlier rules take is unreachable', async () => {
  await c.begin();
  await ok(c.post('/api/nat', { type: 'static', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'web', 'translated-ip': '203.0.113.50', name: 'again' }));
  // only the outbound half taken (web leaves as rule 1 says): reachable, inbound to .99 is its own
  await ok(c.post('/api/nat', { type: 'static', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'web', 'translated-ip': '203.0.113.99' }));
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  const a = (await deepResult(c, 3)).body;
  expect(a.unreachableNat).toEqual([{ id: 3, coveredBy: [1] }]);
  await c.begin();
  await ok(c.del('/api/nat/3'));
  await ok(c.del('/api/nat/4'));
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
});

test('validation: what a static rule needs and refuses, each with its code and field', async () => {
  await c.begin();
  const base = { type: 'static', 'src-addr': 'web', 'translated-ip': '203.0.113.51' };
  const cases: Array<[object, string, RegExp]> = [
    [{ ...base, 'src-addr': undefined }, 'ERR_NET_1004', /field "src-addr": required for a static rule/],
    [{ ...base, service: 'ssh' }, 'ERR_NET_1004', /field "service": a static rule translates whole addresses/],
    [{ ...base, 'translated-port': '22' }, 'ERR_NET_1004', /field "translated-port"/],
    [{ ...base, 'out-interface': 'eth0' }, 'ERR_NET_1004', /field "out-interface"/],
    [{ ...base, 'translated-ip': undefined }, 'ERR_NET_1004', /field "translated-ip": required for a static rule/],
    [{ ...base, 'translated-ip': '203.0.113.8-203.0.113.9' }, 'ERR_NET_1001', /is a range; a static rule maps to one address or one prefix/],
    [{ ...base, 'translated-ip': '203.0.113.0/28' }, 'ERR_NET_1001', /src-addr web \(10\.0\.0\.5\/32\) is a \/32 and translated-ip 203\.0\.113\.0\/28 a \/28/],
    [{ ...base, 'src-addr': 'two' }, 'ERR_NET_1001', /src-addr two holds 2 networks; a static rule maps exactly one/],
    [{ ...base, 'translated-ip': '2001:db8::5' }, 'ERR_NET_1001', /of different families/],
  ];
  for (const [body, code, why] of cases) {
    const e = expectError(await c.post('/api/nat', body), 400, code);
    expect(e.body.details).toMatch(why);
  }
  // a /23 is more than a static rule maps (256 addresses)
  await ok(c.post('/api/addresses', { name: 'big', ips: ['10.8.0.0/23'] }));
  const big = expectError(await c.post('/api/nat', { ...base, 'src-addr': 'big', 'translated-ip': '203.0.112.0/23' }), 400, 'ERR_NET_1001');
  expect(big.body.details).toMatch(/a static rule maps at most 256 addresses/);
  // an edit that turns the host rule into a prefix-sized one is refused and changes nothing
  expectError(await c.put('/api/nat/1', { 'translated-ip': '203.0.113.48/28' }), 400, 'ERR_NET_1001');
  expect((await ok(c.get('/api/nat/1?config=candidate'))).body.translatedIP).toBe('203.0.113.50');
  // the inside address object edited afterwards: the commit names the rule
  await ok(c.put('/api/addresses/web', { ips: ['10.0.0.0/30'] }));
  const e = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  expect(e.body.details).toContain('nat 1: src-addr web (10.0.0.0/30) is a /30 and translated-ip 203.0.113.50 a /32');
  await ok(c.put('/api/addresses/web', { ips: ['10.0.0.5/32'] }));
  await ok(c.del('/api/addresses/big'));
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
});
