// What operators and their tools call: GET /healthz (the process answers), GET /readyz (it
// can serve: store reachable, running version compiled, and every other registered check),
// GET /metrics (Prometheus) and GET /api/openapi.json (this API's OpenAPI 3.1 document).
import { Type } from '@sinclair/typebox';
import { cidrContainsIp, parseCidr, parseIp, type Cidr } from '../../config/net';
import type { TokenService } from '../../auth/tokens';
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

export function operationsRoutes(ctx: AppContext, tokens: TokenService, routes: () => readonly RouteDef[], version: string): RouteDef[] {
  const allow = parseAllowList(ctx.settings.metricsAllow);
  let openApiJson: string | undefined; // the route table is fixed once the server runs
  /** A scrape needs an allowed client address (FW_METRICS) or an admin's bearer token. */
  const checkScraper = async (req: Req) => {
    const ip = clientIp(req.ip);
    if (ip && allow.some((c) => cidrContainsIp(c, ip))) return;
    await tokens.authenticate(req.headers.authorization);
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
    { method: 'GET', pattern: '/metrics', auth: false, body: 'none',
      doc: { tag: ops, summary: 'Prometheus metrics: an allowed client address (FW_METRICS) or an admin token', response: Type.String(), contentType: 'text/plain', errors: [401] },
      handler: async (req) => {
        await checkScraper(req);
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

