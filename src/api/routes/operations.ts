// What operators and their tools call: GET /healthz (the process answers), GET /readyz (it
// can serve: store reachable, running version compiled, and every other registered check),
// GET /metrics (Prometheus) and GET /api/openapi.json (this API's OpenAPI 3.1 document).
import { Type } from '@sinclair/typebox';
import { cidrContainsIp, parseCidr, parseIp, type Cidr } from '../../config/net';
import type { AppContext } from '../context';
import type { Req, RouteDef } from '../http';
import { openApiDocument } from '../openapi';

const HealthReply = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });
const ReadyReply = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not ready')]),
  checks: Type.Record(Type.String(), Type.String(), { description: 'each check\'s "ok", or why it failed' }),
}, { additionalProperties: false });
const OpenApiReply = Type.Object({ openapi: Type.String() }, { additionalProperties: true, description: 'this document' });

/** The client addresses FW_METRICS lets scrape without a token; an address "a.b.c.d" is a /32. */
export function parseAllowList(text: string): Cidr[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    const c = parseCidr(entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`);
    if (!c) throw new Error(`FW_METRICS: "${entry}" is not an address or a network`);
    return c;
  });
}

/** The client's address as parsed: uWS writes IPv4 clients of a dual-stack socket as ::ffff:a.b.c.d. */
function clientIp(text: string) {
  const ip = parseIp(text);
  if (ip && ip.family === 6 && ip.bytes.slice(0, 12).every((b, i) => b === (i < 10 ? 0 : 255))) {
    return parseIp(Array.from(ip.bytes.slice(12)).join('.'));
  }
  return ip;
}

export function operationsRoutes(ctx: AppContext, routes: () => readonly RouteDef[], version: string): RouteDef[] {
  const allow = parseAllowList(ctx.settings.metricsAllow);
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
        return { status: r.ready ? 200 : 503, body: { status: r.ready ? 'ready' : 'not ready', checks: r.checks } };
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
        openApiJson ??= JSON.stringify(openApiDocument(routes(), version));
        return { body: undefined, json: openApiJson };
      } },
  ];
}

