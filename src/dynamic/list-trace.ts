// The packet tracer's word on external lists (issue 40): when the policy that decided a packet
// names a list, which entry of it the packet's address fell in, and when the list was fetched.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc } from '../config/types';
import type { Packet } from '../eval/types';
import type { ExternalLists } from './lists';
import { decidingMatches, type AddrField } from './trace';

export const ListMatches = Type.Array(Type.Object({
  list: Type.String({ description: 'the address that is the list' }),
  field: Type.Union([Type.Literal('src-addr'), Type.Literal('dst-addr')]),
  entry: Type.String({ description: 'the entry (prefix) of the list the address fell in' }),
  url: Type.String(),
  fetchedAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO time of the fetch the entry came from' }),
}, { additionalProperties: false }), { description: 'present when the deciding policy names an external list and the address is in it (issue 40)' });

export interface ListMatch {
  list: string;
  field: AddrField;
  entry: string;
  url: string;
  fetchedAt: string | null;
}

/** The entries of the deciding policy's lists that hold the packet's addresses. */
export function listMatches(lists: ExternalLists, doc: ConfigDoc, policyId: number | null, packet: Packet): ListMatch[] {
  return decidingMatches(doc, policyId, packet, (list, field, addr) => {
    const hit = doc.addresses.get(list)?.url ? lists.entryOf(list, addr) : null;
    return hit ? { list, field, entry: hit.entry, url: hit.url, fetchedAt: hit.fetchedAt ? new Date(hit.fetchedAt).toISOString() : null } : null;
  });
}
