// Several zones per rule (issue 41): a policy's, local policy's or NAT rule's zone field is ""
// (any), one zone's name, or a list of two or more names (the rule matches a packet from,
// or to, any of them). A one-zone rule is stored, read and exported as before; a list of one
// name is stored as that name, so the two spellings of one zone are one rule.
import { Type } from '@sinclair/typebox';
import { FwError } from '../errors';
import type { ZoneRef } from './types';
import { checkRef, checkUnique } from './validate';

/** The payload's spelling: a name, "any", "", or an array of names. */
export const ZoneRefField = Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], {
  description: 'a zone\'s name, "any" or "" (any zone), or an array of zone names (issue 41: the rule matches a packet of any of them; a list of one is that zone; docs/api.md, "Several zones per rule")',
}));

/** The zones a field names; [] for any. */
export function zoneNames(z: ZoneRef): readonly string[] {
  if (typeof z !== 'string') return z;
  return z === '' ? [] : [z];
}

/** The field's first zone, "" for any (generators and benchmarks that make one-zone rules). */
export const firstZone = (z: ZoneRef): string => zoneNames(z)[0] ?? '';

/** Does the field name zone `name`? */
export function namesZone(z: ZoneRef, name: string): boolean {
  return typeof z === 'string' ? z === name : z.includes(name);
}

/**
 * A zone field of a payload: absent, "", "any": any (""); a name; a list of names, each
 * existing (400 ERR_NET_2003), none "any" or "" and none twice (400 ERR_NET_1004), not
 * empty (400 ERR_NET_1004: an empty list would match nothing, and any is "any").
 */
export function checkZoneField(field: string, value: string | string[] | undefined, exists: (name: string) => boolean): ZoneRef {
  if (value === undefined || value === '' || value === 'any') return '';
  if (typeof value === 'string') return checkRef(field, value, exists, 'zone');
  if (value.length === 0) throw new FwError('ERR_NET_1004', `field "${field}": an empty list of zones (omit the field or write "any" for any zone)`);
  value.forEach((name, i) => {
    if (name === '' || name === 'any') throw new FwError('ERR_NET_1004', `field "${field}[${i}]": "any" cannot be combined with zone names`);
  });
  checkUnique(field, value);
  value.forEach((name, i) => checkRef(`${field}[${i}]`, name, exists, 'zone'));
  return value.length === 1 ? value[0] : [...value];
}

/** The export's spelling of a zone field: "any", a name, or the list. */
export function zoneRefText(z: ZoneRef): string | string[] {
  return typeof z === 'string' ? (z === '' ? 'any' : z) : [...z];
}
