// 802.1Q VLAN interfaces on a physical parent. A VLAN name is unique among VLANs and physical
// interfaces alike (both are "links" that zones, routes, DHCP pools and NAT rules name), and
// a (parent, id) pair is used once.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, VlanObj } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { removeUnused } from '../refs';
import { checkName, checkRange, checkSameKey, existing, shapeChecker, checked } from '../validate';
import { addressesFromBody } from '../link-addresses';
import { bodies as interfaceBodies, checkManagement, checkState, checkZoneRef, LINK_STATES, linkExtras, MANAGEMENT } from './interface';

const fields = {
  ip: Type.Optional(Type.String()),
  addresses: interfaceBodies.update.properties.addresses,
  ra: interfaceBodies.update.properties.ra,
  zone: Type.Optional(Type.String()),
  state: Type.Optional(Type.String(checked({ enum: LINK_STATES }))),
  management: Type.Optional(Type.Array(Type.String(checked({ enum: MANAGEMENT })))),
};
export const bodies = {
  create: Type.Object({ name: Type.String(), id: Type.Integer(checked({ minimum: 1, maximum: 4094 })), parent: Type.String(), ...fields }, { additionalProperties: false }),
  update: Type.Object(
    { name: Type.Optional(Type.String()), id: Type.Optional(Type.Integer(checked({ minimum: 1, maximum: 4094 }))), parent: Type.Optional(Type.String()), ...fields },
    { additionalProperties: false },
  ),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

function checkVlanId(id: number): number {
  return checkRange('id', id, 1, 4094);
}

function checkParent(doc: ConfigDoc, parent: string): string {
  if (!doc.interfaces.has(parent)) {
    throw new FwError('ERR_NET_2005', `field "parent": "${parent}" is not a physical interface`);
  }
  return parent;
}

/** 409 ERR_NET_2008 when another VLAN already has this id on this parent. */
function checkPairFree(doc: ConfigDoc, v: VlanObj): void {
  for (const other of doc.vlans.values()) {
    if (other.name !== v.name && other.parent === v.parent && other.id === v.id) {
      throw new FwError('ERR_NET_2008', `VLAN id ${v.id} is already used on "${v.parent}" by vlan "${other.name}"`);
    }
  }
}

export const vlanOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const name = checkName('name', b.name);
    const v: VlanObj = {
      name,
      id: checkVlanId(b.id),
      parent: checkParent(doc, b.parent),
      ...linkExtras(addressesFromBody(b, { ip: '' }), b.ra === true),
      zone: checkZoneRef(doc, 'zone', b.zone ?? ''),
      state: checkState('state', b.state ?? 'up'),
      management: checkManagement('management', b.management ?? []),
    };
    if (doc.vlans.has(name)) throw new FwError('ERR_NET_2006', `vlan "${name}" already exists`);
    if (doc.interfaces.has(name)) throw new FwError('ERR_NET_2006', `"${name}" is already the name of a physical interface`);
    checkPairFree(doc, v);
    doc.vlans.set(name, v);
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.vlans, 'vlan', key);
    const v: VlanObj = {
      name: key,
      id: b.id === undefined ? old.id : checkVlanId(b.id),
      parent: b.parent === undefined ? old.parent : checkParent(doc, b.parent),
      ...linkExtras(addressesFromBody(b, old), b.ra ?? old.ra === true),
      zone: b.zone === undefined ? old.zone : checkZoneRef(doc, 'zone', b.zone),
      state: b.state === undefined ? old.state : checkState('state', b.state),
      management: b.management === undefined ? old.management : checkManagement('management', b.management),
    };
    checkPairFree(doc, v);
    doc.vlans.set(key, v);
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    removeUnused(doc, doc.vlans, 'vlan', 'link', key);
    return {};
  },
};
