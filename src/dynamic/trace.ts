// The packet tracer's word on dynamic sets (issue 40): when the policy that decided a packet
// names a dynamic set, which entry of it the packet's address fell in, and until when.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc } from '../config/types';
import { parseCidr, type Cidr } from '../config/net';
import type { Packet } from '../eval/types';
import type { DynamicSets } from './service';
import { contains } from '../config/dynamic-entries';

export const DynamicMatches = Type.Array(Type.Object({
  set: Type.String(),
  field: Type.Union([Type.Literal('src-addr'), Type.Literal('dst-addr')]),
  entry: Type.String({ description: 'the entry (prefix) the address fell in' }),
  expiresAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO time; null: until deleted' }),
}, { additionalProperties: false }), { description: 'present when the deciding policy names a dynamic set (issue 40)' });

export interface DynamicMatch {
  set: string;
  field: AddrField;
  entry: string;
  expiresAt: string | null;
}

export type AddrField = 'src-addr' | 'dst-addr';

/**
 * What `look` finds for the deciding policy's source and destination address, given the
 * packet's address of that side: one walk for every run-time object the tracer names (dynamic
 * sets here, external lists, FQDN addresses); none for a packet no policy decided.
 */
export function decidingMatches<T>(doc: ConfigDoc, policyId: number | null, packet: Packet, look: (name: string, field: AddrField, addr: Cidr) => T | null): T[] {
  if (policyId === null) return [];
  const p = doc.policies.find((x) => x.id === policyId);
  if (!p) return [];
  const out: T[] = [];
  for (const [name, field, ip] of [[p.srcAddr, 'src-addr', packet.srcIp], [p.dstAddr, 'dst-addr', packet.dstIp]] as const) {
    const addr = parseCidr(ip);
    const hit = addr && look(name, field, addr);
    if (hit) out.push(hit);
  }
  return out;
}

/** The entries of the deciding policy's dynamic sets that hold the packet's addresses. */
export function dynamicMatches(dyn: DynamicSets, doc: ConfigDoc, policyId: number | null, packet: Packet): DynamicMatch[] {
  if (!doc.dynamicSets.size) return [];
  return decidingMatches(doc, policyId, packet, (set, field, addr) => {
    if (!doc.dynamicSets.has(set)) return null;
    const e = dyn.current(set).find((x) => { const c = parseCidr(x.ip); return c !== null && contains(c, addr); });
    return e ? { set, field, entry: e.ip, expiresAt: e.expiresAt === 0 ? null : new Date(e.expiresAt).toISOString() } : null;
  });
}
