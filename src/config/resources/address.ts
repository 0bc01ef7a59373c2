// Address objects: named lists of networks.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { removeUnused } from '../refs';
import { checkCidrList, checkName, checkSameKey, existing, shapeChecker } from '../validate';

const Ips = Type.Array(Type.String());
export const bodies = {
  create: Type.Object({ name: Type.String(), ips: Ips }, { additionalProperties: false }),
  update: Type.Object({ name: Type.Optional(Type.String()), ips: Type.Optional(Ips) }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

function checkIps(ips: string[]): string[] {
  if (ips.length === 0) throw new FwError('ERR_NET_1004', 'field "ips": at least one network is required');
  return checkCidrList('ips', ips);
}

export const addressOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const name = checkName('name', b.name);
    const ips = checkIps(b.ips);
    if (doc.addresses.has(name)) throw new FwError('ERR_NET_2006', `address "${name}" already exists`);
    if (doc.addressGroups.has(name)) throw new FwError('ERR_NET_2006', `address group "${name}" already exists (a name is either an address or an address group)`);
    if (doc.dynamicSets.has(name)) throw new FwError('ERR_NET_2006', `dynamic set "${name}" already exists (a name is either an address or a dynamic set)`);
    doc.addresses.set(name, { name, ips });
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.addresses, 'address', key);
    const ips = b.ips === undefined ? old.ips : checkIps(b.ips);
    doc.addresses.set(key, { name: key, ips });
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    removeUnused(doc, doc.addresses, 'address', 'address', key);
    return {};
  },
};
