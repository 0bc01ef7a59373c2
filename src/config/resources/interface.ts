// Physical interfaces: a fixed inventory made at first start, edited but never created or
// deleted. An interface's `zone` is the one stored side of zone membership (see zone.ts).
//
// Decisions: `management` keeps the order given; a repeated or unknown item is 400
// ERR_NET_1005. `ip` keeps its host bits (192.168.1.1/24) in canonical form; "" clears it.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, LinkState, Management } from '../types';
import type { ResourceOps } from '../resource';
import { checkEnum, checkRef, checkSameKey, checkUnique, existing, shapeChecker, checked } from '../validate';
import { addressesFromBody } from '../link-addresses';

export const MANAGEMENT: readonly Management[] = ['ping', 'ssh', 'https', 'http'];
export const LINK_STATES: readonly LinkState[] = ['up', 'down'];

/** A subset of ping, ssh, https, http, each at most once (else 400 ERR_NET_1005). */
export function checkManagement(field: string, values: string[]): Management[] {
  const out = values.map((v, i) => checkEnum(`${field}[${i}]`, v, MANAGEMENT));
  return checkUnique(field, out, 'ERR_NET_1005');
}

export function checkState(field: string, value: string): LinkState {
  return checkEnum(field, value, LINK_STATES);
}

/** The optional fields of a link beyond the seed's: stored only when set (the seed's documents stay as they were). */
export function linkExtras(addressed: { ip: string; addresses?: string[] }, ra: boolean): { ip: string; addresses?: string[]; ra?: true } {
  return { ...addressed, ...(ra ? { ra: true as const } : {}) };
}

/** A zone reference of an interface or VLAN: an existing zone, or "" for none (else 400 ERR_NET_2003). */
export function checkZoneRef(doc: ConfigDoc, field: string, value: string): string {
  return checkRef(field, value, (z) => doc.zones.has(z), 'zone');
}

export const bodies = {
  update: Type.Object(
    {
      name: Type.Optional(Type.String()),
      ip: Type.Optional(Type.String()),
      addresses: Type.Optional(Type.Array(Type.String(), { description: 'every address with its prefix, IPv4 and IPv6; `ip` is the first IPv4 one (else the first)' })),
      ra: Type.Optional(Type.Boolean({ description: 'serve IPv6 clients by router advertisements (SLAAC)' })),
      management: Type.Optional(Type.Array(Type.String(checked({ enum: MANAGEMENT })))),
      state: Type.Optional(Type.String(checked({ enum: LINK_STATES }))),
      zone: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
};
const updateShape = shapeChecker(bodies.update);

export const interfaceOps: ResourceOps = {
  bodies,
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.interfaces, 'interface', key);
    const addressed = addressesFromBody(b, old);
    const management = b.management === undefined ? old.management : checkManagement('management', b.management);
    const state = b.state === undefined ? old.state : checkState('state', b.state);
    const zone = b.zone === undefined ? old.zone : checkZoneRef(doc, 'zone', b.zone);
    doc.interfaces.set(key, { name: key, ...linkExtras(addressed, b.ra ?? old.ra === true), management, state, zone });
    return {};
  },
};
