// Dynamic address sets (issue 40, docs/dynamic-objects.md): the committed part of a set whose
// entries are added and removed at run time (src/dynamic/). The name shares the address
// namespace (409 ERR_NET_2006 against an address or an address group), and a delete of a set
// a policy names is 409 ERR_NET_2007 (refs.ts: it is referenced as an address).
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, DynamicSetObj } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { removeUnused } from '../refs';
import { checkEnum, checkName, checkRange, checkSameKey, existing, shapeChecker, checked } from '../validate';

/** The most entries one set may be declared to hold (the run-time cap over all is FW_DYNAMIC_MAX_ENTRIES). */
export const MAX_SET_ENTRIES = 1_000_000;
/** The longest default ttl: 30 days (an entry meant to stay is posted with ttl 0). */
export const MAX_TTL = 30 * 86400;
export const FAMILIES = ['ipv4', 'ipv6'] as const;

const Fields = {
  family: Type.String({ enum: [...FAMILIES], description: 'the family of every entry' }),
  'max-entries': Type.Integer({ ...checked({ minimum: 1, maximum: MAX_SET_ENTRIES }), description: `entries the set holds at most (1-${MAX_SET_ENTRIES}); default 65,536` }),
  'default-ttl': Type.Integer({ ...checked({ minimum: 0, maximum: MAX_TTL }), description: `seconds an entry lives when its POST names no ttl (0: until deleted, at most ${MAX_TTL}); default 3,600` }),
};
export const bodies = {
  create: Type.Object({
    name: Type.String(),
    family: Fields.family,
    'max-entries': Type.Optional(Fields['max-entries']),
    'default-ttl': Type.Optional(Fields['default-ttl']),
  }, { additionalProperties: false }),
  update: Type.Object({
    name: Type.Optional(Type.String()),
    family: Type.Optional(Fields.family),
    'max-entries': Type.Optional(Fields['max-entries']),
    'default-ttl': Type.Optional(Fields['default-ttl']),
  }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

type Body = ReturnType<typeof updateShape>;

function merged(key: string, old: DynamicSetObj, b: Body): DynamicSetObj {
  return {
    name: key,
    family: b.family === undefined ? old.family : checkEnum('family', b.family, FAMILIES),
    maxEntries: b['max-entries'] === undefined ? old.maxEntries : checkRange('max-entries', b['max-entries'], 1, MAX_SET_ENTRIES),
    defaultTtl: b['default-ttl'] === undefined ? old.defaultTtl : checkRange('default-ttl', b['default-ttl'], 0, MAX_TTL),
  };
}

const DEFAULTS: Omit<DynamicSetObj, 'name' | 'family'> = { maxEntries: 65536, defaultTtl: 3600 };

export const dynamicSetOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const name = checkName('name', b.name);
    const set = merged(name, { name, family: 'ipv4', ...DEFAULTS }, b);
    if (doc.dynamicSets.has(name)) throw new FwError('ERR_NET_2006', `dynamic set "${name}" already exists`);
    if (doc.addresses.has(name)) throw new FwError('ERR_NET_2006', `address "${name}" already exists (a name is either an address or a dynamic set)`);
    if (doc.addressGroups.has(name)) throw new FwError('ERR_NET_2006', `address group "${name}" already exists (a name is either an address group or a dynamic set)`);
    doc.dynamicSets.set(name, set);
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.dynamicSets, 'dynamic set', key);
    doc.dynamicSets.set(key, merged(key, old, b));
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    removeUnused(doc, doc.dynamicSets, 'dynamic set', 'address', key);
    return {};
  },
};
