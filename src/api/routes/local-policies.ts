// /api/local-policies (issue 41): the rule base for traffic addressed to the firewall itself,
// in evaluation order, with /move and placement: the security policies' payloads and read
// model without `dstZone` (the firewall is the destination). ?stats=true adds each rule's
// kernel counters as `hits` (null without a data plane). docs/local-policies.md.
import { Type, type Static } from '@sinclair/typebox';
import { FwError } from '../../errors';
import type { AppContext } from '../context';
import { configQueryDoc, QueryBool } from '../schemas';
import { crudRoutes, readSource } from '../crud';
import { analyze } from '../../eval/analysis';
import { parseRuleId } from '../../config/validate';
import type { ConfigDoc, PolicyObj } from '../../config/types';
import type { Req, RouteDef } from '../http';
import { filtered, ruleFilterOf, ruleFilterQuery, type RuleFilter } from '../rule-filter';
import { LocalPolicyModel, renderLocalPolicy } from '../../config/render/local-policy';

const Hits = Type.Object({ packets: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
const Listed = Type.Composite([LocalPolicyModel, Type.Object({ hits: Type.Optional(Type.Union([Hits, Type.Null()])) })]);

const rows = (doc: ConfigDoc, variant: string) => filtered(doc.localPolicies, variant === '' ? null : JSON.parse(variant) as RuleFilter);

function wantsStats(req: Req): boolean {
  const v = req.query.get('stats');
  if (v === null || v === 'false') return false;
  if (v === 'true') return true;
  throw new FwError('ERR_NET_1005', `query "stats": "${v}" is not one of true, false`);
}

const Covered = Type.Array(Type.Object({ id: Type.Integer(), coveredBy: Type.Array(Type.Integer()) }, { additionalProperties: false }));
const LocalAnalysis = Type.Object({
  complete: Type.Boolean({ description: 'every local policy decided' }),
  shadowed: Covered,
  redundant: Covered,
  undecided: Type.Array(Type.Integer()),
  disabled: Type.Array(Type.Integer()),
}, { additionalProperties: false });

/** The time one analysis of the local policies may take on the HTTP thread (a local rule base
 * is tens of rules, decided in milliseconds; a huge one answers complete: false). */
const ANALYSIS_MS = 2000;

/**
 * The exact analysis of the policies (shadowed, redundant) on the local policies: they are a
 * policy table whose every destination zone is any, so the same analysis answers for them
 * on a document whose policies they are. The running version's answer is kept (the last asked).
 */
function localAnalysis(doc: ConfigDoc): Static<typeof LocalAnalysis> {
  const a = analyze({ ...doc, policies: doc.localPolicies, nat: [] }, undefined, { deep: true, deadline: Date.now() + ANALYSIS_MS });
  return { complete: a.complete, shadowed: a.shadowed, redundant: a.redundant, undecided: a.undecided, disabled: a.disabled ?? [] };
}

function analysisRoute(ctx: AppContext): RouteDef {
  let last: { doc: ConfigDoc; answer: Static<typeof LocalAnalysis> } | null = null;
  return {
    method: 'GET', pattern: '/api/analysis/local-policies', body: 'none', permission: 'read',
    doc: { tag: 'eval', summary: 'Local policies that can never match: shadowed (by a rule of the other action) or redundant', query: configQueryDoc, response: LocalAnalysis, errors: [409] },
    handler: async (req) => {
      const { doc, running } = await readSource(ctx, req);
      // a running version never changes: its answer is kept; a candidate is asked afresh
      if (!running) return { body: localAnalysis(doc) };
      if (last?.doc !== doc) last = { doc, answer: localAnalysis(doc) };
      return { body: last.answer };
    },
  };
}

export function localPolicyRoutes(ctx: AppContext) {
  const routes = crudRoutes(ctx, {
    kind: 'local-policy',
    path: '/api/local-policies',
    param: 'id',
    noun: 'local policy',
    checkKey: parseRuleId,
    messages: {
      create: 'local policy created in candidate',
      update: 'local policy updated in candidate',
      remove: 'local policy deleted from candidate',
      move: 'local policy moved successfully',
    },
    model: LocalPolicyModel,
    listModel: Type.Array(LocalPolicyModel),
    listQuery: ruleFilterQuery,
    listVariant: (query) => {
      const f = ruleFilterOf(query);
      return f ? JSON.stringify(f) : '';
    },
    cachedVariant: (variant) => variant === '',
    list: (doc, variant) => rows(doc, variant).map((p) => renderLocalPolicy(doc, p)),
    listRows: { rows, render: (doc, p: PolicyObj) => renderLocalPolicy(doc, p) },
    one: (doc, key) => {
      const id = parseRuleId(key);
      const p = doc.localPolicies.find((x) => x.id === id);
      return p && renderLocalPolicy(doc, p);
    },
  });
  // ?stats=true: the list with live counters, never cached
  const list = routes.find((r) => r.method === 'GET' && r.pattern === '/api/local-policies')!;
  list.doc = {
    ...list.doc,
    query: { ...list.doc.query, stats: { schema: QueryBool, description: 'true: each local policy with its kernel counters as `hits`' } },
    response: Type.Array(Listed),
  };
  const cached = list.handler;
  list.handler = (req) => {
    if (!wantsStats(req)) return cached(req);
    return (async () => {
      const { doc } = ctx.config.current();
      const counters = await ctx.dataPlane.localCounters?.();
      const hits = (id: number) => (counters ? counters.get(id) ?? { packets: 0, bytes: 0 } : null);
      return { body: filtered(doc.localPolicies, ruleFilterOf(req.query)).map((p) => ({ ...renderLocalPolicy(doc, p), hits: hits(p.id) })) };
    })();
  };
  return [...routes, analysisRoute(ctx)];
}
