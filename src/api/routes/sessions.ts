// GET /api/sessions: the live connections of the data plane's kernel (conntrack), with their
// zones, accepting policy and NAT, filtered, by pages (?cursor= the previous page's next).
// DELETE /api/sessions: ends the connections the same filters select (operator or admin),
// audited. Without a kernel (FW_DATAPLANE=none) the table is empty.
import { Type, type Static } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { oneOf } from '../../config/render/objects';
import { byId, type ConnEntry } from '../../dataplane/conntrack';
import { narrowingOf } from '../../connections/narrow';
import type { CompiledConfig } from '../../eval/compiled';
import { deniedBy, ImpactScan } from '../../connections/impact';
import { entryMatcher, FILTER_DOCS, FILTER_SCHEMAS, isEmptyFilter, parseSessionFilter, sessionView } from '../../connections/view';
import type { AppContext } from '../context';
import { message, type QueryDoc, type Req, type RouteDef } from '../http';
import { MessageReply } from '../schemas';
import { pageArgs, pageQuery } from '../paging';
import { forwardToNode, NODE_QUERY, nodeOf } from '../node-forward';

const MAX_LIMIT = 1000;
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const NullInt = Type.Union([Type.Integer(), Type.Null()]);
const Tuple = Type.Object({
  src: Type.String(), dst: Type.String(), 'src-port': NullInt, 'dst-port': NullInt,
  packets: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }),
}, { additionalProperties: false });
const Translation = Type.Union([Type.Object({ ip: Type.String(), port: NullInt }, { additionalProperties: false }), Type.Null()]);
const SessionModel = Type.Object({
  id: Type.String({ description: 'the kernel\'s id of the conntrack entry' }),
  family: Type.Union([Type.Literal(4), Type.Literal(6)]),
  protocol: Type.String(),
  state: Nullable(Type.String({ description: 'TCP state; null for protocols without one' })),
  age: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'seconds since the connection began' }),
  timeout: Type.Integer({ minimum: 0, description: 'seconds before the kernel forgets it if no packet comes' }),
  original: Tuple,
  reply: Tuple,
  packets: Type.Integer({ minimum: 0 }),
  bytes: Type.Integer({ minimum: 0 }),
  srcZone: Nullable(Type.String()),
  dstZone: Nullable(Type.String()),
  policy: Type.Union([Type.Integer(), Type.Null()], { description: 'the policy that accepted it (its conntrack mark); null when unknown' }),
  cut: Type.Boolean({ description: 'refused by the rematch of a commit (its packets are dropped): deleted within 5 seconds' }),
  nat: Type.Object({ snat: Translation, dnat: Translation }, { additionalProperties: false }),
}, { additionalProperties: false });
const SessionPage = Type.Object({
  dataplane: oneOf(['none', 'linux'] as const),
  total: Type.Integer({ minimum: 0, description: 'the connections the filters select, on every page' }),
  sessions: Type.Array(SessionModel),
  next: Type.Union([Type.String(), Type.Null()], { description: 'pass as ?cursor= for the next page; null on the last page' }),
}, { additionalProperties: false });

const Reason = oneOf(['policy', 'default-deny', 'no-route', 'broadcast', 'multicast', 'local-policy'] as const);
const NatAnswerModel = Type.Union([Type.Object({
  id: Type.Integer(), type: oneOf(['snat', 'dnat-ip', 'dnat-port', 'static'] as const), translatedIP: Type.String(), translatedPort: Type.String(),
  translates: Type.Optional(oneOf(['source', 'destination'] as const)),
}, { additionalProperties: false }), Type.Null()]);
const ImpactReply = Type.Object({
  version: Type.Integer({ minimum: 0, description: 'the running version the candidate is based on' }),
  rematch: Type.Boolean({ description: 'FW_SESSION_REMATCH: whether the commit cuts the connections in `cut` (off: they flow on)' }),
  total: Type.Integer({ minimum: 0, description: 'the live connections evaluated' }),
  cut: Type.Array(Type.Composite([SessionModel, Type.Object({ deniedBy: Type.Object({ policy: Type.Union([Type.Integer(), Type.Null()]), reason: Reason }, { additionalProperties: false }) })])),
  natChanged: Type.Array(Type.Composite([SessionModel, Type.Object({ runningNat: NatAnswerModel, candidateNat: NatAnswerModel })]), { description: 'allowed by both, NAT answered differently: the live connection keeps its NAT' }),
  perPolicy: Type.Array(Type.Object({ policy: Type.Union([Type.Integer(), Type.Null()]), reason: Reason, connections: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })),
}, { additionalProperties: false });
export type ImpactReplyModel = Static<typeof ImpactReply>;

/**
 * After a commit: the live connections the new running version denies are deleted at once
 * (rematch would cut each at its next packet; an idle one goes now too). How many went.
 */
export async function cutDenied(ctx: AppContext): Promise<number> {
  if (!ctx.settings.sessionRematch) return 0;
  const entries = await ctx.dataPlane.connections(undefined, true);
  if (!entries?.length) return 0;
  const denied = deniedBy(entries, (await ctx.config.current().compiled).compiled);
  return ctx.dataPlane.endConnections(denied.map((d) => d.entry));
}

/** What fwctl sessions reads (the CLI imports the type). */
export type SessionPageModel = Static<typeof SessionPage>;

const filterQuery: Record<string, QueryDoc> = Object.fromEntries(Object.entries(FILTER_DOCS).map(([k, description]) => [k, { schema: FILTER_SCHEMAS[k] ?? Type.String(), description }]));

/** The kernel's entries the query's filters select (by id), and the running version's matchers. */
async function selected(ctx: AppContext, req: Req): Promise<{ entries: ConnEntry[]; compiled: CompiledConfig }> {
  const filter = parseSessionFilter(req.query);
  if (req.method === 'DELETE' && isEmptyFilter(filter)) {
    throw new FwError('ERR_NET_1004', `DELETE /api/sessions needs at least one filter (${Object.keys(FILTER_DOCS).join(', ')}); it never ends every connection at once`);
  }
  const compiled = (await ctx.config.current().compiled).compiled;
  // what DELETE ends is read now, not from a listing a request before it left
  const entries = await ctx.dataPlane.connections(narrowingOf(filter, compiled), req.method === 'DELETE');
  return { entries: entries ? entries.filter(entryMatcher(filter, compiled)).sort(byId) : [], compiled };
}

export function sessionRoutes(ctx: AppContext): RouteDef[] {
  const tag = 'sessions';
  return [
    { method: 'GET', pattern: '/api/sessions', body: 'none', permission: 'read',
      doc: { tag, summary: 'Live connections (conntrack), filtered, by pages', response: SessionPage, errors: [404], query: {
        ...filterQuery,
        ...pageQuery('connections', 100, MAX_LIMIT),
        node: NODE_QUERY,
      } },
      handler: async (req) => {
        const node = await nodeOf(ctx, req);
        if (node !== ctx.nodes.id) return forwardToNode(ctx, req, node);
        const { limit, cursor } = pageArgs(req.query, 100, MAX_LIMIT) ?? { limit: 100, cursor: null };
        const { entries: all, compiled } = await selected(ctx, req); // by id
        const rest = all.filter((e) => e.id > (cursor ?? -1));
        const sessions = rest.slice(0, limit).map((e) => sessionView(e, compiled)); // the page's views only
        const next = rest.length > limit ? sessions[sessions.length - 1].id : null;
        return { body: { dataplane: ctx.dataPlane.mode, total: all.length, sessions, next } };
      } },
    { method: 'GET', pattern: '/api/config/impact', body: 'none', permission: 'read',
      doc: { tag, summary: 'What committing the candidate would do to live connections', response: ImpactReply, errors: [404, 409], query: { node: NODE_QUERY } },
      handler: async (req) => {
        const node = await nodeOf(ctx, req);
        if (node !== ctx.nodes.id) return forwardToNode(ctx, req, node);
        const running = ctx.config.current();
        const candidate = (await ctx.config.compiledCandidate()).compiled; // 409 without a session
        const scan = new ImpactScan((await running.compiled).compiled, candidate);
        await ctx.dataPlane.eachConnection((e) => scan.add(e)); // judged as read: no listing of 100,000 kept
        const impact = scan.result();
        return { body: { version: running.meta.version, rematch: ctx.settings.sessionRematch, ...impact } };
      } },
    { method: 'DELETE', pattern: '/api/sessions', body: 'none', permission: 'configure',
      doc: { tag, summary: 'End the connections the filters select (at least one filter)', response: MessageReply, errors: [404], query: { ...filterQuery, node: NODE_QUERY } },
      handler: async (req) => {
        const node = await nodeOf(ctx, req);
        if (node !== ctx.nodes.id) return forwardToNode(ctx, req, node);
        const chosen = (await selected(ctx, req)).entries;
        const ended = await ctx.dataPlane.endConnections(chosen);
        await ctx.audit.record(req, 'sessions.end', `${ended} of ${chosen.length} connections selected by ${req.query.toString()}`);
        return message('sessions ended', { ended: String(ended), selected: String(chosen.length) });
      } },
  ];
}
