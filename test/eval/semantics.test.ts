// eval.md's pipeline on hand-built configurations: every case is answered by the reference
// evaluator and by the compiled matchers (with default and with tiny-leaf build parameters),
// which must agree, and the answer is checked against what eval.md and docs/eval.md say.
import { FwError } from '../../src/errors';
import { DEFAULT_BUILD_PARAMS } from '../../src/eval/classifier';
import { CompiledConfig } from '../../src/eval/compiled';
import { evalBatch, parsePacket } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import type { EvalResult } from '../../src/eval/types';
import type { ConfigDoc } from '../../src/config/types';
import { mkDoc, type DocSpec, type JsonPacket } from './helpers';

const TINY = { ...DEFAULT_BUILD_PARAMS, binth: 1, maxBits: 2, rootBits: 2 };

function evaluators(doc: ConfigDoc) {
  return [new ReferenceEvaluator(doc), CompiledConfig.compile(doc), CompiledConfig.compile(doc, { params: TINY })];
}

/** Evaluates with all evaluators, checks they agree, returns the answer. */
function ev(spec: DocSpec, packet: JsonPacket): EvalResult {
  const doc = mkDoc(spec);
  const p = parsePacket(packet);
  const [ref, ...rest] = evaluators(doc);
  const want = ref.eval(p);
  for (const e of rest) expect(e.eval(p)).toEqual(want);
  return want;
}

const tcp = (src: string, dst: string, port: number, extra: JsonPacket = {}): JsonPacket => ({ 'src-ip': src, 'dst-ip': dst, protocol: 'tcp', 'dst-port': port, ...extra });

// a small office: lan and dmz behind eth1/eth2, the internet on eth0
const office: DocSpec = {
  zones: { lan: ['10.0.0.0/8'], dmz: ['10.1.0.0/16'], wan: [], empty: [] },
  interfaces: {
    eth0: { ip: '203.0.113.2/24', zone: 'wan' },
    eth1: { ip: '192.168.5.1/24', zone: 'lan' },
    eth2: { ip: '172.16.0.1/24', zone: 'dmz', state: 'down' },
    eth3: { ip: '10.1.2.1/24', zone: 'wan' },
    eth4: { ip: '198.18.0.1/24' },
  },
  vlans: { v100: { ip: '2001:db8:1::1/64', zone: 'lan', parent: 'eth1' } },
  addresses: { web: ['10.1.2.10/32', '2001:db8:1::10/128'], all4: ['0.0.0.0/0'], all6: ['::/0'] },
  services: { http: { protocol: 'tcp', ports: [80, '8000-8080'] }, edges: { protocol: 'udp', ports: [1, 65535] } },
  routes: [{ destination: '0.0.0.0/0', gateway: '203.0.113.1' }],
};

describe('source zone', () => {
  test('given src-zone wins over everything', () => {
    expect(ev(office, tcp('10.1.2.3', '203.0.113.9', 80, { 'src-zone': 'wan', 'in-interface': 'eth1' })).srcZone).toBe('wan');
  });
  test('then the zone of in-interface (even a down one)', () => {
    expect(ev(office, tcp('10.1.2.3', '203.0.113.9', 80, { 'in-interface': 'eth1' })).srcZone).toBe('lan');
    expect(ev(office, tcp('10.1.2.3', '203.0.113.9', 80, { 'in-interface': 'eth2' })).srcZone).toBe('dmz');
    expect(ev(office, tcp('10.1.2.3', '203.0.113.9', 80, { 'in-interface': 'v100' })).srcZone).toBe('lan');
  });
  test('an in-interface without a zone falls through to the networks', () => {
    expect(ev(office, tcp('10.1.2.3', '203.0.113.9', 80, { 'in-interface': 'eth4' })).srcZone).toBe('dmz');
  });
  test('then the zone whose networks hold src-ip most specifically', () => {
    expect(ev(office, tcp('10.1.2.3', '203.0.113.9', 80)).srcZone).toBe('dmz'); // /16 beats /8, and beats eth3's subnet
    expect(ev(office, tcp('10.9.9.9', '203.0.113.9', 80)).srcZone).toBe('lan');
  });
  test('then the zone of the up interface whose connected subnet holds src-ip', () => {
    expect(ev(office, tcp('192.168.5.7', '203.0.113.9', 80)).srcZone).toBe('lan');
    expect(ev(office, tcp('172.16.0.5', '203.0.113.9', 80)).srcZone).toBeNull(); // eth2 is down
    expect(ev(office, tcp('198.18.0.5', '203.0.113.9', 80)).srcZone).toBeNull(); // eth4 has no zone
    expect(ev(office, { 'src-ip': '2001:db8:1::5', 'dst-ip': '2001:db8:1::6', protocol: 'icmp' }).srcZone).toBe('lan');
  });
  test('else none', () => {
    expect(ev(office, tcp('8.8.8.8', '203.0.113.9', 80)).srcZone).toBeNull();
  });
});

describe('routes', () => {
  const base: DocSpec = {
    zones: { a: [], b: [] },
    interfaces: { eth0: { ip: '10.0.0.1/24', zone: 'a' }, eth1: { ip: '10.0.1.1/24', zone: 'b' }, eth2: { ip: '10.0.2.1/24', state: 'down' }, eth3: { ip: '2001:db8::1/64' } },
  };
  const route = (routes: DocSpec['routes'], dst: string) => ev({ ...base, routes }, tcp(dst.includes(':') ? '2001:db8::5' : '10.0.0.5', dst, 443));
  test('longest prefix wins', () => {
    const r = route([{ destination: '0.0.0.0/0', interface: 'eth0' }, { destination: '192.0.2.0/24', interface: 'eth1' }], '192.0.2.9');
    expect(r.route).toEqual({ id: 2, destination: '192.0.2.0/24' });
    expect(r.egressInterface).toBe('eth1');
    expect(r.dstZone).toBe('b');
  });
  test('equal prefixes: lower metric, then lower id', () => {
    expect(route([{ destination: '0.0.0.0/0', interface: 'eth0', metric: 5 }, { destination: '0.0.0.0/0', interface: 'eth1', metric: 1 }], '8.8.8.8').route?.id).toBe(2);
    expect(route([{ destination: '0.0.0.0/0', interface: 'eth1', metric: 1, id: 7 }, { destination: '0.0.0.0/0', interface: 'eth0', metric: 1, id: 3 }], '8.8.8.8').route?.id).toBe(3);
  });
  test('a connected subnet wins a tie with a static route', () => {
    const r = route([{ destination: '10.0.1.0/24', interface: 'eth0' }], '10.0.1.9');
    expect(r.route).toEqual({ id: null, destination: '10.0.1.0/24' });
    expect(r.egressInterface).toBe('eth1');
  });
  test('a route through a down interface, or a gateway outside up subnets, is unusable', () => {
    expect(route([{ destination: '0.0.0.0/0', interface: 'eth2' }], '8.8.8.8').reason).toBe('no-route');
    expect(route([{ destination: '0.0.0.0/0', gateway: '10.0.2.254' }], '8.8.8.8').reason).toBe('no-route');
    expect(route([{ destination: '0.0.0.0/0', gateway: '10.9.9.9' }], '8.8.8.8').reason).toBe('no-route');
    expect(route([{ destination: '10.0.2.0/24', interface: 'eth0' }], '10.0.2.7').route?.id).toBe(1); // eth2 routes nothing
  });
  test('a gateway route leaves through the interface whose subnet holds the gateway', () => {
    const r = route([{ destination: '0.0.0.0/0', gateway: '10.0.1.254' }], '8.8.8.8');
    expect(r.egressInterface).toBe('eth1');
    expect(r.dstZone).toBe('b');
  });
  test('IPv6: /0, /128 and connected', () => {
    const routes = [{ destination: '::/0', interface: 'eth0' }, { destination: '2001:db8:9::7/128', interface: 'eth1' }];
    expect(route(routes, '2001:db8:9::7').route).toEqual({ id: 2, destination: '2001:db8:9::7/128' });
    expect(route(routes, '2001:db8:9::8').route).toEqual({ id: 1, destination: '::/0' });
    expect(route(routes, '2001:db8::99').route).toEqual({ id: null, destination: '2001:db8::/64' });
  });
  test('an IPv4 route never serves IPv6', () => {
    expect(route([{ destination: '0.0.0.0/0', interface: 'eth0' }], '2001:db9::1').reason).toBe('no-route');
  });
  test('no route: deny, reason no-route, no policy consulted; with dst-zone given the policy decides', () => {
    const spec = { ...base, policies: [{ action: 'allow' as const }] };
    const r = ev(spec, tcp('10.0.0.5', '8.8.8.8', 80));
    expect(r).toEqual({ action: 'deny', reason: 'no-route', srcZone: 'a', dstZone: null, egressInterface: null, route: null, nat: null, policy: null });
    const pinned = ev(spec, tcp('10.0.0.5', '8.8.8.8', 80, { 'dst-zone': 'b' }));
    expect(pinned).toMatchObject({ action: 'allow', reason: 'policy', dstZone: 'b', route: null, policy: { id: 1 } });
  });
  test('destination zone: the egress interface zone, else the zone networks, else none; dst-zone overrides', () => {
    const spec: DocSpec = { ...base, zones: { a: [], b: [], far: ['8.8.0.0/16'] }, interfaces: { ...base.interfaces, eth4: { ip: '192.0.2.1/24' } }, routes: [{ destination: '0.0.0.0/0', interface: 'eth4' }] };
    expect(ev(spec, tcp('10.0.0.5', '8.8.8.8', 80)).dstZone).toBe('far');
    expect(ev(spec, tcp('10.0.0.5', '9.9.9.9', 80)).dstZone).toBeNull();
    expect(ev(spec, tcp('10.0.0.5', '10.0.1.9', 80)).dstZone).toBe('b');
    expect(ev(spec, tcp('10.0.0.5', '10.0.1.9', 80, { 'dst-zone': 'far' })).dstZone).toBe('far');
  });
});

describe('policies', () => {
  const spec = (policies: DocSpec['policies']): DocSpec => ({ ...office, policies });
  test('first match, top to bottom; no match is default-deny', () => {
    const s = spec([
      { action: 'deny', srcZone: 'lan', dstZone: 'wan', services: ['http'], log: true },
      { action: 'allow', srcZone: 'lan', dstZone: 'wan' },
    ]);
    expect(ev(s, tcp('10.9.9.9', '8.8.8.8', 8080)).policy).toEqual({ id: 1, action: 'deny', log: true });
    expect(ev(s, tcp('10.9.9.9', '8.8.8.8', 443))).toMatchObject({ action: 'allow', reason: 'policy', policy: { id: 2, action: 'allow', log: false } });
    expect(ev(s, tcp('8.8.8.8', '10.9.9.9', 443, { 'dst-zone': 'lan' }))).toMatchObject({ action: 'deny', reason: 'default-deny', policy: null });
  });
  test('any zone and any address match a packet whose zone is none', () => {
    const s = spec([{ action: 'allow', srcZone: 'lan' }, { action: 'deny' }]);
    const r = ev(s, tcp('8.8.4.4', '8.8.8.8', 1));
    expect(r.srcZone).toBeNull();
    expect(r.policy?.id).toBe(2);
  });
  test('a zone with no members matches only when given', () => {
    const s = spec([{ action: 'allow', srcZone: 'empty' }]);
    expect(ev(s, tcp('10.9.9.9', '8.8.8.8', 80)).reason).toBe('default-deny');
    expect(ev(s, tcp('10.9.9.9', '8.8.8.8', 80, { 'src-zone': 'empty' })).policy?.id).toBe(1);
  });
  test('ports 1 and 65535, ranges, and protocols', () => {
    const s = spec([{ action: 'allow', services: ['edges'] }, { action: 'allow', services: ['http'] }, { action: 'deny', services: [] }]);
    const udp = (port: number) => ev(s, { 'src-ip': '10.9.9.9', 'dst-ip': '8.8.8.8', protocol: 'udp', 'dst-port': port }).policy?.id;
    expect([udp(1), udp(65535), udp(2), udp(65534), udp(0)]).toEqual([1, 1, 3, 3, 3]);
    const t = (port: number, protocol: string | number = 'tcp') => ev(s, { 'src-ip': '10.9.9.9', 'dst-ip': '8.8.8.8', protocol, 'dst-port': port }).policy?.id;
    expect([t(80), t(79), t(8000), t(8080), t(8081), t(7999), t(80, 6), t(80, 17)]).toEqual([2, 3, 2, 2, 3, 3, 2, 3]);
    expect(ev(s, { 'src-ip': '10.9.9.9', 'dst-ip': '8.8.8.8', protocol: 'icmp' }).policy?.id).toBe(3); // icmp never matches tcp/udp
    expect(ev(s, { 'src-ip': '10.9.9.9', 'dst-ip': '8.8.8.8', protocol: 47, 'dst-port': 80 }).policy?.id).toBe(3);
  });
  test('/0 and /32 and /128 address objects, per family', () => {
    const s: DocSpec = { ...office, vlans: {}, interfaces: { ...office.interfaces, eth5: { ip: '2001:db8::1/32', zone: 'wan' } }, policies: [{ action: 'deny', dstAddr: 'web' }, { action: 'allow', srcAddr: 'all4' }, { action: 'allow', srcAddr: 'all6', log: true }] };
    expect(ev(s, tcp('10.9.9.9', '10.1.2.10', 80, { 'dst-zone': 'dmz' })).policy?.id).toBe(1);
    expect(ev(s, tcp('10.9.9.9', '10.1.2.11', 80, { 'dst-zone': 'dmz' })).policy?.id).toBe(2);
    expect(ev(s, tcp('2001:db8::5', '2001:db8:1::10', 80)).policy?.id).toBe(1);
    expect(ev(s, tcp('2001:db8::5', '2001:db8:1::11', 80)).policy?.id).toBe(3);
  });
});

describe('NAT', () => {
  const nat: DocSpec = {
    ...office,
    interfaces: { ...office.interfaces, eth3: { ip: '10.1.2.1/24', zone: 'dmz' } },
    addresses: { ...office.addresses, pub: ['203.0.113.80/32'], pub2: ['203.0.113.81/32'] },
    policies: [
      { action: 'allow', srcZone: 'lan', dstZone: 'wan' },
      { action: 'allow', srcZone: 'wan', dstZone: 'dmz', dstAddr: 'pub', services: ['http'] },
      { action: 'deny', srcZone: 'lan', dstZone: 'dmz' },
      { action: 'allow', srcZone: 'wan' },
    ],
    nat: [
      { type: 'dnat-ip', translatedIp: '2001:db8:1::10', dstAddr: 'pub' }, // IPv6: skipped for IPv4 packets
      { type: 'dnat-port', srcZone: 'wan', dstAddr: 'pub', service: 'http', translatedIp: '10.1.2.10', translatedPort: '80' },
      { type: 'snat', srcZone: 'lan', outInterface: 'eth0' },
      { type: 'snat', srcZone: 'lan', translatedIp: '198.51.100.7' },
      { type: 'dnat-ip', dstAddr: 'pub2', translatedIp: '172.16.0.10' }, // behind the down eth2
    ],
  };
  test('masquerade takes the egress interface address, only for allowed packets', () => {
    const r = ev(nat, tcp('192.168.5.7', '8.8.8.8', 443));
    expect(r).toMatchObject({ action: 'allow', egressInterface: 'eth0', dstZone: 'wan', nat: { id: 3, type: 'snat', translatedIP: '203.0.113.2', translatedPort: '' } });
  });
  test('out-interface must be the egress interface, else the next rule applies', () => {
    const r = ev(nat, tcp('192.168.5.7', '10.1.2.99', 443, { 'dst-zone': 'wan' }));
    expect(r).toMatchObject({ action: 'allow', egressInterface: 'eth3', policy: { id: 1 }, nat: { id: 4, translatedIP: '198.51.100.7' } });
  });
  test('snat is not applied to a denied packet', () => {
    const r = ev(nat, tcp('192.168.5.7', '10.1.2.99', 443));
    expect(r).toMatchObject({ action: 'deny', dstZone: 'dmz', policy: { id: 3 }, nat: null });
  });
  test('dnat-port: new destination, route and zone follow it, the policy sees the original address', () => {
    const r = ev(nat, tcp('8.8.8.8', '203.0.113.80', 8080, { 'in-interface': 'eth0' }));
    expect(r).toEqual({
      action: 'allow',
      reason: 'policy',
      srcZone: 'wan',
      dstZone: 'dmz',
      egressInterface: 'eth3',
      route: { id: null, destination: '10.1.2.0/24' },
      nat: { id: 2, type: 'dnat-port', translatedIP: '10.1.2.10', translatedPort: '80' },
      policy: { id: 2, action: 'allow', log: false },
    });
  });
  test('the NAT service is matched on the original port', () => {
    const r = ev(nat, tcp('8.8.8.8', '203.0.113.80', 443, { 'in-interface': 'eth0' }));
    expect(r).toMatchObject({ dstZone: 'wan', egressInterface: 'eth0', nat: null, policy: { id: 4 } });
  });
  test('a dnat whose new destination has no route: no-route, and nat names the rule', () => {
    const r = ev({ ...nat, routes: [] }, tcp('8.8.8.8', '203.0.113.81', 22, { 'in-interface': 'eth0' }));
    expect(r).toEqual({ action: 'deny', reason: 'no-route', srcZone: 'wan', dstZone: null, egressInterface: null, route: null, nat: { id: 5, type: 'dnat-ip', translatedIP: '172.16.0.10', translatedPort: '' }, policy: null });
  });
  test('a dnat shows even when the policy denies', () => {
    const spec: DocSpec = { ...nat, policies: [] };
    expect(ev(spec, tcp('8.8.8.8', '203.0.113.80', 80, { 'in-interface': 'eth0' }))).toMatchObject({ reason: 'default-deny', nat: { id: 2 } });
  });
  test('an IPv6 packet takes an IPv6 dnat', () => {
    const spec: DocSpec = { ...nat, addresses: { ...nat.addresses, pub: ['2001:db8:1::80/128', '203.0.113.80/32'] } };
    const r = ev(spec, tcp('2001:db8:1::5', '2001:db8:1::80', 80));
    expect(r).toMatchObject({ nat: { id: 1, translatedIP: '2001:db8:1::10' }, route: { id: null, destination: '2001:db8:1::/64' } });
  });
});

describe('packets that name unknown things', () => {
  const doc = mkDoc(office);
  test.each([
    [{ 'in-interface': 'eth9' }, 'in-interface: unknown interface or VLAN "eth9"'],
    [{ 'src-zone': 'nope' }, 'src-zone: unknown zone "nope"'],
    [{ 'dst-zone': 'nope' }, 'dst-zone: unknown zone "nope"'],
  ])('%j is ERR_NET_2003 from every evaluator', (extra, details) => {
    const p = parsePacket(tcp('10.0.0.1', '10.0.0.2', 80, extra));
    for (const e of evaluators(doc)) {
      expect(() => e.eval(p)).toThrow(FwError);
      try {
        e.eval(p);
      } catch (err) {
        expect(err).toMatchObject({ code: 'ERR_NET_2003', details });
      }
    }
  });
  test('a batch names the index of the offending packet', () => {
    const packets = [tcp('10.0.0.1', '10.0.0.2', 80), tcp('10.0.0.1', '10.0.0.2', 80, { 'src-zone': 'nope' })].map((j) => parsePacket(j));
    const cc = CompiledConfig.compile(doc);
    expect(() => cc.evalBatch(packets)).toThrow(expect.objectContaining({ code: 'ERR_NET_2003', details: 'packets[1].src-zone: unknown zone "nope"' }));
    expect(evalBatch(cc, packets.slice(0, 1))).toHaveLength(1);
  });
});
