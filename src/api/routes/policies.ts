// /api/policies: security policies in evaluation order, with /move. ?stats=true adds each
// policy's kernel counters as `hits` (null without a data plane).
import { FwError } from '../../errors';
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { Type } from '@sinclair/typebox';
import { PolicyModel, renderPolicy } from '../../config/render/rules';
import { parseRuleId } from '../../config/validate';
import type { Handler, Reply, Req } from '../http';
import { filtered, ruleFilterOf, ruleFilterQuery, type RuleFilter } from '../rule-filter';

const Hits = Type.Object({ packets: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });

function wantsStats(req: Req): boolean {
  const v = req.query.get('stats');
  if (v === null || v === 'false') return false;
  if (v === 'true') return true;
  throw new FwError('ERR_NET_1005', `query "stats": "${v}" is not one of true, false`);
}

export function policyRoutes(ctx: AppContext) {
  const routes = crudRoutes(ctx, {
    kind: 'policy',
    path: '/api/policies',
    param: 'id',
    noun: 'policy',
    checkKey: parseRuleId,
    messages: {
      create: 'policy created in candidate',
      update: 'policy updated in candidate',
      remove: 'policy deleted from candidate',
      move: 'policy moved successfully',
    },
    model: PolicyModel,
    listModel: Type.Array(PolicyModel),
    listQuery: ruleFilterQuery,
    // the variant is the filters as JSON ("" for none: the one cached answer)
    listVariant: (query) => {
      const f = ruleFilterOf(query);
      return f ? JSON.stringify(f) : '';
    },
    cachedVariant: (variant) => variant === '',
    list: (doc, variant) => filtered(doc.policies, variant === '' ? null : JSON.parse(variant) as RuleFilter).map((p) => renderPolicy(doc, p)),
    one: (doc, key) => {
      const id = parseRuleId(key);
      const p = doc.policies.find((x) => x.id === id);
      return p && renderPolicy(doc, p);
    },
  });
  // the list with live counters is never cached: it changes with every packet
  const list = routes.find((r) => r.method === 'GET' && r.pattern === '/api/policies')!;
  list.doc = {
    ...list.doc,
    query: { ...list.doc.query, stats: { schema: Type.Union([Type.Literal('true'), Type.Literal('false')]), description: 'true: each policy with its kernel counters as `hits`' } },
    response: Type.Array(Type.Composite([PolicyModel, Type.Object({ hits: Type.Optional(Type.Union([Hits, Type.Null()])) })])),
  };
  const cached: Handler = list.handler;
  const withHits = async (filter: RuleFilter | null): Promise<Reply> => {
    const { doc } = ctx.config.current();
    const counters = await ctx.dataPlane.counters();
    return { body: filtered(doc.policies, filter).map((p) => ({
      ...renderPolicy(doc, p),
      hits: counters ? counters.get(p.id) ?? { packets: 0, bytes: 0 } : null,
    })) };
  };
  // not async: the cached answer is given within the request's own call (src/api/server.ts)
  list.handler = (req) => (wantsStats(req) ? withHits(ruleFilterOf(req.query)) : cached(req));
  return routes;
}
