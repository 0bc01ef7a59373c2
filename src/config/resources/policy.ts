// Security policies: an ordered table evaluated top to bottom, first match wins. New
// policies go to the bottom; POST /api/policies/{id}/move reorders (moves.ts).
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, PolicyAction, PolicyObj } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { checkZoneField, ZoneRefField } from '../zone-list';
import { orderedRuleOps } from '../moves';
import { anyRef, checkEnum, checkRef, shapeChecker } from '../validate';
import { mergedMeta, ruleDescriptionField, ruleMetaFields } from '../rule-meta';

export const ACTIONS: readonly PolicyAction[] = ['allow', 'deny'];
export const MAX_POLICY_SERVICES = 256;

const fields = {
  'src-zone': ZoneRefField,
  'dst-zone': ZoneRefField,
  'src-addr': Type.Optional(Type.String()),
  'dst-addr': Type.Optional(Type.String()),
  services: Type.Optional(Type.Array(Type.String())),
  log: Type.Optional(Type.Boolean()),
  ...ruleMetaFields,
  ...ruleDescriptionField,
};
export const bodies = {
  create: Type.Object({ ...fields, action: Type.String() }, { additionalProperties: false }),
  update: Type.Object({ ...fields, id: Type.Optional(Type.Integer()), action: Type.Optional(Type.String()) }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

/**
 * A policy's services: [] or ["any"] mean any (stored as []); "any" beside names is refused;
 * each name must exist; a repeated name is kept once (order kept).
 */
export function checkServices(doc: ConfigDoc, values: string[]): string[] {
  if (values.length > MAX_POLICY_SERVICES) {
    throw new FwError('ERR_NET_1008', `field "services": at most ${MAX_POLICY_SERVICES} entries`);
  }
  if (values.includes('any')) {
    if (values.some((v) => v !== 'any')) throw new FwError('ERR_NET_1004', 'field "services": "any" cannot be combined with service names');
    return [];
  }
  const out: string[] = [];
  values.forEach((name, i) => {
    if (name === '') throw new FwError('ERR_NET_1004', `field "services[${i}]": a service name is required`);
    checkRef(`services[${i}]`, name, (n) => doc.services.has(n) || doc.serviceGroups.has(n), 'service');
    if (!out.includes(name)) out.push(name);
  });
  return out;
}

type Body = ReturnType<typeof updateShape>;

/** The policy that results from `b` over `old` (all fields of `old` for a create's defaults). */
/**
 * A policy's fields after `b` is applied to `old`: the security policies' and the local
 * policies' (issue 41), which have no destination zone and their own idea of an address.
 */
export function mergePolicy(doc: ConfigDoc, old: PolicyObj, b: Body, addr: (name: string) => boolean, hasDstZone: boolean): PolicyObj {
  const zone = (n: string) => doc.zones.has(n);
  return {
    id: old.id,
    action: b.action === undefined ? old.action : checkEnum('action', b.action, ACTIONS, 'ERR_SEC_1002'),
    srcZone: b['src-zone'] === undefined ? old.srcZone : checkZoneField('src-zone', b['src-zone'], zone),
    dstZone: !hasDstZone ? '' : b['dst-zone'] === undefined ? old.dstZone : checkZoneField('dst-zone', b['dst-zone'], zone),
    srcAddr: b['src-addr'] === undefined ? old.srcAddr : anyRef('src-addr', b['src-addr'], addr, 'address'),
    dstAddr: b['dst-addr'] === undefined ? old.dstAddr : anyRef('dst-addr', b['dst-addr'], addr, 'address'),
    services: b.services === undefined ? old.services : checkServices(doc, b.services),
    log: b.log ?? old.log,
    ...mergedMeta(old, b, true),
  };
}

function merge(doc: ConfigDoc, old: PolicyObj, b: Body): PolicyObj {
  // a dynamic set (issue 40) goes where an address does
  return mergePolicy(doc, old, b, (n) => doc.addresses.has(n) || doc.addressGroups.has(n) || doc.dynamicSets.has(n), true);
}

const DEFAULTS: PolicyObj = { id: 0, action: 'deny', srcZone: '', dstZone: '', srcAddr: '', dstAddr: '', services: [], log: false };

export const policyOps: ResourceOps = orderedRuleOps<'policies', Body>({
  table: 'policies', counter: 'policy', what: 'policy', defaults: DEFAULTS, bodies, createShape, updateShape, merge,
});
