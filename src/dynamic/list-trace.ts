// The packet tracer's word on external lists (issue 40): when the policy that decided a packet
// names a list, which entry of it the packet's address fell in, and when the list was fetched.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc } from '../config/types';
import { parseCidr } from '../config/net';
import type { Packet } from '../eval/types';
import type { ExternalLists } from './lists';

export const ListMatches = Type.Array(Type.Object({
  list: Type.String({ description: 'the address that is the list' }),
  field: Type.Union([Type.Literal('src-addr'), Type.Literal('dst-addr')]),
  entry: Type.String({ description: 'the entry (prefix) of the list the address fell in' }),
  url: Type.String(),
  fetchedAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO time of the fetch the entry came from' }),
}, { additionalProperties: false }), { description: 'present when the deciding policy names an external list and the address is in it (issue 40)' });

export interface ListMatch {
  list: string;
  field: 'src-addr' | 'dst-addr';
  entry: string;
  url: string;
  fetchedAt: string | null;
}

/** The entries of the deciding policy's lists that hold the packet's addresses. */
export function listMatches(lists: ExternalLists, doc: ConfigDoc, policyId: number | null, packet: Packet): ListMatch[] {
  if (policyId === null) return [];
  const p = doc.policies.find((x) => x.id === policyId);
  if (!p) return [];
  const out: ListMatch[] = [];
  const look = (name: string, field: ListMatch['field'], ip: string) => {
    if (!doc.addresses.get(name)?.url) return;
    const addr = parseCidr(ip);
    const hit = addr && lists.entryOf(name, addr);
    if (hit) out.push({ list: name, field, entry: hit.entry, url: hit.url, fetchedAt: hit.fetchedAt ? new Date(hit.fetchedAt).toISOString() : null });
  };
  look(p.srcAddr, 'src-addr', packet.srcIp);
  look(p.dstAddr, 'dst-addr', packet.dstIp);
  return out;
}
