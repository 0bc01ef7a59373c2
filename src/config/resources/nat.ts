// NAT rules: an ordered table, evaluated independently of the security policies. New rules
// go to the bottom; POST /api/nat/{id}/move reorders (moves.ts). The type decides which
// translation fields a rule has; the merged rule of a PUT must satisfy them too.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, NatRule, NatType } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { linkExists } from '../refs';
import { orderedRuleOps } from '../moves';
import { checkRuleDescription, mergedMeta, ruleMetaFields } from '../rule-meta';
import { checkPool, isPool } from '../nat-pool';
import { anyRef, checkEnum, checkRange, checkRef, shapeChecker } from '../validate';
import { isRuntimeAddress } from '../groups';

export const NAT_TYPES: readonly NatType[] = ['snat', 'dnat-ip', 'dnat-port'];

const fields = {
  description: Type.Optional(Type.String()),
  'src-zone': Type.Optional(Type.String()),
  'dst-zone': Type.Optional(Type.String()),
  'src-addr': Type.Optional(Type.String()),
  'dst-addr': Type.Optional(Type.String()),
  service: Type.Optional(Type.String()),
  'translated-ip': Type.Optional(Type.String()),
  'translated-port': Type.Optional(Type.String()),
  'out-interface': Type.Optional(Type.String()),
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
function checkType(r: NatRule): void {
  if (r.type !== 'snat' && r.translatedIp === '') {
    throw new FwError('ERR_NET_1004', `field "translated-ip": required for a ${r.type} rule`);
  }
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

/** The rule that results from `b` over `old` (a create starts from DEFAULTS). */
function merge(doc: ConfigDoc, old: NatRule, b: Body): NatRule {
  const zone = (n: string) => doc.zones.has(n);
  // an FQDN address (issue 40) is not named by NAT, like a dynamic set (docs/dynamic-objects.md)
  const addr = (n: string) => (doc.addresses.has(n) && !isRuntimeAddress(doc.addresses.get(n))) || doc.addressGroups.has(n);
  const r: NatRule = {
    id: old.id,
    description: b.description === undefined ? old.description : checkRuleDescription(b.description),
    type: b.type === undefined ? old.type : checkEnum('type', b.type, NAT_TYPES, 'ERR_SEC_1001'),
    srcZone: b['src-zone'] === undefined ? old.srcZone : anyRef('src-zone', b['src-zone'], zone, 'zone'),
    dstZone: b['dst-zone'] === undefined ? old.dstZone : anyRef('dst-zone', b['dst-zone'], zone, 'zone'),
    srcAddr: b['src-addr'] === undefined ? old.srcAddr : anyRef('src-addr', b['src-addr'], addr, 'address'),
    dstAddr: b['dst-addr'] === undefined ? old.dstAddr : anyRef('dst-addr', b['dst-addr'], addr, 'address'),
    service: b.service === undefined ? old.service : anyRef('service', b.service, (n) => doc.services.has(n) || doc.serviceGroups.has(n), 'service'),
    translatedIp: b['translated-ip'] === undefined ? old.translatedIp : b['translated-ip'] === '' ? '' : checkPool('translated-ip', b['translated-ip']),
    translatedPort: b['translated-port'] === undefined ? old.translatedPort : checkPortString('translated-port', b['translated-port']),
    outInterface:
      b['out-interface'] === undefined ? old.outInterface : checkRef('out-interface', b['out-interface'], (n) => linkExists(doc, n), 'interface'),
    ...mergedMeta(old, b, false),
  };
  checkType(r);
  return r;
}

const DEFAULTS: NatRule = {
  id: 0, description: '', type: 'snat', srcZone: '', dstZone: '', srcAddr: '', dstAddr: '',
  service: '', translatedIp: '', translatedPort: '', outInterface: '',
};

export const natOps: ResourceOps = orderedRuleOps<'nat', Body>({
  table: 'nat', counter: 'nat', what: 'NAT rule', defaults: DEFAULTS, bodies, createShape, updateShape, merge,
});
