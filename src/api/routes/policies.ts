// /api/policies: security policies in evaluation order, with /move. ?stats=true adds each
// policy's kernel counters as `hits` (null without a data plane). The whole list is streamed
// from the version's encoding (list-reply.ts); ?limit= and ?cursor= read it by pages
// (`{policies, next, total}`), the cursor being the id of the previous page's last policy.
import { QueryBool } from '../schemas';
import { FwError } from '../../errors';
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { Type } from '@sinclair/typebox';
import { PolicyModel, renderPolicy } from '../../config/render/rules';
import { parseRuleId } from '../../config/validate';
import type { ConfigDoc, PolicyObj } from '../../config/types';
import type { Handler, Reply, Req } from '../http';
import { filtered, ruleFilterOf, ruleFilterQuery, type RuleFilter } from '../rule-filter';
import { pageArgs, pageQuery, type PageArgs } from '../paging';
import { readSource } from '../crud';

/** Policies per page: the default when only a cursor is given, and the most one page holds. */
const PAGE = 1000;
const MAX_PAGE = 10_000;

const Hits = Type.Object({ packets: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
const ListedPolicy = Type.Composite([PolicyModel, Type.Object({ hits: Type.Optional(Type.Union([Hits, Type.Null()])) })]);
const PolicyPage = Type.Object({
  policies: Type.Array(ListedPolicy),
  next: Type.Union([Type.String(), Type.Null()], { description: 'the cursor of the next page; null on the last' }),
  total: Type.Integer({ minimum: 0, description: 'policies the filters select, on every page' }),
}, { additionalProperties: false });

const policyRows = (doc: ConfigDoc, variant: string) => filtered(doc.policies, variant === '' ? null : JSON.parse(variant) as RuleFilter);

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
    list: (doc, variant) => policyRows(doc, variant).map((p) => renderPolicy(doc, p)),
    listRows: { rows: policyRows, render: (doc, p: PolicyObj) => renderPolicy(doc, p) },
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
    query: {
      ...list.doc.query,
      stats: { schema: QueryBool, description: 'true: each policy with its kernel counters as `hits`' },
      ...pageQuery('policies', PAGE, MAX_PAGE),
    },
    response: Type.Union([Type.Array(ListedPolicy), PolicyPage], { description: 'the whole list; with limit or cursor, one page of it' }),
    errors: [...(list.doc.errors ?? []), 404], // the cursor's policy is gone
  };
  const cached: Handler = list.handler;
  /** Each policy's read model, with its counters when asked (?stats=true). */
  const rendered = async (req: Req, doc: ConfigDoc, rules: readonly PolicyObj[]): Promise<unknown[]> => {
    if (!wantsStats(req)) return rules.map((p) => renderPolicy(doc, p));
    const counters = await ctx.dataPlane.counters();
    return rules.map((p) => ({ ...renderPolicy(doc, p), hits: counters ? counters.get(p.id) ?? { packets: 0, bytes: 0 } : null }));
  };
  const withHits = async (req: Req): Promise<Reply> => {
    const { doc } = ctx.config.current();
    return { body: await rendered(req, doc, filtered(doc.policies, ruleFilterOf(req.query))) };
  };
  const paged = async (req: Req, page: PageArgs): Promise<Reply> => {
    const { doc, running } = await readSource(ctx, req);
    const all = filtered(doc.policies, ruleFilterOf(req.query));
    let from = 0;
    if (page.cursor !== null) {
      const at = all.findIndex((p) => p.id === page.cursor);
      if (at < 0) throw new FwError('ERR_NET_1003', `policy ${page.cursor} of the cursor is not in the list any more (deleted or changed since): read it again from the start`);
      from = at + 1;
    }
    const rules = all.slice(from, from + page.limit);
    const next = from + rules.length < all.length ? String(rules[rules.length - 1].id) : null;
    return { body: { policies: await rendered(req, doc, rules), next, total: all.length }, headers: running ? { ETag: running.etag } : {} };
  };
  list.handler = (req) => {
    const page = pageArgs(req.query, PAGE, MAX_PAGE);
    if (page) return paged(req, page);
    // not async: the cached answer is given within the request's own call (src/api/server.ts)
    return wantsStats(req) ? withHits(req) : cached(req);
  };
  return routes;
}
