// GET /api/logs/traffic: the traffic log (a record per logged connection: policies with
// `log: true`, and the default deny with FW_LOG_DEFAULT_DENY=on), newest first, filtered, by
// pages (?cursor= the previous page's next). Logs are per node: ?node= reads another
// instance's (a cluster shares them through Redis); the default is this instance's.
import { Type, type Static } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { TRAFFIC_FILTER_DOCS, TRAFFIC_FILTER_SCHEMAS, parseTrafficFilter, trafficMatcher } from '../../connections/traffic-filter';
import { TrafficRecordSchema } from '../../connections/traffic-record';
import { isTrafficId } from '../../connections/traffic-store';
import type { AppContext } from '../context';
import type { QueryDoc, RouteDef } from '../http';
import { NODE_QUERY, nodeOf } from '../node-forward';

const MAX_LIMIT = 1000;

const TrafficPage = Type.Object({
  node: Type.String({ description: 'the instance whose log this is' }),
  records: Type.Array(TrafficRecordSchema, { description: 'newest first' }),
  next: Type.Union([Type.String(), Type.Null()], { description: 'pass as ?cursor= for the next (older) page; null on the last page' }),
}, { additionalProperties: false });
export type TrafficPageModel = Static<typeof TrafficPage>;

export const trafficFilterQuery: Record<string, QueryDoc> = Object.fromEntries(
  Object.entries(TRAFFIC_FILTER_DOCS).map(([k, description]) => [k, { schema: TRAFFIC_FILTER_SCHEMAS[k] ?? Type.String(), description }]),
);

function pageArgs(q: URLSearchParams): { limit: number; cursor: string | null } {
  const limitText = q.get('limit');
  let limit = 100;
  if (limitText !== null) {
    if (!/^\d{1,6}$/.test(limitText)) throw new FwError('ERR_NET_1004', `query "limit": "${limitText.slice(0, 64)}" is not a whole number`);
    limit = Number(limitText);
    if (limit < 1 || limit > MAX_LIMIT) throw new FwError('ERR_NET_1008', `query "limit": ${limit} is not within 1-${MAX_LIMIT}`);
  }
  const cursor = q.get('cursor');
  if (cursor !== null && !isTrafficId(cursor)) throw new FwError('ERR_NET_1004', `query "cursor": "${cursor.slice(0, 64)}" is not the next of a previous page`);
  return { limit, cursor };
}

export function trafficRoutes(ctx: AppContext): RouteDef[] {
  return [
    { method: 'GET', pattern: '/api/logs/traffic', body: 'none', permission: 'read',
      doc: { tag: 'logs', summary: 'The traffic log: logged connections, newest first, filtered, by pages', response: TrafficPage, errors: [404], query: {
        ...trafficFilterQuery,
        node: NODE_QUERY,
        limit: { schema: Type.Integer({ minimum: 1, maximum: MAX_LIMIT }), description: `records per page, 1-${MAX_LIMIT} (default 100)` },
        cursor: { schema: Type.String(), description: 'the previous page\'s next' },
      } },
      handler: async (req) => {
        const filter = parseTrafficFilter(req.query);
        const { limit, cursor } = pageArgs(req.query);
        const node = await nodeOf(ctx, req);
        const page = await ctx.traffic.store.page(node, {
          before: cursor, limit, since: filter.since ?? null, match: trafficMatcher(filter),
        });
        return { body: { node, ...page } };
      } },
  ];
}
