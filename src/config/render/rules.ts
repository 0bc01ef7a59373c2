// Read models of routes, security policies and NAT rules, exactly as firewall-api.md spells
// them. A policy embeds the full Zone, Address and Service read models (null for any zone or
// address, [] for any service); a NAT rule names its addresses and service ("" for any).
import { Type, type Static } from '@sinclair/typebox';
import type { ConfigDoc, NatRule, PolicyObj, RouteObj, ZoneRef } from '../types';
import { metaOf, ruleMetaModelFields } from '../rule-meta';
import { AddressModel, oneOf, renderAddress, renderService, renderZone, ServiceModel, ZoneModel } from './objects';

const RuleId = Type.Integer({ minimum: 1 });

export const RouteModel = Type.Object({
  id: RuleId,
  description: Type.String(),
  destination: Type.String(),
  gateway: Type.String(),
  interface: Type.String(),
  metric: Type.Integer({ minimum: 0, maximum: 65535 }),
}, { additionalProperties: false });
export type RouteModel = Static<typeof RouteModel>;

export function renderRoute(r: RouteObj): RouteModel {
  return { id: r.id, description: r.description, destination: r.destination, gateway: r.gateway, interface: r.interface, metric: r.metric };
}

/** null for any, the zone's model, or (issue 41, several zones) the list of their models: never
 * null nor one zone's model, so a client that knows only one zone per rule cannot take such a
 * rule for an any-zone or a one-zone rule (docs/api.md, "Several zones per rule") */
const ZoneOrAny = Type.Union([ZoneModel, Type.Null(), Type.Array(ZoneModel, { minItems: 2 })]);
/** A group a policy names where an address or a service goes: its name and direct members (the
 * group's own read model less its description; flattening it here would repeat a group's
 * networks in every policy naming it). */
const GroupRef = Type.Object({
  name: Type.String(),
  members: Type.Array(Type.String()),
}, { additionalProperties: false, description: 'an address group or service group (/api/address-groups, /api/service-groups)' });
const AddressOrAny = Type.Union([AddressModel, GroupRef, Type.Null()]);

export const PolicyModel = Type.Object({
  id: RuleId,
  action: oneOf(['allow', 'deny'] as const),
  srcZone: ZoneOrAny,
  dstZone: ZoneOrAny,
  srcAddr: AddressOrAny,
  dstAddr: AddressOrAny,
  services: Type.Array(Type.Union([ServiceModel, GroupRef])),
  log: Type.Boolean(),
  ...ruleMetaModelFields,
  description: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type PolicyModel = Static<typeof PolicyModel>;

function oneZoneModel(doc: ConfigDoc, name: string): ZoneModel | null {
  const z = name === '' ? undefined : doc.zones.get(name);
  return z ? renderZone(doc, z) : null;
}

function zoneModel(doc: ConfigDoc, z: ZoneRef): ZoneModel | null | ZoneModel[] {
  if (typeof z === 'string') return oneZoneModel(doc, z);
  return z.flatMap((name) => oneZoneModel(doc, name) ?? []);
}

type GroupRef = Static<typeof GroupRef>;

function addressModel(doc: ConfigDoc, name: string): AddressModel | GroupRef | null {
  const a = name === '' ? undefined : doc.addresses.get(name);
  if (a) return renderAddress(a);
  const g = name === '' ? undefined : doc.addressGroups.get(name);
  return g ? { name, members: [...g.members] } : null;
}

export function renderPolicy(doc: ConfigDoc, p: PolicyObj): PolicyModel {
  const services: Array<ServiceModel | GroupRef> = [];
  for (const name of p.services) {
    const s = doc.services.get(name);
    if (s) services.push(renderService(s));
    else {
      const g = doc.serviceGroups.get(name);
      if (g) services.push({ name, members: [...g.members] });
    }
  }
  return {
    id: p.id,
    action: p.action,
    srcZone: zoneModel(doc, p.srcZone),
    dstZone: zoneModel(doc, p.dstZone),
    srcAddr: addressModel(doc, p.srcAddr),
    dstAddr: addressModel(doc, p.dstAddr),
    services,
    log: p.log,
    ...metaOf(p, true),
  };
}

export const NatModel = Type.Object({
  id: RuleId,
  description: Type.String(),
  type: oneOf(['snat', 'dnat-ip', 'dnat-port', 'static'] as const),
  srcZone: ZoneOrAny,
  dstZone: ZoneOrAny,
  srcAddress: Type.String(),
  dstAddress: Type.String(),
  service: Type.String(),
  translatedIP: Type.String(),
  translatedPort: Type.String(),
  outInterface: Type.String(),
  persistent: Type.Optional(Type.Boolean({ description: 'present (true) only when set: an snat keeps one pool address per source' })),
  ...ruleMetaModelFields,
}, { additionalProperties: false });
export type NatModel = Static<typeof NatModel>;

export function renderNat(doc: ConfigDoc, n: NatRule): NatModel {
  return {
    id: n.id,
    description: n.description,
    type: n.type,
    srcZone: zoneModel(doc, n.srcZone),
    dstZone: zoneModel(doc, n.dstZone),
    srcAddress: n.srcAddr,
    dstAddress: n.dstAddr,
    service: n.service,
    translatedIP: n.translatedIp,
    translatedPort: n.translatedPort,
    outInterface: n.outInterface,
    ...(n.persistent ? { persistent: true } : {}),
    ...metaOf(n, false),
  };
}
