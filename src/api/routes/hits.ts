// Hits with times of the running policies and NAT rules (sampled from the kernel's counters,
// src/dataplane/hits.ts): GET /api/analysis/hits, a reset, and the rule-base audit's question,
// "which rules had no hit for N days": GET /api/analysis/unused (JSON) and .csv (auditors).
import { Type, type Static } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { oneOf } from '../../config/render/objects';
import type { HitRecord } from '../../dataplane/hits';
import type { AppContext } from '../context';
import { message, type RouteDef } from '../http';
import { IsoTime, MessageReply } from '../schemas';

const When = Type.Union([IsoTime, Type.Null()]);
const RuleHits = Type.Object({
  kind: oneOf(['policy', 'nat'] as const),
  id: Type.Integer(),
  hits: Type.Integer({ minimum: 0, description: 'packets (policies: the first of every connection, and every one a commit rematched); NAT: connections translated' }),
  bytes: Type.Integer({ minimum: 0 }),
  firstHitAt: When,
  lastHitAt: When,
}, { additionalProperties: false });
const HitsReply = Type.Object({
  dataplane: oneOf(['none', 'linux'] as const),
  version: Type.Integer({ minimum: 0 }),
  sampledAt: When,
  rules: Type.Union([Type.Array(RuleHits), Type.Null()], { description: 'every running policy and NAT rule; null without a kernel' }),
}, { additionalProperties: false });
const UnusedReply = Type.Object({
  dataplane: oneOf(['none', 'linux'] as const),
  version: Type.Integer({ minimum: 0 }),
  days: Type.Integer({ minimum: 1 }),
  since: IsoTime,
  rules: Type.Union([Type.Array(RuleHits), Type.Null()], { description: 'running rules with no hit since `since`; null without a kernel' }),
}, { additionalProperties: false });
type Hits = Static<typeof RuleHits>;
/** What the console and fwctl hits read (console/src/types.ts; the CLI imports the types). */
export type HitsReplyModel = Static<typeof HitsReply>;
export type UnusedReplyModel = Static<typeof UnusedReply>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const daysQuery = { days: { schema: Type.Integer({ minimum: 1, maximum: 3650 }), description: 'no hit for this many days (default 90)' } };

function days(q: URLSearchParams): number {
  const text = q.get('days');
  if (text === null) return 90;
  if (!/^\d{1,6}$/.test(text)) throw new FwError('ERR_NET_1004', `query "days": "${text.slice(0, 64)}" is not a whole number`);
  const n = Number(text);
  if (n < 1 || n > 3650) throw new FwError('ERR_NET_1008', `query "days": ${n} is not within 1-3650`);
  return n;
}

/** Every running policy and NAT rule with its hits (zero and no times when never counted); null without a kernel. */
async function runningHits(ctx: AppContext): Promise<{ sampledAt: number | null; rules: Hits[] | null }> {
  const got = await ctx.dataPlane.hits();
  if (!got) return { sampledAt: null, rules: null };
  const byKey = new Map<string, HitRecord>(got.rules.map((r) => [`${r.kind}:${r.id}`, r]));
  const doc = ctx.config.current().doc;
  const rules = [...doc.policies.map((p) => ['policy', p.id] as const), ...doc.nat.map((n) => ['nat', n.id] as const)].map(([kind, id]) => {
    const r = byKey.get(`${kind}:${id}`);
    return { kind, id, hits: r?.hits ?? 0, bytes: r?.bytes ?? 0, firstHitAt: iso(r?.firstHitAt ?? null), lastHitAt: iso(r?.lastHitAt ?? null) };
  });
  return { sampledAt: got.sampledAt, rules };
}

async function unused(ctx: AppContext, q: URLSearchParams) {
  const n = days(q);
  const since = new Date(Date.now() - n * 86400_000).toISOString();
  const { rules } = await runningHits(ctx);
  return {
    dataplane: ctx.dataPlane.mode, version: ctx.config.current().meta.version, days: n, since,
    rules: rules && rules.filter((r) => r.lastHitAt === null || r.lastHitAt < since),
  };
}

const CSV_HEADER = 'kind,id,hits,bytes,firstHitAt,lastHitAt';

export function hitRoutes(ctx: AppContext): RouteDef[] {
  const tag = 'eval';
  return [
    { method: 'GET', pattern: '/api/analysis/hits', body: 'none', permission: 'read',
      doc: { tag, summary: 'Hits, bytes, first and last hit of every running policy and NAT rule', response: HitsReply },
      handler: async () => {
        const { sampledAt, rules } = await runningHits(ctx);
        return { body: { dataplane: ctx.dataPlane.mode, version: ctx.config.current().meta.version, sampledAt: iso(sampledAt), rules } };
      } },
    { method: 'POST', pattern: '/api/analysis/hits/reset', body: 'none', permission: 'configure',
      doc: { tag, summary: 'Zero the hits and hit times of every rule', response: MessageReply },
      handler: async (req) => {
        await ctx.dataPlane.resetHits();
        await ctx.audit.record(req, 'hits.reset', 'hits and hit times of every rule zeroed');
        return message('hits reset');
      } },
    { method: 'GET', pattern: '/api/analysis/unused', body: 'none', permission: 'read',
      doc: { tag, summary: 'Running rules with no hit for N days', response: UnusedReply, query: daysQuery },
      handler: async (req) => ({ body: await unused(ctx, req.query) }) },
    { method: 'GET', pattern: '/api/analysis/unused.csv', body: 'none', permission: 'read',
      doc: { tag, summary: 'Running rules with no hit for N days, as CSV', response: Type.String(), contentType: 'text/csv', query: daysQuery },
      handler: async (req) => {
        const u = await unused(ctx, req.query);
        const lines = (u.rules ?? []).map((r) => [r.kind, r.id, r.hits, r.bytes, r.firstHitAt ?? '', r.lastHitAt ?? ''].join(','));
        return { body: undefined, json: [CSV_HEADER, ...lines].join('\r\n') + '\r\n', headers: { 'Content-Type': 'text/csv; charset=utf-8' } };
      } },
  ];
}
