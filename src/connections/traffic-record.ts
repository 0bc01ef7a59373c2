// A traffic log record: one logged connection (its first packet) as the API, the live tail and
// forwarding show it. The kernel says which rule logged it, the addresses, ports and
// interfaces; the running version adds the policy's name, the zones and the NAT (eval.md on
// the original packet: what POST /api/eval answers for the same flow).
import { Type, type Static } from '@sinclair/typebox';
import { protocolName } from '../config/protocols';
import type { ConfigDoc } from '../config/types';
import type { KernelTrafficRecord } from '../dataplane/traffic-kernel';
import type { CompiledConfig } from '../eval/compiled';
import { parsePacket } from '../eval/packet';

const NullInt = Type.Union([Type.Integer(), Type.Null()]);
const NullString = Type.Union([Type.String(), Type.Null()]);

export const TrafficRecordSchema = Type.Object({
  id: Type.String({ description: 'increases in the node\'s log ("ms-seq"); the cursor and the live tail\'s event id' }),
  node: Type.String({ description: 'the instance whose kernel logged it' }),
  at: Type.String({ format: 'date-time', description: 'the kernel\'s time of the first packet' }),
  policy: Type.Union([Type.Integer(), Type.Null()], { description: 'the policy that logged it; null: the default deny (FW_LOG_DEFAULT_DENY)' }),
  policyName: Type.Union([Type.String(), Type.Null()], { description: 'its name in the running version, if it has one' }),
  action: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  family: Type.Union([Type.Literal(4), Type.Literal(6)]),
  protocol: Type.String({ description: 'a name (tcp, udp, icmp, ...) or the protocol number' }),
  src: Type.String(),
  dst: Type.String({ description: 'the destination it was addressed to (before DNAT)' }),
  'src-port': NullInt,
  'dst-port': NullInt,
  'icmp-type': NullInt,
  srcZone: NullString,
  dstZone: NullString,
  inInterface: NullString,
  outInterface: NullString,
  nat: Type.Union([Type.Object({
    id: Type.Integer(), type: Type.String(), translatedIP: Type.String(), translatedPort: Type.String(),
  }, { additionalProperties: false }), Type.Null()], { description: 'the NAT rule that translates it (as POST /api/eval answers)' }),
}, { additionalProperties: false });

export type TrafficRecord = Static<typeof TrafficRecordSchema>;

/** A record as the live tail sends it (GET /api/events?types=traffic): the SSE id is its id. */
export const TrafficEventSchema = Type.Composite([Type.Object({ type: Type.Literal('traffic') }), TrafficRecordSchema], { additionalProperties: false });
export type TrafficEvent = Static<typeof TrafficEventSchema>;

/** Sent instead of the missed records when the Last-Event-ID's are no longer kept: re-read the log, go on from `id`. */
export const TrafficResyncSchema = Type.Object({
  type: Type.Literal('resync'),
  id: Type.String({ description: 'the newest record id: the stream goes on after it' }),
  reason: Type.String(),
}, { additionalProperties: false });
/** A record before its log gives it an id. */
export type NewTrafficRecord = Omit<TrafficRecord, 'id'>;

/** What the running version says of a flow: zones and NAT (null when eval cannot take it). */
function evaluate(k: KernelTrafficRecord, compiled: CompiledConfig | null) {
  if (!compiled) return null;
  try {
    return compiled.eval(parsePacket({
      'src-ip': k.src, 'dst-ip': k.dst, protocol: k.protocol,
      ...(k.dstPort !== null ? { 'dst-port': k.dstPort } : {}),
      ...(k.srcPort !== null ? { 'src-port': k.srcPort } : {}),
      ...(k.icmpType !== null ? { 'icmp-type': k.icmpType } : {}),
    }));
  } catch {
    return null;
  }
}

const names = new WeakMap<ConfigDoc, Map<number, string | null>>();

/** A policy's name in `doc` (one map per running version, not a scan per record). */
function policyName(doc: ConfigDoc, id: number): string | null {
  let m = names.get(doc);
  if (!m) {
    m = new Map(doc.policies.map((p) => [p.id, p.name ?? null]));
    names.set(doc, m);
  }
  return m.get(id) ?? null;
}

export function trafficRecord(k: KernelTrafficRecord, node: string, doc: ConfigDoc | null, compiled: CompiledConfig | null): NewTrafficRecord {
  const answer = evaluate(k, compiled);
  return {
    node,
    at: new Date(k.at).toISOString(),
    policy: k.policy,
    policyName: k.policy === null || !doc ? null : policyName(doc, k.policy),
    action: k.action,
    family: k.family,
    protocol: protocolName(k.protocol),
    src: k.src,
    dst: k.dst,
    'src-port': k.srcPort,
    'dst-port': k.dstPort,
    'icmp-type': k.icmpType,
    srcZone: answer?.srcZone ?? null,
    dstZone: answer?.dstZone ?? null,
    inInterface: k.inInterface,
    outInterface: k.outInterface,
    nat: answer?.nat ? { ...answer.nat } : null,
  };
}
