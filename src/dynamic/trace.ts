// The packet tracer's word on dynamic sets (issue 40): when the policy that decided a packet
// names a dynamic set, which entry of it the packet's address fell in, and until when.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc } from '../config/types';
import { parseCidr } from '../config/net';
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
  field: 'src-addr' | 'dst-addr';
  entry: string;
  expiresAt: string | null;
}

/** The entries of the deciding policy's dynamic sets that hold the packet's addresses. */
export function dynamicMatches(dyn: DynamicSets, doc: ConfigDoc, policyId: number | null, packet: Packet): DynamicMatch[] {
  if (policyId === null || !doc.dynamicSets.size) return [];
  const p = doc.policies.find((x) => x.id === policyId);
  if (!p) return [];
  const out: DynamicMatch[] = [];
  const look = (set: string, field: DynamicMatch['field'], ip: string) => {
    if (!doc.dynamicSets.has(set)) return;
    const addr = parseCidr(ip);
    if (!addr) return;
    for (const e of dyn.current(set)) {
      const c = parseCidr(e.ip);
      if (c && contains(c, addr)) {
        out.push({ set, field, entry: e.ip, expiresAt: e.expiresAt === 0 ? null : new Date(e.expiresAt).toISOString() });
        return;
      }
    }
  };
  look(p.srcAddr, 'src-addr', packet.srcIp);
  look(p.dstAddr, 'dst-addr', packet.dstIp);
  return out;
}
