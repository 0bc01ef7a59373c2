// NAT rules: an ordered table, evaluated independently of the security policies. New rules
// go to the bottom; POST /api/nat/{id}/move reorders (moves.ts). The type decides which
// translation fields a rule has; the merged rule of a PUT must satisfy them too.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, NatRule, NatType } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { checkZoneField, ZoneRefField } from '../zone-list';
import { linkExists } from '../refs';
import { orderedRuleOps } from '../moves';
import { checkRuleDescription, mergedMeta, ruleMetaFields } from '../rule-meta';
import { checkPool, isPool } from '../nat-pool';
import { staticPair } from '../nat-static';
import { anyRef, checkEnum, checkRange, checkRef, shapeChecker } from '../validate';

export const NAT_TYPES: readonly NatType[] = ['snat', 'dnat-ip', 'dnat-port', 'static'];

const fields = {
  description: Type.Optional(Type.String()),
  'src-zone': ZoneRefField,
  'dst-zone': ZoneRefField,
  'src-addr': Type.Optional(Type.String()),
  'dst-addr': Type.Optional(Type.String()),
  service: Type.Optional(Type.String()),
  'translated-ip': Type.Optional(Type.String()),
  'translated-port': Type.Optional(Type.String()),
  'out-interface': Type.Optional(Type.String()),
  persistent: Type.Optional(Type.Boolean({ description: 'snat only: every connection of one source leaves with the same address of the pool (nft `persistent`)' })),
  ...ruleMetaFields,
};
export const bodies = {
  create: Type.Object({ ...fields, type: Type.String() }, { additionalProperties: false }),
  update: Type.Object({ ...fields, id: Type.Optional(Type.Integer()), type: Type.Optional(Type.String()) }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

type Body = ReturnType<typeof updateShape>;

/** A port number written as a string ("1"-"65535"), stored without leading zeros; "" clears it. */
function checkPortString(field: string, value: string): string {
  if (value === '') return '';
  if (!/^\d+$/.test(value)) throw new FwError('ERR_NET_1004', `field "${field}": "${value}" is not a port number`);
  return String(checkRange(field, Number(value), 1, 65535));
}

/** The translation fields each type requires or refuses, on the merged rule. */
function checkType(doc: ConfigDoc, r: NatRule): void {
  if (r.type !== 'snat' && r.translatedIp === '') {
    throw new FwError('ERR_NET_1004', `field "translated-ip": required for a ${r.type} rule`);
  }
  // persistence picks an address of a pool per source: a source NAT's choice
  if (r.persistent && r.type !== 'snat') {
    throw new FwError('ERR_NET_1004', `field "persistent": only an snat rule picks an address per source (this rule is ${r.type})`);
  }
  if (r.type === 'static') return checkStatic(doc, r);
  // a pool is a source NAT's: a destination NAT sends a connection to one host
  if (r.type !== 'snat' && isPool(r.translatedIp)) {
    throw new FwError('ERR_NET_1001', `field "translated-ip": "${r.translatedIp}" is a pool; a ${r.type} rule translates to one address`);
  }
  if (r.type === 'dnat-port' && r.translatedPort === '') {
    throw new FwError('ERR_NET_1004', 'field "translated-port": required for a dnat-port rule');
  }
  if (r.type !== 'dnat-port' && r.translatedPort !== '') {
    throw new FwError('ERR_NET_1004', `field "translated-port": only a dnat-port rule translates the port (this rule is ${r.type})`);
  }
}

/**
 * A static rule (issue 41) maps its src-addr, one inside host or network, to translated-ip, an
 * address or a prefix of the same size, both ways: it translates whole addresses, so it names
 * no service, port or out-interface (its zones say where it applies).
 */
function checkStatic(doc: ConfigDoc, r: NatRule): void {
  for (const [field, value] of [['service', r.service], ['translated-port', r.translatedPort], ['out-interface', r.outInterface]] as const) {
    if (value !== '' && value !== 'any') throw new FwError('ERR_NET_1004', `field "${field}": a static rule translates whole addresses in both directions; it takes no ${field}`);
  }
  if (r.translatedIp.includes('-')) {
    throw new FwError('ERR_NET_1001', `field "translated-ip": "${r.translatedIp}" is a range; a static rule maps to one address or one prefix`);
  }
  if (r.srcAddr === '' || r.srcAddr === 'any') throw new FwError('ERR_NET_1004', 'field "src-addr": required for a static rule (the inside host or network)');
  const pair = staticPair(doc, r);
  if (typeof pair === 'string') throw new FwError('ERR_NET_1001', `field "src-addr": ${pair}`);
}

/** The rule that results from `b` over `old` (a create starts from DEFAULTS). */
function merge(doc: ConfigDoc, old: NatRule, b: Body): NatRule {
  const zone = (n: string) => doc.zones.has(n);
  // an FQDN address (issue 40) is not named by NAT, like a dynamic set (docs/dynamic-objects.md)
  const addr = (n: string) => (doc.addresses.has(n) && !doc.addresses.get(n)!.fqdn) || doc.addressGroups.has(n);
  const r: NatRule = {
    id: old.id,
    description: b.description === undefined ? old.description : checkRuleDescription(b.description),
    type: b.type === undefined ? old.type : checkEnum('type', b.type, NAT_TYPES, 'ERR_SEC_1001'),
    srcZone: b['src-zone'] === undefined ? old.srcZone : checkZoneField('src-zone', b['src-zone'], zone),
    dstZone: b['dst-zone'] === undefined ? old.dstZone : checkZoneField('dst-zone', b['dst-zone'], zone),
    srcAddr: b['src-addr'] === undefined ? old.srcAddr : anyRef('src-addr', b['src-addr'], addr, 'address'),
    dstAddr: b['dst-addr'] === undefined ? old.dstAddr : anyRef('dst-addr', b['dst-addr'], addr, 'address'),
    service: b.service === undefined ? old.service : anyRef('service', b.service, (n) => doc.services.has(n) || doc.serviceGroups.has(n), 'service'),
    translatedIp: b['translated-ip'] === undefined ? old.translatedIp : b['translated-ip'] === '' ? '' : checkPool('translated-ip', b['translated-ip']),
    translatedPort: b['translated-port'] === undefined ? old.translatedPort : checkPortString('translated-port', b['translated-port']),
    outInterface:
      b['out-interface'] === undefined ? old.outInterface : checkRef('out-interface', b['out-interface'], (n) => linkExists(doc, n), 'interface'),
    ...((b.persistent ?? old.persistent) ? { persistent: true } : {}),
    ...mergedMeta(old, b, false),
  };
  checkType(doc, r);
  return r;
}

const DEFAULTS: NatRule = {
  id: 0, description: '', type: 'snat', srcZone: '', dstZone: '', srcAddr: '', dstAddr: '',
  service: '', translatedIp: '', translatedPort: '', outInterface: '',
};

export const natOps: ResourceOps = orderedRuleOps<'nat', Body>({
  table: 'nat', counter: 'nat', what: 'NAT rule', defaults: DEFAULTS, bodies, createShape, updateShape, merge,
});
