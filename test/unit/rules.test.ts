// Unit tests of the id-keyed resources: routes, security policies and NAT rules (with the
// shared move), called directly on a document, with their read models.
import { emptyDoc } from '../../src/config/document';
import type { ConfigDoc } from '../../src/config/types';
import { isFwError } from '../../src/errors';
import { routeOps } from '../../src/config/resources/route';
import { policyOps } from '../../src/config/resources/policy';
import { natOps } from '../../src/config/resources/nat';
import { addressOps } from '../../src/config/resources/address';
import { serviceOps } from '../../src/config/resources/service';
import { zoneOps } from '../../src/config/resources/zone';
import { vlanOps } from '../../src/config/resources/vlan';
import { movedRules } from '../../src/config/moves';
import { renderNat, renderPolicy, renderRoute } from '../../src/config/render/rules';
import { createFails, expectFail } from '../helpers/docs';

/** A document with eth0, eth1, a VLAN v10, addresses, services and zones to refer to. */
function fixture(): ConfigDoc {
  const doc = emptyDoc(['eth0', 'eth1']);
  vlanOps.create!(doc, { name: 'v10', id: 10, parent: 'eth1' });
  addressOps.create!(doc, { name: 'lan', ips: ['192.168.1.0/24'] });
  addressOps.create!(doc, { name: 'v6', ips: ['2001:db8::/64'] });
  serviceOps.create!(doc, { name: 'web', protocol: 'tcp', ports: [80, 443] });
  serviceOps.create!(doc, { name: 'ssh', protocol: 'tcp', ports: [22] });
  zoneOps.create!(doc, { name: 'trust', type: 'l3', interfaces: ['eth1'] });
  zoneOps.create!(doc, { name: 'untrust', type: 'l3', interfaces: ['eth0'] });
  return doc;
}

const ids = (rules: Array<{ id: number }>) => rules.map((r) => r.id);

describe('routes', () => {
  test('create assigns ids from 1, defaults, canonical destination, "default"', () => {
    const doc = fixture();
    expect(routeOps.create!(doc, { destination: '10.1.2.3/16', gateway: '192.168.1.254' })).toEqual({ id: 1 });
    expect(routeOps.create!(doc, { destination: 'default', interface: 'v10', metric: 5, description: 'up' })).toEqual({ id: 2 });
    expect(routeOps.create!(doc, { destination: '2001:DB8:0:0::1/48', gateway: 'fe80::1', interface: 'eth0' })).toEqual({ id: 3 });
    expect(doc.routes.map(renderRoute)).toEqual([
      { id: 1, description: '', destination: '10.1.0.0/16', gateway: '192.168.1.254', interface: '', metric: 0 },
      { id: 2, description: 'up', destination: '0.0.0.0/0', gateway: '', interface: 'v10', metric: 5 },
      { id: 3, description: '', destination: '2001:db8::/48', gateway: 'fe80::1', interface: 'eth0', metric: 0 },
    ]);
    expect(doc.counters.route).toBe(3);
  });

  test('ids are never reused after a delete', () => {
    const doc = fixture();
    routeOps.create!(doc, { destination: '10.0.0.0/8', interface: 'eth0' });
    routeOps.create!(doc, { destination: '10.1.0.0/16', interface: 'eth0' });
    routeOps.remove!(doc, '2');
    expect(routeOps.create!(doc, { destination: '10.2.0.0/16', interface: 'eth0' })).toEqual({ id: 3 });
    expect(ids(doc.routes)).toEqual([1, 3]);
  });

  test('bad input: each error code, nothing changed', () => {
    const doc = fixture();
    routeOps.create!(doc, { destination: '10.0.0.0/8', interface: 'eth0' });
    const mk = (b: unknown) => () => routeOps.create!(doc, b);
    expectFail(doc, mk({ destination: '10.0.0.0/33', interface: 'eth0' }), 'ERR_NET_1001', /destination/);
    expectFail(doc, mk({ destination: 'Default', interface: 'eth0' }), 'ERR_NET_1001', /destination/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', gateway: '10.0.0.300' }), 'ERR_NET_1001', /gateway/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', gateway: '2001:db8::1' }), 'ERR_NET_1001', /family/);
    expectFail(doc, mk({ destination: 'default', gateway: 'fe80::1' }), 'ERR_NET_1001', /family/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', interface: 'eth9' }), 'ERR_NET_2003', /eth9/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', interface: 'eth0', metric: 65536 }), 'ERR_NET_1008', /metric/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', interface: 'eth0', metric: -1 }), 'ERR_NET_1008', /metric/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', interface: 'eth0', metric: 1.5 }), 'ERR_NET_1004', /metric/);
    expectFail(doc, mk({ destination: '10.0.0.0/8' }), 'ERR_NET_1004', /gateway.*interface/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', gateway: '', interface: '' }), 'ERR_NET_1004', /gateway.*interface/);
    expectFail(doc, mk({ interface: 'eth0' }), 'ERR_NET_1004', /destination/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', interface: 'eth0', id: 7 }), 'ERR_NET_1004', /"id"/);
    expectFail(doc, mk({ destination: '10.0.0.0/8', interface: 'eth0', description: 'x'.repeat(257) }), 'ERR_NET_1004', /description/);
    expect(doc.counters.route).toBe(1); // a failed create hands out no id
  });

  test('partial update keeps absent fields; the merged route must be valid', () => {
    const doc = fixture();
    routeOps.create!(doc, { destination: '10.0.0.0/8', gateway: '192.168.1.1', interface: 'eth1', metric: 3 });
    routeOps.update!(doc, '1', { metric: 7 });
    expect(renderRoute(doc.routes[0])).toEqual({ id: 1, description: '', destination: '10.0.0.0/8', gateway: '192.168.1.1', interface: 'eth1', metric: 7 });
    routeOps.update!(doc, '1', { id: 1, gateway: '' });
    expect(doc.routes[0].gateway).toBe('');
    expectFail(doc, () => routeOps.update!(doc, '1', { interface: '' }), 'ERR_NET_1004', /gateway.*interface/);
    expectFail(doc, () => routeOps.update!(doc, '1', { id: 2, metric: 1 }), 'ERR_NET_1004', /renaming|id/);
    expectFail(doc, () => routeOps.update!(doc, '1', { destination: '' }), 'ERR_NET_1001');
    expectFail(doc, () => routeOps.update!(doc, '9', { metric: 1 }), 'ERR_NET_1003');
    expectFail(doc, () => routeOps.update!(doc, '0', { metric: 1 }), 'ERR_NET_1002');
    expectFail(doc, () => routeOps.remove!(doc, 'abc'), 'ERR_NET_1002');
    expectFail(doc, () => routeOps.remove!(doc, '2'), 'ERR_NET_1003');
  });

  test('the stored route object is replaced, never edited in place', () => {
    const doc = fixture();
    routeOps.create!(doc, { destination: '10.0.0.0/8', interface: 'eth0' });
    const before = doc.routes;
    const obj = doc.routes[0];
    routeOps.update!(doc, '1', { metric: 9 });
    expect(obj.metric).toBe(0);
    expect(before[0]).toBe(obj);
    expect(doc.routes).not.toBe(before);
  });
});

describe('policies', () => {
  test('create: defaults, any in its three spellings, bottom placement, read model', () => {
    const doc = fixture();
    expect(policyOps.create!(doc, { action: 'allow' })).toEqual({ id: 1 });
    expect(
      policyOps.create!(doc, { action: 'deny', 'src-zone': 'any', 'dst-zone': '', 'src-addr': 'any', 'dst-addr': '', services: ['any'], log: true }),
    ).toEqual({ id: 2 });
    expect(
      policyOps.create!(doc, { action: 'allow', 'src-zone': 'trust', 'dst-zone': 'untrust', 'src-addr': 'lan', 'dst-addr': 'v6', services: ['web', 'ssh', 'web'] }),
    ).toEqual({ id: 3 });
    expect(ids(doc.policies)).toEqual([1, 2, 3]);
    expect(renderPolicy(doc, doc.policies[0])).toEqual({
      id: 1, action: 'allow', srcZone: null, dstZone: null, srcAddr: null, dstAddr: null, services: [], log: false,
    });
    expect(renderPolicy(doc, doc.policies[1])).toEqual({
      id: 2, action: 'deny', srcZone: null, dstZone: null, srcAddr: null, dstAddr: null, services: [], log: true,
    });
    expect(renderPolicy(doc, doc.policies[2])).toEqual({
      id: 3,
      action: 'allow',
      srcZone: { name: 'trust', type: 'l3', color: '', interfaces: ['eth1'], networks: [] },
      dstZone: { name: 'untrust', type: 'l3', color: '', interfaces: ['eth0'], networks: [] },
      srcAddr: { name: 'lan', ips: [{ ip: [192, 168, 1, 0], mask: [255, 255, 255, 0] }] },
      dstAddr: { name: 'v6', ips: [{ ip: [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], mask: [...new Array(8).fill(255), ...new Array(8).fill(0)] }] },
      services: [
        { name: 'web', protocol: 'tcp', ports: [80, 443] },
        { name: 'ssh', protocol: 'tcp', ports: [22] },
      ],
      log: false,
    });
  });

  test('bad input: each error code, nothing changed, no id consumed', () => {
    const doc = fixture();
    const fails = createFails(doc, policyOps);
    fails({}, 'ERR_NET_1004', /action/);
    fails({ action: 'permit' }, 'ERR_SEC_1002', /action/);
    fails({ action: 'Allow' }, 'ERR_SEC_1002');
    fails({ action: 'allow', 'src-zone': 'dmz' }, 'ERR_NET_2003', /src-zone.*dmz/);
    fails({ action: 'allow', 'dst-zone': 'dmz' }, 'ERR_NET_2003', /dst-zone/);
    fails({ action: 'allow', 'src-addr': 'nope' }, 'ERR_NET_2003', /src-addr/);
    fails({ action: 'allow', 'dst-addr': 'trust' }, 'ERR_NET_2003', /dst-addr/);
    fails({ action: 'allow', services: ['web', 'nope'] }, 'ERR_NET_2003', /services\[1\].*nope/);
    fails({ action: 'allow', services: ['any', 'web'] }, 'ERR_NET_1004', /any/);
    fails({ action: 'allow', services: [''] }, 'ERR_NET_1004', /services\[0\]/);
    fails({ action: 'allow', services: 'web' }, 'ERR_NET_1004', /services/);
    fails({ action: 'allow', log: 'yes' }, 'ERR_NET_1004', /log/);
    fails({ action: 'allow', srcZone: 'trust' }, 'ERR_NET_1004', /srcZone/);
    expect(doc.counters.policy).toBe(0);
  });

  test('partial update: present fields replace, "" and [] clear, absent keep', () => {
    const doc = fixture();
    policyOps.create!(doc, { action: 'allow', 'src-zone': 'trust', 'src-addr': 'lan', services: ['web'], log: true });
    policyOps.update!(doc, '1', { action: 'deny' });
    expect(doc.policies[0]).toEqual({ id: 1, action: 'deny', srcZone: 'trust', dstZone: '', srcAddr: 'lan', dstAddr: '', services: ['web'], log: true });
    policyOps.update!(doc, '1', { id: 1, 'src-zone': '', 'src-addr': 'any', services: [], log: false, 'dst-zone': 'untrust' });
    expect(doc.policies[0]).toEqual({ id: 1, action: 'deny', srcZone: '', dstZone: 'untrust', srcAddr: '', dstAddr: '', services: [], log: false });
    expectFail(doc, () => policyOps.update!(doc, '1', { action: 'drop' }), 'ERR_SEC_1002');
    expectFail(doc, () => policyOps.update!(doc, '1', { id: 2 }), 'ERR_NET_1004', /id/);
    expectFail(doc, () => policyOps.update!(doc, '2', { action: 'allow' }), 'ERR_NET_1003');
    expectFail(doc, () => policyOps.update!(doc, '-1', { action: 'allow' }), 'ERR_NET_1002');
  });

  test('delete; a deleted id is not handed out again', () => {
    const doc = fixture();
    policyOps.create!(doc, { action: 'allow' });
    policyOps.create!(doc, { action: 'deny' });
    policyOps.remove!(doc, '2');
    expectFail(doc, () => policyOps.remove!(doc, '2'), 'ERR_NET_1003');
    expect(policyOps.create!(doc, { action: 'deny' })).toEqual({ id: 3 });
    expect(ids(doc.policies)).toEqual([1, 3]);
  });
});

describe('moves', () => {
  const table = () => [1, 2, 3, 4, 5].map((id) => ({ id }));
  const move = (body: unknown, key = '3') => ids(movedRules(table(), key, body, 'policy'));

  test('top, bottom, before, after', () => {
    expect(move({ position: 'top' })).toEqual([3, 1, 2, 4, 5]);
    expect(move({ position: 'bottom' })).toEqual([1, 2, 4, 5, 3]);
    expect(move({ position: 'before', reference_id: 1 })).toEqual([3, 1, 2, 4, 5]);
    expect(move({ position: 'before', reference_id: 5 })).toEqual([1, 2, 4, 3, 5]);
    expect(move({ position: 'after', reference_id: 5 })).toEqual([1, 2, 4, 5, 3]);
    expect(move({ position: 'after', reference_id: 1 })).toEqual([1, 3, 2, 4, 5]);
    expect(move({ position: 'after', reference_id: 2 })).toEqual([1, 2, 3, 4, 5]);
    expect(move({ position: 'top' }, '1')).toEqual([1, 2, 3, 4, 5]);
    expect(move({ position: 'top', reference_id: 99 })).toEqual([3, 1, 2, 4, 5]); // ignored for top/bottom
  });

  test('the input table is not modified', () => {
    const t = table();
    const out = movedRules(t, '1', { position: 'bottom' }, 'policy');
    expect(ids(t)).toEqual([1, 2, 3, 4, 5]);
    expect(ids(out)).toEqual([2, 3, 4, 5, 1]);
    expect(out[4]).toBe(t[0]); // the rule itself is the same object: ids never change
  });

  test.each([
    [{ position: 'middle' }, '3', 'ERR_NET_1005'],
    [{ position: 'TOP' }, '3', 'ERR_NET_1005'],
    [{}, '3', 'ERR_NET_1004'],
    [{ position: 'before' }, '3', 'ERR_NET_1004'],
    [{ position: 'after', reference_id: '2' }, '3', 'ERR_NET_1004'],
    [{ position: 'after', reference_id: 3 }, '3', 'ERR_NET_2003'],
    [{ position: 'before', reference_id: 9 }, '3', 'ERR_NET_2003'],
    [{ position: 'before', reference_id: 0 }, '3', 'ERR_NET_2003'],
    [{ position: 'top', extra: 1 }, '3', 'ERR_NET_1004'],
    [{ position: 'top' }, '9', 'ERR_NET_1003'],
    [{ position: 'top' }, 'x', 'ERR_NET_1002'],
  ])('move %j of %s fails with %s', (body, key, code) => {
    let caught: unknown;
    try {
      movedRules(table(), key, body, 'policy');
    } catch (e) {
      caught = e;
    }
    expect(isFwError(caught) && (caught as { code: string }).code).toBe(code);
  });

  test('policy and NAT moves through the ops; a failed move changes nothing', () => {
    const doc = fixture();
    for (let i = 0; i < 3; i++) policyOps.create!(doc, { action: 'allow' });
    policyOps.move!(doc, '3', { position: 'top' });
    expect(ids(doc.policies)).toEqual([3, 1, 2]);
    expectFail(doc, () => policyOps.move!(doc, '1', { position: 'after', reference_id: 1 }), 'ERR_NET_2003');
    for (let i = 0; i < 3; i++) natOps.create!(doc, { type: 'snat' });
    natOps.move!(doc, '1', { position: 'after', reference_id: 3 });
    expect(ids(doc.nat)).toEqual([2, 3, 1]);
    expectFail(doc, () => natOps.move!(doc, '4', { position: 'top' }), 'ERR_NET_1003', /NAT rule/);
  });
});

describe('NAT rules', () => {
  test('create each type; read model', () => {
    const doc = fixture();
    expect(natOps.create!(doc, { type: 'snat', 'src-zone': 'trust', 'out-interface': 'eth0' })).toEqual({ id: 1 });
    expect(natOps.create!(doc, { type: 'snat', 'translated-ip': '203.0.113.5', 'out-interface': 'v10', description: 'static' })).toEqual({ id: 2 });
    expect(natOps.create!(doc, { type: 'dnat-ip', 'dst-addr': 'lan', 'translated-ip': '192.168.1.10' })).toEqual({ id: 3 });
    expect(
      natOps.create!(doc, { type: 'dnat-port', 'src-zone': 'untrust', 'dst-zone': 'any', service: 'ssh', 'translated-ip': '2001:db8::10', 'translated-port': '02222' }),
    ).toEqual({ id: 4 });
    expect(renderNat(doc, doc.nat[0])).toEqual({
      id: 1, description: '', type: 'snat',
      srcZone: { name: 'trust', type: 'l3', color: '', interfaces: ['eth1'], networks: [] }, dstZone: null,
      srcAddress: '', dstAddress: '', service: '', translatedIP: '', translatedPort: '', outInterface: 'eth0',
    });
    expect(renderNat(doc, doc.nat[2])).toEqual({
      id: 3, description: '', type: 'dnat-ip', srcZone: null, dstZone: null,
      srcAddress: '', dstAddress: 'lan', service: '', translatedIP: '192.168.1.10', translatedPort: '', outInterface: '',
    });
    expect(renderNat(doc, doc.nat[3])).toMatchObject({ type: 'dnat-port', service: 'ssh', translatedIP: '2001:db8::10', translatedPort: '2222', dstZone: null });
  });

  test('type rules and bad input', () => {
    const doc = fixture();
    const fails = createFails(doc, natOps);
    fails({}, 'ERR_NET_1004', /type/);
    fails({ type: 'masquerade' }, 'ERR_SEC_1001', /type/);
    fails({ type: 'dnat' }, 'ERR_SEC_1001');
    fails({ type: 'dnat-ip' }, 'ERR_NET_1004', /translated-ip/);
    fails({ type: 'dnat-port', 'translated-ip': '10.0.0.1' }, 'ERR_NET_1004', /translated-port/);
    fails({ type: 'dnat-port', 'translated-port': '80' }, 'ERR_NET_1004', /translated-ip/);
    fails({ type: 'snat', 'translated-port': '80' }, 'ERR_NET_1004', /translated-port/);
    fails({ type: 'dnat-ip', 'translated-ip': '10.0.0.1', 'translated-port': '80' }, 'ERR_NET_1004', /translated-port/);
    fails({ type: 'dnat-port', 'translated-ip': '10.0.0.1', 'translated-port': '0' }, 'ERR_NET_1008', /translated-port/);
    fails({ type: 'dnat-port', 'translated-ip': '10.0.0.1', 'translated-port': '65536' }, 'ERR_NET_1008');
    fails({ type: 'dnat-port', 'translated-ip': '10.0.0.1', 'translated-port': '8o' }, 'ERR_NET_1004');
    fails({ type: 'dnat-port', 'translated-ip': '10.0.0.1', 'translated-port': 80 }, 'ERR_NET_1004');
    // a pool is an snat's only; a /32 is one address (issue 41), stored bare (below)
    fails({ type: 'dnat-ip', 'translated-ip': '10.0.0.0/30' }, 'ERR_NET_1001', /translated-ip.*is a pool/);
    fails({ type: 'dnat-ip', 'translated-ip': '10.0.0.1-10.0.0.2' }, 'ERR_NET_1001', /translated-ip.*is a pool/);
    fails({ type: 'dnat-ip', 'translated-ip': '10.0.0.1/x' }, 'ERR_NET_1001', /translated-ip/);
    fails({ type: 'snat', 'out-interface': 'eth7' }, 'ERR_NET_2003', /out-interface/);
    fails({ type: 'snat', service: 'nope' }, 'ERR_NET_2003', /service/);
    fails({ type: 'snat', 'src-addr': 'nope' }, 'ERR_NET_2003', /src-addr/);
    fails({ type: 'snat', 'dst-zone': 'nope' }, 'ERR_NET_2003', /dst-zone/);
    expect(doc.counters.nat).toBe(0);
    natOps.create!(doc, { type: 'dnat-ip', 'translated-ip': '10.0.0.1/32' });
    expect(doc.nat[doc.nat.length - 1].translatedIp).toBe('10.0.0.1');
  });

  test('update: the merged rule must satisfy its type', () => {
    const doc = fixture();
    natOps.create!(doc, { type: 'dnat-port', 'translated-ip': '10.0.0.1', 'translated-port': '8080', service: 'ssh' });
    expectFail(doc, () => natOps.update!(doc, '1', { type: 'snat' }), 'ERR_NET_1004', /translated-port/);
    expectFail(doc, () => natOps.update!(doc, '1', { type: 'dnat-ip' }), 'ERR_NET_1004', /translated-port/);
    expectFail(doc, () => natOps.update!(doc, '1', { 'translated-ip': '' }), 'ERR_NET_1004', /translated-ip/);
    natOps.update!(doc, '1', { type: 'dnat-ip', 'translated-port': '' });
    expect(doc.nat[0]).toMatchObject({ type: 'dnat-ip', translatedIp: '10.0.0.1', translatedPort: '', service: 'ssh' });
    natOps.update!(doc, '1', { id: 1, type: 'snat', 'translated-ip': '', service: 'any' });
    expect(doc.nat[0]).toMatchObject({ type: 'snat', translatedIp: '', service: '' });
    expectFail(doc, () => natOps.update!(doc, '1', { id: 3 }), 'ERR_NET_1004');
    expectFail(doc, () => natOps.update!(doc, '5', {}), 'ERR_NET_1003');
    natOps.remove!(doc, '1');
    expect(doc.nat).toEqual([]);
    expect(natOps.create!(doc, { type: 'snat' })).toEqual({ id: 2 });
  });
});
