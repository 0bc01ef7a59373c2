// Unit tests of the named-object resources other than addresses: services, zones,
// interfaces, VLANs and DHCP pools, called directly on a document, with their read models.
import { emptyDoc } from '../../src/config/document';
import { serviceOps, checkPorts } from '../../src/config/resources/service';
import { zoneOps } from '../../src/config/resources/zone';
import { interfaceOps } from '../../src/config/resources/interface';
import { vlanOps } from '../../src/config/resources/vlan';
import { dhcpOps } from '../../src/config/resources/dhcp';
import { renderDhcp, renderInterface, renderService, renderVlan, renderZone } from '../../src/config/render/objects';
import { expectFail } from '../helpers/docs';

const newDoc = () => emptyDoc(['eth0', 'eth1']);

describe('services', () => {
  test('create, read model, update and delete', () => {
    const doc = newDoc();
    serviceOps.create!(doc, { name: 'web', protocol: 'tcp', ports: [80, 443, '8000-8080'] });
    expect(renderService(doc.services.get('web')!)).toEqual({ name: 'web', protocol: 'tcp', ports: [80, 443, '8000-8080'] });
    serviceOps.update!(doc, 'web', { protocol: 'udp' });
    expect(renderService(doc.services.get('web')!)).toEqual({ name: 'web', protocol: 'udp', ports: [80, 443, '8000-8080'] });
    serviceOps.update!(doc, 'web', { name: 'web', ports: [53] });
    expect(renderService(doc.services.get('web')!)).toEqual({ name: 'web', protocol: 'udp', ports: [53] });
    serviceOps.remove!(doc, 'web');
    expect(doc.services.size).toBe(0);
  });

  test('port normalization: "80-80" is 80, "443" is 443, order kept', () => {
    expect(checkPorts(['80-80', '443', 22, '1024-65535'])).toEqual([80, 443, 22, '1024-65535']);
    expect(checkPorts([3, 65535, '1-2'])).toEqual([3, 65535, '1-2']);
  });

  test('bad ports are ERR_NET_1008, bad protocol ERR_NET_1006, wrong types ERR_NET_1004', () => {
    const doc = newDoc();
    const mk = (ports: unknown, protocol: unknown = 'tcp') => () => serviceOps.create!(doc, { name: 's', protocol, ports });
    expectFail(doc, mk([0]), 'ERR_NET_1008', /ports\[0\]/);
    expectFail(doc, mk([65536]), 'ERR_NET_1008');
    expectFail(doc, mk([-1]), 'ERR_NET_1008');
    expectFail(doc, mk(['90-80']), 'ERR_NET_1008', /low end/);
    expectFail(doc, mk(['0-80']), 'ERR_NET_1008');
    expectFail(doc, mk(['80-65536']), 'ERR_NET_1008');
    expectFail(doc, mk(['http']), 'ERR_NET_1008');
    expectFail(doc, mk(['80-']), 'ERR_NET_1008');
    expectFail(doc, mk([]), 'ERR_NET_1008', /at least one/);
    expectFail(doc, mk([80, 80]), 'ERR_NET_1008', /80 appears twice/);
    expectFail(doc, mk([80, '80-80']), 'ERR_NET_1008', /appears twice/);
    expectFail(doc, mk(['70-90', 80]), 'ERR_NET_1008', /overlap/);
    expectFail(doc, mk([80.5]), 'ERR_NET_1004', /ports/);
    expectFail(doc, mk([true]), 'ERR_NET_1004');
    expectFail(doc, mk([null]), 'ERR_NET_1004');
    expectFail(doc, mk('80'), 'ERR_NET_1004');
    expectFail(doc, mk([80], 'icmp'), 'ERR_NET_1006', /protocol/);
    expectFail(doc, mk([80], 'TCP'), 'ERR_NET_1006');
    // a protocol number may be a JSON integer (issue 41 reversed the refusal): a fraction or one out of range may not
    expectFail(doc, mk([80], 6.5), 'ERR_NET_1004');
    expectFail(doc, mk([80], 256), 'ERR_NET_1006');
    expectFail(doc, mk([80], true), 'ERR_NET_1004');
    expectFail(doc, () => serviceOps.create!(doc, { name: 's', protocol: 'tcp' }), 'ERR_NET_1004', /missing field "ports"/);
    expectFail(doc, () => serviceOps.create!(doc, { name: 's', protocol: 'tcp', ports: [1], x: 1 }), 'ERR_NET_1004', /unknown field "x"/);
    expectFail(doc, () => serviceOps.create!(doc, { name: '__proto__', protocol: 'tcp', ports: [1] }), 'ERR_NET_1004', /name/);
    expectFail(doc, () => serviceOps.create!(doc, { name: 'any', protocol: 'tcp', ports: [1] }), 'ERR_NET_1004', /reserved/);
  });

  test('duplicates, unknown, renaming, in use', () => {
    const doc = newDoc();
    serviceOps.create!(doc, { name: 'constructor', protocol: 'tcp', ports: [1] });
    expect(doc.services.get('constructor')!.ports).toEqual([1]);
    expectFail(doc, () => serviceOps.create!(doc, { name: 'constructor', protocol: 'udp', ports: [2] }), 'ERR_NET_2006');
    expectFail(doc, () => serviceOps.update!(doc, 'nope', { protocol: 'udp' }), 'ERR_NET_1003');
    expectFail(doc, () => serviceOps.update!(doc, 'constructor', { name: 'other' }), 'ERR_NET_1004', /renaming/);
    expectFail(doc, () => serviceOps.update!(doc, 'constructor', { ports: [] }), 'ERR_NET_1008');
    expectFail(doc, () => serviceOps.remove!(doc, 'nope'), 'ERR_NET_1003');
    doc.policies = [{ id: 3, action: 'allow', srcZone: '', dstZone: '', srcAddr: '', dstAddr: '', services: ['constructor'], log: false }];
    expectFail(doc, () => serviceOps.remove!(doc, 'constructor'), 'ERR_NET_2007', /policy 3/);
  });

  test('an update replaces the stored object instead of editing it', () => {
    const doc = newDoc();
    serviceOps.create!(doc, { name: 'a', protocol: 'tcp', ports: [1] });
    const before = doc.services.get('a')!;
    serviceOps.update!(doc, 'a', { ports: [2] });
    expect(before.ports).toEqual([1]);
    expect(doc.services.get('a')).not.toBe(before);
  });
});

describe('zones and interfaces', () => {
  test('create with members, derived read model, defaults', () => {
    const doc = newDoc();
    zoneOps.create!(doc, { name: 'lan', type: 'l3', interfaces: ['eth1', 'eth0'], networks: ['10.0.0.5/8', '10.0.0.0/8'] });
    expect(renderZone(doc, doc.zones.get('lan')!)).toEqual({
      name: 'lan', type: 'l3', color: '', interfaces: ['eth0', 'eth1'], networks: ['10.0.0.0/8'],
    });
    expect(doc.interfaces.get('eth0')!.zone).toBe('lan');
    zoneOps.create!(doc, { name: 'empty', type: 'l2' });
    expect(renderZone(doc, doc.zones.get('empty')!)).toEqual({ name: 'empty', type: 'l2', color: '', interfaces: [], networks: [] });
  });

  test('a zone update moves members in and out; absent interfaces keep membership', () => {
    const doc = newDoc();
    vlanOps.create!(doc, { name: 'v10', id: 10, parent: 'eth0' });
    zoneOps.create!(doc, { name: 'a', type: 'l3', interfaces: ['eth0', 'v10'] });
    zoneOps.create!(doc, { name: 'b', type: 'l3', interfaces: ['eth0'] }); // moves eth0 out of a
    expect(renderZone(doc, doc.zones.get('a')!).interfaces).toEqual(['v10']);
    expect(renderZone(doc, doc.zones.get('b')!).interfaces).toEqual(['eth0']);
    zoneOps.update!(doc, 'a', { interfaces: ['eth1'] }); // v10 leaves a
    expect(doc.vlans.get('v10')!.zone).toBe('');
    expect(doc.interfaces.get('eth1')!.zone).toBe('a');
    zoneOps.update!(doc, 'a', { color: 'red' });
    expect(renderZone(doc, doc.zones.get('a')!)).toEqual({ name: 'a', type: 'l3', color: 'red', interfaces: ['eth1'], networks: [] });
    zoneOps.update!(doc, 'a', { interfaces: [], color: '' });
    expect(renderZone(doc, doc.zones.get('a')!)).toEqual({ name: 'a', type: 'l3', color: '', interfaces: [], networks: [] });
    expect(doc.interfaces.get('eth1')!.zone).toBe('');
  });

  test('zone errors leave the document untouched', () => {
    const doc = newDoc();
    zoneOps.create!(doc, { name: 'z', type: 'l2', interfaces: ['eth0'] });
    expectFail(doc, () => zoneOps.create!(doc, { name: 'y', type: 'l4' }), 'ERR_NET_1005', /type/);
    expectFail(doc, () => zoneOps.create!(doc, { name: 'y', type: 'l2', interfaces: ['eth9'] }), 'ERR_NET_2003', /eth9/);
    expectFail(doc, () => zoneOps.create!(doc, { name: 'y', type: 'l2', interfaces: [''] }), 'ERR_NET_2003');
    expectFail(doc, () => zoneOps.create!(doc, { name: 'y', type: 'l2', interfaces: ['eth1', 'eth1'] }), 'ERR_NET_1004', /twice/);
    expectFail(doc, () => zoneOps.create!(doc, { name: 'y', type: 'l2', networks: ['10.0.0.0/33'] }), 'ERR_NET_1001', /networks\[0\]/);
    expectFail(doc, () => zoneOps.create!(doc, { name: 'y', type: 'l2', color: 'x'.repeat(33) }), 'ERR_NET_1004', /color/);
    expectFail(doc, () => zoneOps.create!(doc, { name: 'z', type: 'l2', interfaces: ['eth1'] }), 'ERR_NET_2006');
    expectFail(doc, () => zoneOps.update!(doc, 'z', { type: 'l3', interfaces: ['eth1', 'nope'] }), 'ERR_NET_2003');
    expectFail(doc, () => zoneOps.update!(doc, 'q', { type: 'l3' }), 'ERR_NET_1003');
    expectFail(doc, () => zoneOps.remove!(doc, 'z'), 'ERR_NET_2007', /interface eth0/);
    zoneOps.create!(doc, { name: 'y', type: 'l2', color: 'x'.repeat(32) });
    expect(doc.zones.get('y')!.color).toHaveLength(32);
    zoneOps.remove!(doc, 'y');
    expect(doc.zones.has('y')).toBe(false);
  });

  test('interface edits: partial, clearing, references', () => {
    const doc = newDoc();
    zoneOps.create!(doc, { name: 'lan', type: 'l3' });
    interfaceOps.update!(doc, 'eth0', { ip: '192.168.1.1/24', management: ['ssh', 'ping'], zone: 'lan' });
    expect(renderInterface(doc.interfaces.get('eth0')!)).toEqual({
      name: 'eth0', ip: '192.168.1.1/24', management: ['ssh', 'ping'], state: 'up', zone: 'lan',
    });
    expect(renderZone(doc, doc.zones.get('lan')!).interfaces).toEqual(['eth0']);
    interfaceOps.update!(doc, 'eth0', { name: 'eth0', state: 'down' });
    expect(doc.interfaces.get('eth0')).toEqual({ name: 'eth0', ip: '192.168.1.1/24', management: ['ssh', 'ping'], state: 'down', zone: 'lan' });
    interfaceOps.update!(doc, 'eth0', { ip: '', management: [], zone: '' });
    expect(doc.interfaces.get('eth0')).toEqual({ name: 'eth0', ip: '', management: [], state: 'down', zone: '' });
    interfaceOps.update!(doc, 'eth0', { ip: '2001:DB8::1/64' });
    expect(doc.interfaces.get('eth0')!.ip).toBe('2001:db8::1/64');
    expectFail(doc, () => interfaceOps.update!(doc, 'eth0', { ip: '192.168.1.1' }), 'ERR_NET_1001', /ip/);
    expectFail(doc, () => interfaceOps.update!(doc, 'eth0', { ip: '300.1.1.1/24' }), 'ERR_NET_1001');
    expectFail(doc, () => interfaceOps.update!(doc, 'eth0', { management: ['telnet'] }), 'ERR_NET_1005', /management\[0\]/);
    expectFail(doc, () => interfaceOps.update!(doc, 'eth0', { management: ['ssh', 'ssh'] }), 'ERR_NET_1005', /twice/);
    expectFail(doc, () => interfaceOps.update!(doc, 'eth0', { state: 'UP' }), 'ERR_NET_1005', /state/);
    expectFail(doc, () => interfaceOps.update!(doc, 'eth0', { zone: 'wan' }), 'ERR_NET_2003', /wan/);
    expectFail(doc, () => interfaceOps.update!(doc, 'eth0', { name: 'eth1' }), 'ERR_NET_1004', /renaming/);
    expectFail(doc, () => interfaceOps.update!(doc, 'eth0', { mtu: 1500 }), 'ERR_NET_1004', /mtu/);
    expectFail(doc, () => interfaceOps.update!(doc, 'eth7', { state: 'up' }), 'ERR_NET_1003');
    expect(interfaceOps.create).toBeUndefined();
    expect(interfaceOps.remove).toBeUndefined();
  });
});

describe('vlans', () => {
  test('create with defaults, full read model, partial update', () => {
    const doc = newDoc();
    vlanOps.create!(doc, { name: 'v10', id: 10, parent: 'eth0' });
    expect(renderVlan(doc.vlans.get('v10')!)).toEqual({ name: 'v10', id: 10, parent: 'eth0', ip: '', zone: '', state: 'up', management: [] });
    zoneOps.create!(doc, { name: 'dmz', type: 'l3' });
    vlanOps.update!(doc, 'v10', { ip: '10.1.0.1/16', zone: 'dmz', management: ['https'], state: 'down', id: 11, parent: 'eth1' });
    expect(renderVlan(doc.vlans.get('v10')!)).toEqual({
      name: 'v10', id: 11, parent: 'eth1', ip: '10.1.0.1/16', zone: 'dmz', state: 'down', management: ['https'],
    });
    expect(renderZone(doc, doc.zones.get('dmz')!).interfaces).toEqual(['v10']);
    vlanOps.update!(doc, 'v10', { ip: '', zone: '', management: [] });
    expect(renderVlan(doc.vlans.get('v10')!)).toEqual({ name: 'v10', id: 11, parent: 'eth1', ip: '', zone: '', state: 'down', management: [] });
  });

  test('vlan errors', () => {
    const doc = newDoc();
    vlanOps.create!(doc, { name: 'v10', id: 10, parent: 'eth0' });
    vlanOps.create!(doc, { name: 'v20', id: 20, parent: 'eth0' });
    const mk = (b: Record<string, unknown>) => () => vlanOps.create!(doc, { name: 'x', id: 30, parent: 'eth0', ...b });
    expectFail(doc, mk({ id: 0 }), 'ERR_NET_1008', /id/);
    expectFail(doc, mk({ id: 4095 }), 'ERR_NET_1008');
    expectFail(doc, mk({ id: '30' }), 'ERR_NET_1004');
    expectFail(doc, mk({ id: 30.5 }), 'ERR_NET_1004');
    expectFail(doc, mk({ parent: 'eth9' }), 'ERR_NET_2005', /eth9/);
    expectFail(doc, mk({ parent: 'v10' }), 'ERR_NET_2005'); // a VLAN is not a physical parent
    expectFail(doc, mk({ zone: 'nope' }), 'ERR_NET_2003');
    expectFail(doc, mk({ state: 'sideways' }), 'ERR_NET_1005');
    expectFail(doc, mk({ management: ['ftp'] }), 'ERR_NET_1005');
    expectFail(doc, mk({ ip: '10.0.0.1/40' }), 'ERR_NET_1001');
    expectFail(doc, mk({ name: 'v10' }), 'ERR_NET_2006');
    expectFail(doc, mk({ name: 'eth1' }), 'ERR_NET_2006', /physical/);
    expectFail(doc, mk({ id: 10 }), 'ERR_NET_2008', /v10/);
    expectFail(doc, mk({ name: '__proto__' }), 'ERR_NET_1004');
    expectFail(doc, () => vlanOps.create!(doc, { name: 'x', parent: 'eth0' }), 'ERR_NET_1004', /missing field "id"/);
    vlanOps.create!(doc, { name: 'x', id: 10, parent: 'eth1' }); // the same id on another parent is fine
    expectFail(doc, () => vlanOps.update!(doc, 'v20', { id: 10 }), 'ERR_NET_2008');
    expectFail(doc, () => vlanOps.update!(doc, 'x', { parent: 'eth0' }), 'ERR_NET_2008');
    vlanOps.update!(doc, 'v10', { id: 10 }); // its own pair is not a conflict
    expectFail(doc, () => vlanOps.update!(doc, 'nope', { id: 5 }), 'ERR_NET_1003');
    expectFail(doc, () => vlanOps.update!(doc, 'v10', { name: 'v11' }), 'ERR_NET_1004');
  });

  test('a vlan in use cannot be deleted; a physical parent cannot be a free name', () => {
    const doc = newDoc();
    vlanOps.create!(doc, { name: 'v10', id: 10, parent: 'eth0', ip: '10.0.0.1/24' });
    dhcpOps.create!(doc, { interface: 'v10', start_ip: '10.0.0.10', end_ip: '10.0.0.20' });
    doc.routes = [{ id: 4, description: '', destination: '10.9.0.0/16', gateway: '', interface: 'v10', metric: 0 }];
    expectFail(doc, () => vlanOps.remove!(doc, 'v10'), 'ERR_NET_2007', /dhcp v10.*route 4/);
    doc.routes = [];
    dhcpOps.remove!(doc, 'v10');
    zoneOps.create!(doc, { name: 'z', type: 'l3', interfaces: ['v10'] });
    vlanOps.remove!(doc, 'v10'); // zone membership is the VLAN's own attribute
    expect(renderZone(doc, doc.zones.get('z')!).interfaces).toEqual([]);
    expectFail(doc, () => vlanOps.remove!(doc, 'v10'), 'ERR_NET_1003');
  });
});

describe('dhcp pools', () => {
  test('create with defaults, read model with the derived mask, partial update', () => {
    const doc = newDoc();
    interfaceOps.update!(doc, 'eth0', { ip: '192.168.1.1/24' });
    dhcpOps.create!(doc, { interface: 'eth0', start_ip: '192.168.1.100', end_ip: '192.168.1.200' });
    expect(renderDhcp(doc, doc.dhcp.get('eth0')!)).toEqual({
      interface: 'eth0', startIP: '192.168.1.100', endIP: '192.168.1.200', gateway: '', dns: [], subnetMask: '255.255.255.0', leaseTimeMin: 1440,
    });
    dhcpOps.update!(doc, 'eth0', { interface: 'eth0', gateway: '192.168.1.1', dns: ['8.8.8.8', '1.1.1.1'], lease_time: 60 });
    expect(renderDhcp(doc, doc.dhcp.get('eth0')!)).toEqual({
      interface: 'eth0', startIP: '192.168.1.100', endIP: '192.168.1.200', gateway: '192.168.1.1', dns: ['8.8.8.8', '1.1.1.1'],
      subnetMask: '255.255.255.0', leaseTimeMin: 60,
    });
    dhcpOps.update!(doc, 'eth0', { gateway: '', dns: [] });
    expect(doc.dhcp.get('eth0')).toEqual({ interface: 'eth0', startIp: '192.168.1.100', endIp: '192.168.1.200', gateway: '', dns: [], leaseTime: 60 });
    interfaceOps.update!(doc, 'eth0', { ip: '172.16.5.1/12' });
    expect(renderDhcp(doc, doc.dhcp.get('eth0')!).subnetMask).toBe('255.240.0.0');
    interfaceOps.update!(doc, 'eth0', { ip: '' });
    expect(renderDhcp(doc, doc.dhcp.get('eth0')!).subnetMask).toBe('');
    interfaceOps.update!(doc, 'eth0', { ip: 'fe80::1/64' });
    expect(renderDhcp(doc, doc.dhcp.get('eth0')!).subnetMask).toBe('');
    dhcpOps.remove!(doc, 'eth0');
    expect(doc.dhcp.size).toBe(0);
  });

  test('dhcp errors', () => {
    const doc = newDoc();
    dhcpOps.create!(doc, { interface: 'eth0', start_ip: '10.0.0.10', end_ip: '10.0.0.20' });
    const mk = (b: Record<string, unknown>) => () => dhcpOps.create!(doc, { interface: 'eth1', start_ip: '10.1.0.10', end_ip: '10.1.0.20', ...b });
    expectFail(doc, mk({ interface: 'eth0' }), 'ERR_NET_2006');
    expectFail(doc, mk({ interface: 'eth9' }), 'ERR_NET_2003', /eth9/);
    expectFail(doc, mk({ interface: '' }), 'ERR_NET_1004');
    expectFail(doc, mk({ start_ip: '2001:db8::1' }), 'ERR_NET_1001', /IPv4 only/);
    expectFail(doc, mk({ end_ip: '10.1.0.256' }), 'ERR_NET_1001', /end_ip/);
    expectFail(doc, mk({ start_ip: '10.1.0.0/24' }), 'ERR_NET_1001');
    expectFail(doc, mk({ gateway: 'router' }), 'ERR_NET_1001', /gateway/);
    expectFail(doc, mk({ dns: ['8.8.8.8', 'x'] }), 'ERR_NET_1001', /dns\[1\]/);
    expectFail(doc, mk({ dns: ['8.8.8.8', '8.8.8.8'] }), 'ERR_NET_1004', /twice/);
    expectFail(doc, mk({ dns: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5', '1.1.1.6', '1.1.1.7', '1.1.1.8', '1.1.1.9'] }), 'ERR_NET_1008');
    expectFail(doc, mk({ lease_time: 0 }), 'ERR_NET_1008', /lease_time/);
    expectFail(doc, mk({ lease_time: 525601 }), 'ERR_NET_1008');
    expectFail(doc, mk({ lease_time: '60' }), 'ERR_NET_1004');
    expectFail(doc, mk({ start_ip: '10.1.0.30' }), 'ERR_NET_1008', /above/);
    expectFail(doc, mk({ subnet: '255.0.0.0' }), 'ERR_NET_1004', /subnet/);
    expectFail(doc, () => dhcpOps.create!(doc, { interface: 'eth1', start_ip: '10.1.0.1' }), 'ERR_NET_1004', /end_ip/);
    expectFail(doc, () => dhcpOps.update!(doc, 'eth0', { start_ip: '10.0.0.21' }), 'ERR_NET_1008');
    expectFail(doc, () => dhcpOps.update!(doc, 'eth0', { interface: 'eth1' }), 'ERR_NET_1004', /renaming/);
    expectFail(doc, () => dhcpOps.update!(doc, 'eth1', { lease_time: 5 }), 'ERR_NET_1003');
    expectFail(doc, () => dhcpOps.remove!(doc, 'eth1'), 'ERR_NET_1003');
    dhcpOps.create!(doc, { interface: 'eth1', start_ip: '10.1.0.10', end_ip: '10.1.0.10', lease_time: 525600 });
    expect(doc.dhcp.get('eth1')!.leaseTime).toBe(525600);
  });
});
