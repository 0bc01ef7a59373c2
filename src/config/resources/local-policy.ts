// Local policies (issue 41): the rule base for traffic addressed to the firewall itself (DNS,
// DHCP, NTP, a VPN port, ssh or the web UI from an admin network), as FortiOS's local-in
// policies, pfSense's and OPNsense's rules to "This Firewall", PAN-OS's security rules whose
// destination is the firewall's address. An ordered table like the security policies, with
// their payloads, objects, metadata, moves and placement, and no `dst-zone`: the firewall is
// the destination. The security policies stay the forward rule base. Evaluated before the
// interfaces' `management` shortcuts (docs/local-policies.md).
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, PolicyObj } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { ZoneRefField } from '../zone-list';
import { isPlainObject } from '../json';
import { orderedRuleOps } from '../moves';
import { shapeChecker } from '../validate';
import { ruleDescriptionField, ruleMetaFields } from '../rule-meta';
import { mergePolicy } from './policy';

const fields = {
  'src-zone': ZoneRefField,
  'src-addr': Type.Optional(Type.String()),
  'dst-addr': Type.Optional(Type.String({ description: 'narrows the firewall\'s own addresses (any: every one of them)' })),
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

/** A `dst-zone` gets its own refusal: the most likely mistake of a client that knows policies. */
function noDstZone(body: unknown): void {
  if (isPlainObject(body) && 'dst-zone' in body) {
    throw new FwError('ERR_NET_1004', 'unknown field "dst-zone": a local policy has none (the firewall itself is the destination)');
  }
}

type Body = ReturnType<typeof updateShape>;

function merge(doc: ConfigDoc, old: PolicyObj, b: Body): PolicyObj {
  return mergePolicy(doc, old, b, (n) => doc.addresses.has(n) || doc.addressGroups.has(n), false);
}

const DEFAULTS: PolicyObj = { id: 0, action: 'deny', srcZone: '', dstZone: '', srcAddr: '', dstAddr: '', services: [], log: false };

const ops = orderedRuleOps<'localPolicies', Body>({
  table: 'localPolicies', counter: 'localPolicy', what: 'local policy', defaults: DEFAULTS, bodies,
  createShape: (body) => (noDstZone(body), createShape(body)),
  updateShape: (body) => (noDstZone(body), updateShape(body)),
  merge,
});

export const localPolicyOps: ResourceOps = ops;
