// Unit tests of the commit-time checks: each rule alone, several at once in a fixed order,
// and ordinary valid configurations that must pass.
import { emptyDoc } from '../../src/config/document';
import type { ConfigDoc, InterfaceObj, VlanObj } from '../../src/config/types';
import { commitChecks } from '../../src/config/commit-checks';

function iface(doc: ConfigDoc, name: string, ip: string, zone = ''): void {
  const i: InterfaceObj = { name, ip, management: [], state: 'up', zone };
  doc.interfaces.set(name, i);
}

function vlan(doc: ConfigDoc, name: string, parent: string, id: number, ip: string, zone = ''): void {
  const v: VlanObj = { name, id, parent, ip, zone, state: 'up', management: [] };
  doc.vlans.set(name, v);
}

function pool(doc: ConfigDoc, link: string, startIp: string, endIp: string, gateway = ''): void {
  doc.dhcp.set(link, { interface: link, startIp, endIp, gateway, dns: [], leaseTime: 1440 });
}

let nextRoute = 1;
function route(doc: ConfigDoc, destination: string, gateway: string, link = '', metric = 0): number {
  const id = nextRoute++;
  doc.routes.push({ id, description: '', destination, gateway, interface: link, metric });
  return id;
}

/** A small valid office firewall: WAN, LAN with DHCP, a VLAN, routes, policies and NAT. */
function office(): ConfigDoc {
  nextRoute = 1;
  const doc = emptyDoc(['eth0', 'eth1', 'eth2']);
  iface(doc, 'eth0', '203.0.113.2/29', 'untrust');
  iface(doc, 'eth1', '192.168.1.1/24', 'trust');
  vlan(doc, 'v20', 'eth1', 20, '10.20.0.1/16', 'trust');
  doc.zones.set('trust', { name: 'trust', type: 'l3', color: '', networks: [] });
  doc.zones.set('untrust', { name: 'untrust', type: 'l3', color: '', networks: [] });
  doc.zones.set('bridge', { name: 'bridge', type: 'l2', color: '', networks: [] });
  iface(doc, 'eth2', '', 'bridge');
  pool(doc, 'eth1', '192.168.1.100', '192.168.1.200', '192.168.1.1');
  pool(doc, 'v20', '10.20.1.1', '10.20.255.254');
  route(doc, '0.0.0.0/0', '203.0.113.1');
  route(doc, '10.99.0.0/16', '192.168.1.254', 'eth1', 10);
  route(doc, '10.98.0.0/16', '', 'eth2');
  route(doc, '2001:db8:1::/48', 'fe80::1', 'eth0');
  doc.services.set('ssh', { name: 'ssh', protocol: 'tcp', ports: [22] });
  doc.services.set('web', { name: 'web', protocol: 'tcp', ports: [80, 443] });
  doc.policies.push({ id: 1, action: 'allow', srcZone: 'trust', dstZone: 'untrust', srcAddr: '', dstAddr: '', services: ['web'], log: false });
  doc.nat.push(
    { id: 1, description: '', type: 'snat', srcZone: 'trust', dstZone: '', srcAddr: '', dstAddr: '', service: '', translatedIp: '', translatedPort: '', outInterface: 'eth0' },
    { id: 2, description: '', type: 'dnat-port', srcZone: '', dstZone: '', srcAddr: '', dstAddr: '', service: 'ssh', translatedIp: '192.168.1.5', translatedPort: '22', outInterface: '' },
    { id: 3, description: '', type: 'dnat-ip', srcZone: '', dstZone: '', srcAddr: '', dstAddr: '', service: 'web', translatedIp: '192.168.1.6', translatedPort: '', outInterface: '' },
  );
  return doc;
}

/** The commit checks of office() with the DHCP pool on `link` replaced by this one. */
function poolChecks(link: string, startIp: string, endIp: string, gateway = ''): string[] {
  const doc = office();
  pool(doc, link, startIp, endIp, gateway);
  return commitChecks(doc);
}

test('an empty configuration and an ordinary valid one pass', () => {
  expect(commitChecks(emptyDoc(['eth0']))).toEqual([]);
  expect(commitChecks(office())).toEqual([]);
});

test('a pool whose range fills a /24 except the network, broadcast and interface addresses passes', () => {
  expect(poolChecks('eth1', '192.168.1.2', '192.168.1.254')).toEqual([]);
});

describe('DHCP pools', () => {
  test('the interface needs an IPv4 address', () => {
    const doc = office();
    doc.routes = []; // route 2 goes through eth1
    iface(doc, 'eth1', '', 'trust');
    doc.zones.set('trust', { name: 'trust', type: 'l2', color: '', networks: [] });
    expect(commitChecks(doc)).toEqual(['dhcp eth1: interface eth1 has no IPv4 address']);
    iface(doc, 'eth1', '2001:db8::1/64', 'trust');
    expect(commitChecks(doc)).toEqual(['dhcp eth1: interface eth1 has no IPv4 address']);
  });

  test('a VLAN pool is checked against the VLAN subnet', () => {
    expect(poolChecks('v20', '10.21.0.1', '10.21.0.9')).toEqual(['dhcp v20: range 10.21.0.1-10.21.0.9 is outside 10.20.0.0/16']);
  });

  test('range, start, end and gateway outside the subnet', () => {
    expect(poolChecks('eth1', '10.0.0.10', '10.0.0.200', '10.0.0.1')).toEqual([
      'dhcp eth1: range 10.0.0.10-10.0.0.200 is outside 192.168.1.0/24',
      'dhcp eth1: gateway 10.0.0.1 is outside 192.168.1.0/24',
    ]);
    expect(poolChecks('eth1', '192.168.0.250', '192.168.1.20')).toEqual(['dhcp eth1: start 192.168.0.250 is outside 192.168.1.0/24']);
    expect(poolChecks('eth1', '192.168.1.250', '192.168.2.20')).toEqual(['dhcp eth1: end 192.168.2.20 is outside 192.168.1.0/24']);
  });

  test('start after end; range containing the interface, network or broadcast address; gateway in the range', () => {
    expect(poolChecks('eth1', '192.168.1.200', '192.168.1.100')).toEqual(['dhcp eth1: start 192.168.1.200 is after end 192.168.1.100']);
    expect(poolChecks('eth1', '192.168.1.0', '192.168.1.255')).toEqual([
      'dhcp eth1: range 192.168.1.0-192.168.1.255 contains the address of interface eth1 (192.168.1.1)',
      'dhcp eth1: range 192.168.1.0-192.168.1.255 contains the network address 192.168.1.0',
      'dhcp eth1: range 192.168.1.0-192.168.1.255 contains the broadcast address 192.168.1.255',
    ]);
    expect(poolChecks('eth1', '192.168.1.10', '192.168.1.20', '192.168.1.15')).toEqual(['dhcp eth1: gateway 192.168.1.15 is inside the range 192.168.1.10-192.168.1.20']);
  });
});

test('two interfaces or VLANs with the same address', () => {
  const doc = office();
  iface(doc, 'eth2', '192.168.1.1/25', '');
  vlan(doc, 'v30', 'eth2', 30, '192.168.1.1/24');
  vlan(doc, 'v31', 'eth2', 31, '2001:db8::1/64');
  vlan(doc, 'v32', 'eth2', 32, '2001:db8:0:0::1/64');
  expect(commitChecks(doc)).toEqual([
    'interface eth2: address 192.168.1.1 is also used by interface eth1',
    'vlan v30: address 192.168.1.1 is also used by interface eth1',
    'vlan v32: address 2001:db8::1 is also used by vlan v31',
  ]);
});

test('a VLAN on a parent that is not a physical interface', () => {
  const doc = office();
  vlan(doc, 'v40', 'v20', 40, '');
  expect(commitChecks(doc)).toEqual(['vlan v40: parent v20 is not a physical interface']);
});

test('a zone of type l3 holds only links with an IP address; l2 zones may hold any', () => {
  const doc = office();
  iface(doc, 'eth2', '', 'trust');
  vlan(doc, 'v50', 'eth2', 50, '', 'trust');
  vlan(doc, 'v51', 'eth2', 51, '', 'bridge');
  expect(commitChecks(doc)).toEqual([
    'zone trust: type l3 but interface eth2 has no IP address',
    'zone trust: type l3 but vlan v50 has no IP address',
  ]);
});

describe('routes', () => {
  test('the gateway must be in a connected subnet: of the route interface, else of any link', () => {
    const doc = office();
    const a = route(doc, '10.50.0.0/16', '172.16.0.1');
    const b = route(doc, '10.51.0.0/16', '203.0.113.1', 'eth1');
    const c = route(doc, '10.52.0.0/16', '10.20.5.5', 'v20'); // fine: the VLAN subnet
    const d = route(doc, '10.53.0.0/16', '10.20.5.5', 'eth2');
    const e = route(doc, '2001:db8:2::/48', '2001:db8:9::1');
    expect(c).toBeGreaterThan(0);
    expect(commitChecks(doc)).toEqual([
      `route ${a}: gateway 172.16.0.1 is not in any connected subnet`,
      `route ${b}: gateway 203.0.113.1 is outside 192.168.1.0/24, the subnet of interface eth1`,
      `route ${d}: gateway 10.20.5.5 is unreachable: interface eth2 has no IP address`,
      `route ${e}: gateway 2001:db8:9::1 is not in any connected subnet`,
    ]);
  });

  test('the gateway is not one of our own addresses; a link-local gateway needs an interface', () => {
    const doc = office();
    const a = route(doc, '10.60.0.0/16', '192.168.1.1');
    const b = route(doc, '2001:db8:3::/48', 'fe80::1');
    expect(commitChecks(doc)).toEqual([
      `route ${a}: gateway 192.168.1.1 is the address of interface eth1`,
      `route ${b}: link-local gateway fe80::1 needs an interface`,
    ]);
  });

  test('exact duplicates are reported; equal-cost routes through other gateways are not', () => {
    const doc = office();
    route(doc, '10.99.0.0/16', '192.168.1.253', 'eth1', 10);
    const dup = route(doc, '10.99.0.0/16', '192.168.1.254', 'eth1', 10);
    expect(commitChecks(doc)).toEqual([`route ${dup}: same destination, gateway, interface and metric as route 2`]);
  });
});

describe('NAT rules', () => {
  test('a dnat-port rule needs a service with exactly one port', () => {
    const doc = office();
    doc.services.set('range', { name: 'range', protocol: 'udp', ports: ['10000-10010'] });
    const base = doc.nat[1];
    doc.nat.push({ ...base, id: 4, service: '' }, { ...base, id: 5, service: 'web' }, { ...base, id: 6, service: 'range' });
    expect(commitChecks(doc)).toEqual([
      'nat 4: a dnat-port rule needs a service with a single port number, not any',
      'nat 5: service web has ports 80, 443; a dnat-port rule needs a single port number',
      'nat 6: service range has ports 10000-10010; a dnat-port rule needs a single port number',
    ]);
  });

  test('a masquerade needs an address on its out-interface; a static snat does not', () => {
    const doc = office();
    const base = doc.nat[0];
    doc.nat.push({ ...base, id: 7, outInterface: 'eth2' }, { ...base, id: 8, outInterface: 'eth2', translatedIp: '198.51.100.1' }, { ...base, id: 9, outInterface: '' });
    expect(commitChecks(doc)).toEqual(['nat 7: masquerade needs an address on out-interface eth2']);
  });
});

test('every problem at once, in a fixed order, whatever the insertion order', () => {
  const build = (reverse: boolean) => {
    const doc = office();
    const steps = [
      () => iface(doc, 'eth2', '192.168.1.1/24', 'bridge'),
      () => pool(doc, 'eth1', '10.0.0.10', '10.0.0.200'),
      () => doc.routes.push({ id: 20, description: '', destination: '10.70.0.0/16', gateway: '172.31.0.1', interface: '', metric: 0 }),
      () => doc.nat.push({ ...doc.nat[1], id: 10, service: 'web' }),
      () => vlan(doc, 'v60', 'eth0', 60, '', 'untrust'),
    ];
    (reverse ? steps.reverse() : steps).forEach((s) => s());
    return commitChecks(doc);
  };
  const expected = [
    'interface eth2: address 192.168.1.1 is also used by interface eth1',
    'zone untrust: type l3 but vlan v60 has no IP address',
    'dhcp eth1: range 10.0.0.10-10.0.0.200 is outside 192.168.1.0/24',
    'route 20: gateway 172.31.0.1 is not in any connected subnet',
    'nat 10: service web has ports 80, 443; a dnat-port rule needs a single port number',
  ];
  expect(build(false)).toEqual(expected);
  expect(build(true)).toEqual(expected);
});
