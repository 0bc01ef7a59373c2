// The pure rendering of the data plane, without a kernel: flattened ranges, the address
// functions of topology.ts against the reference evaluator (eval.md), the routes a kernel gets,
// and the texts of the nft script, the ip commands and the dnsmasq configuration.
import fc from 'fast-check';
import { parseIp, type Family } from '../../src/config/net';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { parsePacket } from '../../src/eval/packet';
import { bytesToBig, cidrRange, flatten, formatRange, overlay, union, type Seg } from '../../src/dataplane/ranges';
import { Topology } from '../../src/dataplane/topology';
import { renderPlan, planProblems } from '../../src/dataplane/plan';
import { stableId } from '../../src/dataplane/nft-sets';
import { commitChecks } from '../../src/config/commit-checks';
import { addrArb, mkDoc, specArb, specDoc } from '../eval/helpers';

function lookup<V>(segs: Seg<V>[], family: Family, ip: string): V | null {
  const v = bytesToBig(parseIp(ip)!.bytes);
  void family;
  const s = segs.find((x) => x.lo <= v && v <= x.hi);
  return s ? s.value : null;
}

describe('ranges', () => {
  const c = (t: string) => {
    const [ip, len] = t.split('/');
    const p = parseIp(ip)!;
    return { family: p.family, bytes: p.bytes, prefix: Number(len) };
  };

  test('most specific prefix wins, then rank; adjacent equal values merge', () => {
    const segs = flatten(4, [
      { net: c('10.0.0.0/8'), rank: [-8], value: 'a' },
      { net: c('10.1.0.0/16'), rank: [-16], value: 'b' },
      { net: c('10.1.0.0/16'), rank: [-16, 1], value: 'c' },
      { net: c('11.0.0.0/8'), rank: [-8], value: 'a' },
    ]);
    expect(segs.map((s) => `${formatRange(4, s.lo, s.hi)}=${s.value}`)).toEqual([
      '10.0.0.0/16=a', '10.1.0.0/16=b', '10.2.0.0-11.255.255.255=a',
    ]);
  });

  test('overlay fills only the gaps of the primary; union merges overlaps; IPv6 ranges', () => {
    const primary = flatten(4, [{ net: c('10.0.0.0/24'), rank: [], value: 'p' }]);
    const fallback = flatten(4, [{ net: c('10.0.0.0/23'), rank: [], value: 'f' }]);
    expect(overlay(primary, fallback).map((s) => `${formatRange(4, s.lo, s.hi)}=${s.value}`)).toEqual(['10.0.0.0/24=p', '10.0.1.0/24=f']);
    expect(union(4, [c('10.0.0.0/24'), c('10.0.0.128/25'), c('10.0.1.0/24')]).map(([lo, hi]) => formatRange(4, lo, hi))).toEqual(['10.0.0.0/23']);
    const [lo, hi] = cidrRange(c('2001:db8::/64'));
    expect(formatRange(6, lo, hi)).toBe('2001:db8::/64');
    expect(formatRange(6, lo, lo + 2n)).toBe('2001:db8::-2001:db8::2');
    expect(formatRange(4, 0n, 0n)).toBe('0.0.0.0');
  });
});

describe('the address functions are eval.md\'s', () => {
  // NAT aside (the nft rules apply it), source zone, destination zone and route of an address
  // are what the reference evaluator answers, and the kernel's longest-prefix match over the
  // connected subnets and the rendered routes picks the egress eval picks
  test('random configurations and addresses', () => {
    fc.assert(fc.property(specArb(), fc.array(fc.tuple(addrArb(4), addrArb(4)), { minLength: 20, maxLength: 20 }),
      fc.array(fc.tuple(addrArb(6), addrArb(6)), { minLength: 10, maxLength: 10 }), (spec, v4, v6) => {
        const doc = specDoc(spec);
        doc.nat = [];
        const ref = new ReferenceEvaluator(doc);
        const topo = new Topology(doc);
        const kroutes = topo.kernelRoutes();
        // what the kernel gets is only compared for documents a commit accepts
        const committable = commitChecks(doc).length === 0 && planProblems(doc).length === 0;
        for (const [family, pairs] of [[4, v4], [6, v6]] as Array<[Family, Array<[string, string]>]>) {
          const src = topo.sourceZoneSegments(family);
          const dst = topo.destinationZoneSegments(family);
          const route = topo.routeSegments(family);
          for (const [s, d] of pairs) {
            const a = ref.eval(parsePacket({ 'src-ip': s, 'dst-ip': d, protocol: 'icmp' }));
            // issue 41: a packet to the firewall itself, a broadcast or multicast is not routed:
            // eval answers no route for it, and the address functions are about forwarding
            if (a.reason === 'local-policy' || a.reason === 'broadcast' || a.reason === 'multicast') continue;
            const got = {
              srcZone: lookup(src, family, s), dstZone: lookup(dst, family, d), egress: lookup(route, family, d),
              kernel: committable ? kernelEgress(topo, kroutes, d) : a.egressInterface,
            };
            expect(got).toEqual({ srcZone: a.srcZone, dstZone: a.dstZone, egress: a.egressInterface, kernel: a.egressInterface });
          }
        }
      }), { numRuns: 150 });
  });
});

/** Longest-prefix match over the up links' connected subnets and the kernel routes (connected first). */
function kernelEgress(topo: Topology, routes: ReturnType<Topology['kernelRoutes']>, ip: string): string | null {
  const a = parseIp(ip)!;
  const v = bytesToBig(a.bytes);
  let best: { prefix: number; connected: boolean; dev: string } | null = null;
  const consider = (net: { family: Family; bytes: Uint8Array; prefix: number }, connected: boolean, dev: string) => {
    if (net.family !== a.family) return;
    const [lo, hi] = cidrRange(net);
    if (v < lo || v > hi) return;
    if (!best || net.prefix > best.prefix || (net.prefix === best.prefix && connected && !best.connected)) best = { prefix: net.prefix, connected, dev };
  };
  for (const l of topo.links) if (l.up) for (const c of l.cidrs) consider(c.subnet, true, l.name);
  for (const r of routes) consider(r.destination, false, r.dev);
  return best === null ? null : (best as { dev: string }).dev;
}

describe('rendered texts: several zones per rule (issue 41)', () => {
  const doc = mkDoc({
    zones: { lan: [], dmz: [], wan: [] },
    interfaces: { eth0: { ip: '10.1.0.1/24', zone: 'lan' }, eth1: { ip: '10.2.0.1/24', zone: 'dmz' }, eth2: { ip: '10.3.0.1/24', zone: 'wan' } },
    policies: [
      { action: 'allow', srcZone: ['lan', 'dmz'], dstZone: 'wan' },
      { action: 'deny', srcZone: ['dmz', 'lan'], dstZone: ['wan', 'dmz'] },
      { action: 'allow', srcZone: 'lan' },
    ],
    nat: [{ type: 'snat', srcZone: ['lan', 'dmz'], outInterface: 'eth2' }],
  });
  const lines = renderPlan(doc, { leaseFile: '/x/leases', counters: new Map(), version: 1 }).nft.split('\n').map((l) => l.trim());

  test('a list is one set of its zones\' addresses, shared by the lists of the same zones; each rule stays one rule', () => {
    const both = stableId('dmz\nlan');
    expect(lines).toContain(`set srczones4_${both} { type ipv4_addr; flags interval; elements = { 10.1.0.0/24, 10.2.0.0/24 } }`);
    expect(lines).toContain(`set dstzones4_${stableId('dmz\nwan')} { type ipv4_addr; flags interval; elements = { 10.2.0.0/24, 10.3.0.0/24 } }`);
    expect(lines.filter((l) => l.startsWith('set srczones4_'))).toHaveLength(1);
    const ruleOf = (counter: string) => lines.filter((l) => l.includes(`counter name "${counter}"`));
    // (a set of one element, wan's, is written into the rule)
    expect(ruleOf('policy_1')).toEqual([expect.stringMatching(new RegExp(`^ct original ip saddr @srczones4_${both} ct reply ip saddr 10\\.3\\.0\\.0/24 counter`))]);
    expect(ruleOf('policy_2')).toEqual([expect.stringMatching(new RegExp(`^ct original ip saddr @srczones4_${both} ct reply ip saddr @dstzones4_`))]);
    // one zone: as before
    expect(ruleOf('policy_3')).toEqual([expect.stringMatching(/^ct original ip saddr 10\.1\.0\.0\/24 counter/)]);
    expect(ruleOf('nat_1')).toEqual([expect.stringMatching(new RegExp(`ip saddr @srczones4_${both} .*masquerade`))]);
  });
});

describe('rendered texts', () => {
  const doc = mkDoc({
    zones: { lan: [], wan: ['172.16.0.0/12'] },
    interfaces: { eth0: { ip: '10.1.0.1/24', zone: 'lan' }, eth1: { ip: '10.2.0.1/24', zone: 'wan' }, eth2: { ip: 'fd00::1/64', state: 'down' } },
    vlans: { 'eth0.7': { ip: '10.7.0.1/24', zone: 'lan', parent: 'eth0', id: 7 } },
    addresses: { web: ['10.2.0.0/24', '10.2.0.5/32', '2001:db8::/64'] },
    services: { http: { protocol: 'tcp', ports: [80, '8000-8080', '8080-8090'] }, dns: { protocol: 'udp', ports: [53] } },
    routes: [
      { destination: '172.16.2.0/24', gateway: '10.2.0.2', metric: 5 },
      { destination: '172.16.2.0/24', interface: 'eth0', metric: 1 },
      { destination: '10.2.0.0/24', interface: 'eth0' }, // a connected subnet wins: never in the kernel
      { destination: '192.168.0.0/16', interface: 'eth1', gateway: '10.9.9.9' },
    ],
    policies: [
      { action: 'allow', srcZone: 'lan', dstZone: 'wan', dstAddr: 'web', services: ['http', 'dns'], log: true },
      { action: 'deny' },
    ],
    nat: [
      { type: 'dnat-port', srcZone: 'wan', service: 'dns', translatedIp: '10.1.0.10', translatedPort: '5353' },
      { type: 'snat', srcZone: 'lan', outInterface: 'eth1' },
      { type: 'snat', srcZone: 'lan', translatedIp: '10.2.0.99' },
    ],
  });
  doc.interfaces.get('eth0')!.management = ['ping', 'ssh'];
  doc.dhcp.set('eth0', { interface: 'eth0', startIp: '10.1.0.100', endIp: '10.1.0.200', gateway: '10.1.0.1', dns: ['9.9.9.9'], leaseTime: 90 });
  const plan = renderPlan(doc, { leaseFile: '/x/leases', counters: new Map([[1, { packets: 5, bytes: 300 }]]), version: 7 });

  test('nft: one table replaced in one transaction, policies in order with counters, log, and original addresses', () => {
    const lines = plan.nft.split('\n').map((l) => l.trim());
    // sets are named by what they hold (their object's name), never by position
    const [lan, wan, http, eth1] = ['lan', 'wan', 'http', 'eth1'].map(stableId);
    expect(lines.slice(1, 4)).toEqual(['table inet fwdaemon', 'delete table inet fwdaemon', 'table inet fwdaemon {']);
    expect(lines).toContain('counter policy_1 { packets 5 bytes 300 }');
    expect(lines).toContain('counter policy_2 { packets 0 bytes 0 }');
    // a set of one element is written into the rule; sets are shared by content
    expect(plan.nft).not.toMatch(/set addr4_/);
    expect(lines).toContain(`set ports_${http} { type inet_service; flags interval; elements = { 80, 8000-8090 } }`);
    // no IPv6 set: the policy's zones have no IPv6 addresses, so it has no IPv6 rule
    expect(plan.nft).not.toMatch(/ipv6_addr/);
    // the route to 172.16.2.0/24 leaves through eth0 (lan), so it is not in the wan zone
    expect(lines).toContain(`set dstzone4_${wan} { type ipv4_addr; flags interval; elements = { 10.2.0.0/24, 172.16.0.0/23, 172.16.3.0-172.31.255.255, 192.168.0.0/16 } }`);
    const chainOf = (name: string) => {
      const from = lines.indexOf(`chain ${name} {`);
      return lines.slice(from + 1, lines.indexOf('}', from));
    };
    // the forward chain: admit, then the policies' chains (one here: neither id 1 nor 2 ends a chain)
    expect(chainOf('forward')).toEqual(['type filter hook forward priority filter; policy drop;', 'jump admit', 'jump pol_end']);
    expect(chainOf('admit')).toEqual([
      'ct state invalid drop',
      'ct state related accept',
      // version 7: generation 8 (marks.ts); older connections are judged again (rematch)
      'ct state established ct mark and 0xfff00000 == 0x00800000 accept',
      'ct state established ct mark set 0xffffffff',
    ]);
    expect(chainOf('pol_end')).toEqual([
      // a logged policy: its first packet to the traffic log (NFLOG, rate limited), then its verdict
      `ct original ip saddr @srczone4_${lan} ct reply ip saddr @dstzone4_${wan} ct original ip daddr 10.2.0.0/24 meta l4proto tcp ct original proto-dst @ports_${http} ct state new ct label != 127 limit rate 5000/second burst 1000 packets ct label set 127 log group 100 prefix "fwd policy 1 allow"`,
      `ct original ip saddr @srczone4_${lan} ct reply ip saddr @dstzone4_${wan} ct original ip daddr 10.2.0.0/24 meta l4proto tcp ct original proto-dst @ports_${http} counter name "policy_1" ct mark set 0x00000001 goto stamp`,
      `ct original ip saddr @srczone4_${lan} ct reply ip saddr @dstzone4_${wan} ct original ip daddr 10.2.0.0/24 meta l4proto udp ct original proto-dst 53 ct state new ct label != 127 limit rate 5000/second burst 1000 packets ct label set 127 log group 100 prefix "fwd policy 1 allow"`,
      `ct original ip saddr @srczone4_${lan} ct reply ip saddr @dstzone4_${wan} ct original ip daddr 10.2.0.0/24 meta l4proto udp ct original proto-dst 53 counter name "policy_1" ct mark set 0x00000001 goto stamp`,
      'counter name "policy_2" drop',
    ]);
    // the version's generation is added in one rule, which names the table's digest
    expect(chainOf('stamp')).toEqual([expect.stringMatching(/^ct mark set ct mark or 0x00800000 accept comment "fwd table [0-9a-f]{32}"$/)]);
    // the default deny logs nothing unless FW_LOG_DEFAULT_DENY=on
    expect(plan.nft).not.toMatch(/fwd default deny/);
    // a DNAT'd connection's original destination, for the records of logged policies
    expect(lines).toContain(`meta nfproto ipv4 ip saddr @srczone4_${wan} meta l4proto udp th dport 53 limit rate 5000/second burst 1000 packets log group 100 prefix "fwd nat 1"`);
    expect(lines).toContain(`meta nfproto ipv4 ip saddr @srczone4_${wan} meta l4proto udp th dport 53 counter name "nat_1" dnat ip to 10.1.0.10:5353 comment "nat 1"`);
    expect(lines).toContain(`meta nfproto ipv4 ip saddr @srczone4_${lan} ip daddr @egress4_${eth1} ip daddr @masquerade4 counter name "nat_2" masquerade comment "nat 2"`);
    expect(lines).toContain(`meta nfproto ipv4 ip saddr @srczone4_${lan} counter name "nat_3" snat ip to 10.2.0.99 comment "nat 3"`);
    expect(lines).toContain('counter nat_3 { packets 0 bytes 0 }');
    expect(lines).toContain('iifname "eth0" tcp dport 22 accept');
    expect(lines).toContain('iifname "eth0" udp dport 67 accept');
    expect(lines.filter((l) => l.startsWith('iifname "eth1"'))).toEqual([]);
  });

  test('nft without rematch: established connections flow whatever version accepted them', () => {
    const lines = renderPlan(doc, { version: 7, rematch: false }).nft.split('\n').map((l) => l.trim());
    const admit = lines.slice(lines.indexOf('chain admit {'));
    expect(admit.slice(1, 4)).toEqual(['ct state established,related accept', 'ct state invalid drop', '}']);
  });

  test('ip: VLANs marked ours, states, addresses with our metric, and only the routes eval would use', () => {
    expect(plan.ip.map((a) => a.join(' '))).toEqual([
      'link add link eth0 name eth0.7 type vlan id 7',
      'link set dev eth0.7 alias fwd',
      'link set dev eth0 up',
      'link set dev eth0.7 up',
      'link set dev eth1 up',
      'link set dev eth2 down',
      'address add 10.1.0.1/24 dev eth0 metric 241',
      'address add 10.7.0.1/24 dev eth0.7 metric 241',
      'address add 10.2.0.1/24 dev eth1 metric 241',
      'address add fd00::1/64 dev eth2 metric 241 nodad',
      'route replace 172.16.2.0/24 dev eth0 metric 1 proto 241',
      'route replace 192.168.0.0/16 via 10.9.9.9 dev eth1 metric 0 proto 241 onlink',
    ]);
  });

  test('dnsmasq: DHCP only, one range per pool, lease time in minutes', () => {
    expect(plan.dnsmasq.split('\n')).toEqual([
      '# managed by fwd', 'port=0', 'bind-dynamic', 'no-resolv', 'no-hosts', 'dhcp-leasefile=/x/leases',
      'interface=eth0', 'dhcp-range=set:pool0,10.1.0.100,10.1.0.200,255.255.255.0,90m',
      'dhcp-option=tag:pool0,option:router,10.1.0.1', 'dhcp-option=tag:pool0,option:dns-server,9.9.9.9', '',
    ]);
    expect(renderPlan(mkDoc({})).dnsmasq).toBe('');
  });

  test('link names the kernel cannot hold are problems before anything runs', () => {
    const bad = mkDoc({ interfaces: { eth0: {} }, vlans: { 'a-very-long-vlan-name': { parent: 'eth0' } } });
    expect(planProblems(bad)).toEqual(['link "a-very-long-vlan-name": not a Linux interface name (1-15 characters of A-Z a-z 0-9 _ . -)']);
    expect(planProblems(doc)).toEqual([]);
  });
});
