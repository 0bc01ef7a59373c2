// Security zones. Membership is stored only on the members: an interface or VLAN is in the
// zone its `zone` field names, so a link is in at most one zone and the two views
// (Zone.interfaces, Interface.zone / Vlan.zone) can never disagree. Zone.interfaces in a
// payload sets that field on the members: listed links move into the zone (out of their old
// one); on update, former members that are not listed any more get zone "".
//
// Decisions: `color` is free text of at most 32 characters ("" = none; longer is 400
// ERR_NET_1004). A name repeated in `interfaces` is 400 ERR_NET_1004. A zone that still has
// members, or that a policy or NAT rule names, cannot be deleted (409 ERR_NET_2007).
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, ZoneType } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { linkExists, removeUnused } from '../refs';
import {
  checkCidrList, checkEnum, checkName, checkSameKey, checkUnique, existing, shapeChecker, checked,
} from '../validate';

const ZONE_TYPES: readonly ZoneType[] = ['l2', 'l3'];
const MAX_COLOR = 32;

const fields = {
  color: Type.Optional(Type.String(checked({ maxLength: MAX_COLOR }))),
  interfaces: Type.Optional(Type.Array(Type.String())),
  networks: Type.Optional(Type.Array(Type.String())),
};
export const bodies = {
  create: Type.Object({ name: Type.String(), type: Type.String(checked({ enum: ZONE_TYPES })), ...fields }, { additionalProperties: false }),
  update: Type.Object({ name: Type.Optional(Type.String()), type: Type.Optional(Type.String(checked({ enum: ZONE_TYPES }))), ...fields }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

function checkColor(value: string): string {
  if (value.length > MAX_COLOR) throw new FwError('ERR_NET_1004', `field "color": at most ${MAX_COLOR} characters`);
  return value;
}

function checkMembers(doc: ConfigDoc, names: string[]): string[] {
  names.forEach((n, i) => {
    if (!linkExists(doc, n)) throw new FwError('ERR_NET_2003', `field "interfaces[${i}]": interface or VLAN "${n}" does not exist`);
  });
  return checkUnique('interfaces', names);
}

/**
 * Makes the members of `zone` exactly `members`: listed links get the zone, other links that
 * had it get "". Replaces the changed objects, never edits them in place.
 */
function setMembers(doc: ConfigDoc, zone: string, members: string[]): void {
  const wanted = new Set(members);
  for (const [name, i] of doc.interfaces) {
    const z = wanted.has(name) ? zone : i.zone === zone ? '' : i.zone;
    if (z !== i.zone) doc.interfaces.set(name, { ...i, zone: z });
  }
  for (const [name, v] of doc.vlans) {
    const z = wanted.has(name) ? zone : v.zone === zone ? '' : v.zone;
    if (z !== v.zone) doc.vlans.set(name, { ...v, zone: z });
  }
}

export const zoneOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const name = checkName('name', b.name);
    const type = checkEnum('type', b.type, ZONE_TYPES);
    const color = checkColor(b.color ?? '');
    const networks = checkCidrList('networks', b.networks ?? []);
    const members = checkMembers(doc, b.interfaces ?? []);
    if (doc.zones.has(name)) throw new FwError('ERR_NET_2006', `zone "${name}" already exists`);
    doc.zones.set(name, { name, type, color, networks });
    setMembers(doc, name, members);
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.zones, 'zone', key);
    const type = b.type === undefined ? old.type : checkEnum('type', b.type, ZONE_TYPES);
    const color = b.color === undefined ? old.color : checkColor(b.color);
    const networks = b.networks === undefined ? old.networks : checkCidrList('networks', b.networks);
    const members = b.interfaces === undefined ? undefined : checkMembers(doc, b.interfaces);
    doc.zones.set(key, { name: key, type, color, networks });
    if (members) setMembers(doc, key, members);
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    removeUnused(doc, doc.zones, 'zone', 'zone', key);
    return {};
  },
};
