// What operators and their tools call: GET /healthz (the process answers), GET /readyz (it
// can serve: store reachable, running version compiled, and every other registered check),
// GET /metrics (Prometheus) and GET /api/openapi.json (this API's OpenAPI 3.1 document).
import { Type } from '@sinclair/typebox';
import { cidrContainsIp } from '../../config/net';
import { clientIp } from '../../config/net';
import { parseAddressList } from '../client-address';
import type { AppContext } from '../context';
import type { Req, RouteDef } from '../http';
import { openApiDocument } from '../openapi';

const HealthReply = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });
const ReadyReply = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not ready')]),
  checks: Type.Record(Type.String(), Type.String(), { description: 'each check\'s "ok", or why it failed' }),
  warnings: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'what is wrong without making the instance unready, e.g. redis_auth: Redis accepts commands without authentication (docs/cluster.md); absent when nothing' })),
}, { additionalProperties: false });
const OpenApiReply = Type.Object({ openapi: Type.String() }, { additionalProperties: true, description: 'this document' });

export function operationsRoutes(ctx: AppContext, routes: () => readonly RouteDef[], version: string): RouteDef[] {
  const allow = parseAddressList(ctx.settings.metricsAllow, 'FW_METRICS');
  let openApiJson: string | undefined; // the route table is fixed once the server runs
  /** A scrape from an allowed client address (FW_METRICS) needs no token; others need one
   * of a role with the audit permission (the server checks it like any route's). */
  const allowedScraper = (req: Req) => {
    const ip = clientIp(req.ip);
    return ip !== null && allow.some((c) => cidrContainsIp(c, ip));
  };
  const ops = 'operations';
  return [
    { method: 'GET', pattern: '/healthz', auth: false, body: 'none',
      doc: { tag: ops, summary: 'Liveness: the process answers', response: HealthReply },
      handler: () => ({ body: { status: 'ok' } }) },
    { method: 'GET', pattern: '/readyz', auth: false, body: 'none',
      doc: { tag: ops, summary: 'Readiness: 200 when every check passes, else 503 with the same body', response: ReadyReply,
        otherAnswers: { 503: { description: 'not ready: the checks that failed say why', schema: ReadyReply } } },
      handler: async () => {
        const r = await ctx.readiness.report();
        return { status: r.ready ? 200 : 503, body: { status: r.ready ? 'ready' : 'not ready', checks: r.checks, ...(r.warnings ? { warnings: r.warnings } : {}) } };
      } },
    { method: 'GET', pattern: '/metrics', body: 'none', permission: 'audit', anonymous: allowedScraper,
      doc: { tag: ops, summary: 'Prometheus metrics: from an allowed client address (FW_METRICS) without a token, else with one', response: Type.String(), contentType: 'text/plain' },
      handler: async () => {
        // the server counts a request in flight once its handler has returned a promise: the
        // scrape starts after that, so the in-flight gauge includes it as its help says
        await undefined;
        const { contentType, text } = await ctx.metrics.scrape();
        return { body: undefined, json: text, headers: { 'Content-Type': contentType } };
      } },
    { method: 'GET', pattern: '/api/openapi.json', auth: false, body: 'none',
      doc: { tag: ops, summary: 'This API\'s OpenAPI 3.1 document', response: OpenApiReply },
      handler: () => {
        openApiJson ??= JSON.stringify(openApiDocument(routes(), version, ctx.settings.allowedHosts.length > 0));
        return { body: undefined, json: openApiJson };
      } },
  ];
}

