// POST /api/eval, POST /api/eval/batch, GET /api/analysis: what the committed (or, with
// ?config=candidate, the candidate) configuration does to packets. The matchers are built in
// the worker pool; this thread only looks packets up.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { oneOf } from '../../config/render/objects';
import { configQueryDoc } from '../schemas';
import { parsePacket, parsePacketBatch } from '../../eval/packet';
import { scanPacketBatch } from '../../eval/batch-scan';
import { releaseBatch } from '../../eval/batch';
import { releaseAnswer } from '../../eval/answer-json';
import type { CompiledConfig } from '../../eval/compiled';
import type { AppContext } from '../context';
import type { BatchDone } from '../../workers/batch-pool';
import { configQuery } from '../crud';
import { DynamicMatches, dynamicMatches } from '../../dynamic/trace';
import { ListMatches, listMatches } from '../../dynamic/list-trace';
import { FqdnMatches, fqdnMatches } from '../../dynamic/fqdn-trace';
import { parseJsonBody, type Req, type RouteDef, type RouteDoc } from '../http';
import type { ConfigDoc } from '../../config/types';
import { TimedCompiles } from '../../eval/timed';
import { Skipped, TimeField, packetTime, skippedRule, withExpired } from './eval-time';
import { gateAt } from '../../config/schedule-gate';

// The packet is checked by parsePacket (a hand-written scanner, faster than a schema check on
// the batch path); this schema says the same for the OpenAPI document.
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const PacketFields = {
  'src-ip': Type.String(),
  'dst-ip': Type.String({ description: 'of the family of src-ip' }),
  protocol: Type.Union([Type.String({ description: 'a protocol name (tcp, udp, sctp, icmp, icmpv6, gre, esp, ...) or its number as a string ("47")' }), Type.Integer({ minimum: 0, maximum: 255 })]),
  'dst-port': Type.Optional(Type.Union([Port, Type.Null()], { description: 'required for tcp and udp' })),
  'src-port': Type.Optional(Type.Union([Port, Type.Null()])),
  'in-interface': Type.Optional(Type.Union([Type.String(), Type.Null()])),
  'src-zone': Type.Optional(Type.Union([Type.String(), Type.Null()])),
  'dst-zone': Type.Optional(Type.Union([Type.String(), Type.Null()])),
  'icmp-type': Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 255 }), Type.Null()], { description: 'icmp and icmpv6 only; 0 when not given' })),
  'icmp-code': Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 255 }), Type.Null()], { description: 'icmp and icmpv6 only; 0 when not given' })),
};
export const PacketBody = Type.Object({ ...PacketFields, time: TimeField }, { additionalProperties: false });
// a batch is judged now: its packets carry no time
const BatchBody = Type.Object({ packets: Type.Array(Type.Object(PacketFields, { additionalProperties: false }), { maxItems: 10000 }) }, { additionalProperties: false });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const EvalAnswer = Type.Object({
  action: oneOf(['allow', 'deny'] as const),
  reason: oneOf(['policy', 'default-deny', 'no-route', 'broadcast', 'multicast', 'local-policy'] as const),
  srcZone: Nullable(Type.String()),
  dstZone: Nullable(Type.String()),
  egressInterface: Nullable(Type.String()),
  route: Nullable(Type.Object({ id: Nullable(Type.Integer()), destination: Type.String() }, { additionalProperties: false })),
  nat: Nullable(Type.Object({
    id: Type.Integer(), type: oneOf(['snat', 'dnat-ip', 'dnat-port', 'static'] as const), translatedIP: Type.String(), translatedPort: Type.String(),
    translates: Type.Optional(oneOf(['source', 'destination'] as const)),
  }, { additionalProperties: false })),
  policy: Nullable(Type.Object({ id: Type.Integer(), action: oneOf(['allow', 'deny'] as const), log: Type.Boolean() }, { additionalProperties: false })),
  dynamic: Type.Optional(DynamicMatches),
  skipped: Type.Optional(Skipped),
  lists: Type.Optional(ListMatches),
  fqdn: Type.Optional(FqdnMatches),
}, { additionalProperties: false });
const Version = Type.Integer({ minimum: 0, description: 'the running version answered for (with ?config=candidate: the one the candidate is based on)' });
export const EvalReply = Type.Composite([Type.Object({ version: Version }), EvalAnswer], { additionalProperties: false });
/** What fwctl trace sends and reads (the CLI imports these types). */
export type PacketRequest = Static<typeof PacketBody>;
export type EvalReplyModel = Static<typeof EvalReply>;
const BatchReply = Type.Object({ version: Version, results: Type.Array(EvalAnswer) }, { additionalProperties: false });
const Covered = Type.Array(Type.Object({ id: Type.Integer(), coveredBy: Type.Array(Type.Integer()) }, { additionalProperties: false }));
export const AnalysisReply = Type.Object({
  version: Version,
  pass: oneOf(['quick', 'deep'] as const),
  complete: Type.Boolean(),
  shadowed: Covered,
  redundant: Covered,
  undecided: Type.Array(Type.Integer()),
  partiallyShadowed: Type.Array(Type.Object({
    id: Type.Integer(), by: Type.Integer(),
    example: Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()]), { description: 'a packet as POST /api/eval takes it' }),
  }, { additionalProperties: false })),
  unreachableNat: Covered,
  unusedAddresses: Type.Array(Type.String()),
  unusedServices: Type.Array(Type.String()),
  disabled: Type.Optional(Type.Array(Type.Integer(), { description: 'disabled policies (never reported as shadowed or redundant); present when there are some' })),
  disabledNat: Type.Optional(Type.Array(Type.Integer(), { description: 'disabled NAT rules (never reported as unreachable); present when there are some' })),
  expired: Type.Optional(Type.Array(Type.Integer(), { description: 'policies that never match again (expires-at past, or a one-time schedule over); never reported as shadowed or redundant; present when there are some' })),
  neverHit: Type.Union([Type.Array(Type.Integer()), Type.Null()], { description: 'running policies whose kernel counter is 0; null for the candidate or without a data plane' }),
}, { additionalProperties: false });
// evaluating the candidate compiles it: 409 without a session, 504 past the commit timeout
const evalDoc = (summary: string, response: TSchema, body?: TSchema): RouteDoc =>
  ({ tag: 'eval', summary, response, body, query: configQueryDoc, errors: [409, 504] });

/** The largest batch body: 10,000 IPv6 packets with every optional field fit in it. */
const BATCH_BODY_BYTES = 8 * 1024 * 1024;

/** The compiled configuration a request asks for, and the running version it answers for. */
async function target(ctx: AppContext, req: Req, entries = true): Promise<{ compiled: CompiledConfig; version: number; doc: ConfigDoc }> {
  if (configQuery(req) === 'candidate') {
    // the candidate is answered for the running version it is based on
    const { compiled } = await ctx.config.compiledCandidate();
    const { doc } = await ctx.config.candidate();
    return { compiled, version: ctx.config.current().meta.version, doc };
  }
  // dynamic sets (issue 40): the running version with every set's current entries
  const now = entries ? ctx.dynamic?.compiledNow() : null;
  if (now) return now;
  const running = ctx.config.current();
  const { compiled } = await running.compiled;
  return { compiled, version: running.meta.version, doc: running.doc };
}

/** Batch bodies from this size (about 800 IPv4 packets) are evaluated in a batch thread:
 * below it, the hand-over (two messages, the copies in and out) is a larger share. */
const THREAD_MIN_BYTES = 64 * 1024;

/** The answer of a batch of the running version from a batch thread; null: answer it inline
 * (no pool, a candidate, every thread busy, a failed thread, or a body the thread leaves to the
 * inline path: its errors and the JSON.parse fallback are worded there). */
async function inThread(ctx: AppContext, req: Req, raw: Buffer): Promise<BatchDone | null> {
  if (ctx.batchPool === undefined || configQuery(req) === 'candidate') return null;
  if (ctx.config.current().doc.dynamicSets.size) return null; // answered inline with the sets' entries (issue 40)
  if (ctx.dynamic?.usesFqdn(ctx.config.current().doc)) return null; // and FQDN addresses' resolutions
  if (ctx.dynamic?.usesLists(ctx.config.current().doc)) return null; // and external lists' prefixes
  const running = ctx.config.current();
  const gate = gateAt(running.doc, Date.now());
  if (gate.policies.size || gate.local.size) return null; // rules off by schedule (issue 40 item 4): answered inline
  let compiled: CompiledConfig;
  try {
    ({ compiled } = await running.compiled);
  } catch {
    return null; // the inline path: a bad packet is still a 400 before this error
  }
  return (await ctx.batchPool.run(compiled, running.meta.version, raw)) ?? null;
}

/** Running policies whose kernel counter is still 0 (null: candidate, or no data plane). */
async function neverHit(ctx: AppContext, req: Req): Promise<number[] | null> {
  if (configQuery(req) === 'candidate') return null;
  const counters = await ctx.dataPlane.counters();
  if (!counters) return null;
  return ctx.config.current().doc.policies.filter((p) => !p.disabled && (counters.get(p.id)?.packets ?? 0) === 0).map((p) => p.id);
}

export function evalRoutes(ctx: AppContext): RouteDef[] {
  const single = ctx.metrics.evalPackets.labels('eval');
  const batched = ctx.metrics.evalPackets.labels('batch');
  const timed = new TimedCompiles();
  return [
    { method: 'POST', pattern: '/api/eval', permission: 'read', doc: evalDoc('What the configuration does to one packet', EvalReply, PacketBody), handler: async (req) => {
      const given = packetTime(req.body);
      const packet = parsePacket(given.packet);
      const { compiled: all, version, doc } = await target(ctx, req);
      // rules off at the packet's time (schedule, expiry) do not match (issue 40 item 4)
      const { compiled, gate } = timed.at(doc, all, given.at);
      const answer = compiled.eval(packet);
      const skipped = compiled === all ? null : skippedRule(all.eval(packet), gate);
      single.inc();
      const deciding = configQuery(req) === 'candidate' ? null : answer.policy?.id ?? null;
      // run-time objects belong to the running version: the tracer names them from its document
      const running = ctx.config.current().doc;
      const dynamic = ctx.dynamic ? dynamicMatches(ctx.dynamic, running, deciding, packet) : [];
      const lists = ctx.dynamic?.lists ? listMatches(ctx.dynamic.lists, running, deciding, packet) : [];
      const fqdn = ctx.dynamic?.fqdn ? fqdnMatches(ctx.dynamic.fqdn, running, deciding, packet) : [];
      return {
        body: {
          version, ...answer, ...(dynamic.length ? { dynamic } : {}), ...(fqdn.length ? { fqdn } : {}),
          ...(lists.length ? { lists } : {}), ...(skipped ? { skipped } : {}),
        },
      };
    } },
    { method: 'POST', pattern: '/api/eval/batch', permission: 'read', maxBody: BATCH_BODY_BYTES, body: 'raw', doc: evalDoc('What the configuration does to up to 10,000 packets', BatchReply, BatchBody), handler: async (req) => {
      const raw = req.raw ?? null;
      const threaded = raw !== null && raw.length >= THREAD_MIN_BYTES ? await inThread(ctx, req, raw) : null;
      if (threaded !== null) {
        batched.inc(threaded.n);
        return { body: undefined, json: threaded.json, release: threaded.release };
      }
      // typed arrays end to end: the body scanned into a PacketBatch (JSON.parse and
      // parsePacketBatch when the scanner leaves it: anything unusual, and every refused
      // packet, whose error they word), all packets before the target so that a bad packet is
      // a 400 whatever the target; answers as indexes; the reply written as bytes from the
      // configuration's precomputed JSON fragments
      const batch = (raw !== null && scanPacketBatch(raw)) || parsePacketBatch(raw === null ? undefined : parseJsonBody(raw));
      try {
        const { compiled: all, version, doc } = await target(ctx, req);
        const { compiled } = timed.at(doc, all, Date.now()); // a batch is judged now
        const json = compiled.evalBatchJson(version, batch);
        batched.inc(batch.length);
        return { body: undefined, json, release: () => releaseAnswer(json) };
      } finally {
        releaseBatch(batch);
      }
    } },
    { method: 'GET', pattern: '/api/analysis', body: 'none', permission: 'read', doc: evalDoc('Shadowed and redundant policies, unused objects', AnalysisReply), handler: async (req) => {
      // the version's own analysis: it holds for any entries of its dynamic sets (issue 40)
      const { compiled, version } = await target(ctx, req, false);
      if (!compiled.analysis) throw new FwError('ERR_SYS_4001', 'the analysis was not computed');
      // the running version's deep result once it is there; the commit's quick one until then
      const deep = configQuery(req) === 'candidate' ? null : ctx.analysis?.result(version) ?? null;
      const { doc } = await target(ctx, req, false);
      return { body: { version, pass: deep ? 'deep' : 'quick', ...withExpired(doc, deep ?? compiled.analysis, Date.now()), neverHit: await neverHit(ctx, req) } };
    } },
  ];
}

