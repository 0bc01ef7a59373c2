// The packet tracer's word on FQDN addresses (issue 40): when the policy that decided a packet
// names an FQDN address, which of the name's current prefixes the packet's address fell in,
// and when that answer was obtained (the FQDN and its resolution time).
import { Type } from '@sinclair/typebox';
import type { ConfigDoc } from '../config/types';
import { parseCidr } from '../config/net';
import { contains } from '../config/dynamic-entries';
import type { Packet } from '../eval/types';
import type { FqdnResolver } from './fqdn';
import { decidingMatches, type AddrField } from './trace';

export const FqdnMatches = Type.Array(Type.Object({
  address: Type.String(),
  fqdn: Type.String(),
  field: Type.Union([Type.Literal('src-addr'), Type.Literal('dst-addr')]),
  entry: Type.String({ description: 'the resolved prefix the address fell in' }),
  resolvedAt: Type.String({ description: 'ISO time of the answer in use' }),
}, { additionalProperties: false }), { description: 'present when the deciding policy names an FQDN address that the packet matched (issue 40)' });

export interface FqdnMatch {
  address: string;
  fqdn: string;
  field: AddrField;
  entry: string;
  resolvedAt: string;
}

/** The resolved prefixes of the deciding policy's FQDN addresses that hold the packet's addresses. */
export function fqdnMatches(resolver: FqdnResolver, doc: ConfigDoc, policyId: number | null, packet: Packet): FqdnMatch[] {
  return decidingMatches(doc, policyId, packet, (address, field, addr) => {
    const s = resolver.state(address);
    const entry = s?.resolved.find((r) => { const c = parseCidr(r); return c !== null && contains(c, addr); });
    return s && entry ? { address, fqdn: s.fqdn, field, entry, resolvedAt: new Date(s.resolvedAt).toISOString() } : null;
  });
}
