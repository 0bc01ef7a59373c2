// Address groups and service groups (groups.ts): one set of operations for both kinds. A
// group's name is unique across its kind's namespace (an address and an address group never
// share a name: 409 ERR_NET_2006 either way); a delete of a group something still names is
// 409 ERR_NET_2007 naming every referrer (refs.ts).
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, GroupObj } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { checkMembers, type GroupKind } from '../groups';
import { removeUnused, type RefKind } from '../refs';
import { checkName, checkSameKey, checkText, existing, shapeChecker, checked } from '../validate';

const MAX_DESCRIPTION = 1024;

export const groupBodies = {
  create: Type.Object({
    name: Type.String(),
    members: Type.Array(Type.String(), { description: 'names of base objects or other groups of the same kind (nesting at most 8 deep)' }),
    description: Type.Optional(Type.String({ description: 'up to 1,024 characters', ...checked({ maxLength: MAX_DESCRIPTION }) })),
  }, { additionalProperties: false }),
  update: Type.Object({
    name: Type.Optional(Type.String()),
    members: Type.Optional(Type.Array(Type.String())),
    description: Type.Optional(Type.String(checked({ maxLength: MAX_DESCRIPTION }))),
  }, { additionalProperties: false }),
};
const createShape = shapeChecker(groupBodies.create);
const updateShape = shapeChecker(groupBodies.update);

function groupOps(kind: GroupKind, ref: RefKind): ResourceOps {
  return {
    bodies: groupBodies,
    create(doc: ConfigDoc, body: unknown) {
      const b = createShape(body);
      const name = checkName('name', b.name);
      const description = b.description === undefined ? '' : checkText('description', b.description, MAX_DESCRIPTION);
      if (kind.groups(doc).has(name)) throw new FwError('ERR_NET_2006', `${kind.what} "${name}" already exists`);
      if (kind.bases(doc).has(name)) throw new FwError('ERR_NET_2006', `${kind.base} "${name}" already exists (a name is either a ${kind.base} or a ${kind.what})`);
      if (kind === ADDRESS_GROUP && doc.dynamicSets.has(name)) throw new FwError('ERR_NET_2006', `dynamic set "${name}" already exists (a name is either an address group or a dynamic set)`);
      const members = checkMembers(doc, kind, name, b.members);
      kind.groups(doc).set(name, { name, members, description });
      return {};
    },
    update(doc: ConfigDoc, key: string, body: unknown) {
      const b = updateShape(body);
      checkSameKey('name', b.name, key);
      const old = existing(kind.groups(doc), kind.what, key);
      const description = b.description === undefined ? old.description : checkText('description', b.description, MAX_DESCRIPTION);
      const members = b.members === undefined ? old.members : checkMembers(doc, kind, key, b.members);
      kind.groups(doc).set(key, { name: key, members, description } satisfies GroupObj);
      return {};
    },
    remove(doc: ConfigDoc, key: string) {
      removeUnused(doc, kind.groups(doc), kind.what, ref, key);
      return {};
    },
  };
}

export const ADDRESS_GROUP: GroupKind = { what: 'address group', base: 'address', groups: (d) => d.addressGroups, bases: (d) => d.addresses };
export const SERVICE_GROUP: GroupKind = { what: 'service group', base: 'service', groups: (d) => d.serviceGroups, bases: (d) => d.services };

export const addressGroupOps = groupOps(ADDRESS_GROUP, 'address');
export const serviceGroupOps = groupOps(SERVICE_GROUP, 'service');
