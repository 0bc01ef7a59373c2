// The OpenAPI 3.1 document of the whole API, built from the route table: every route's
// RouteDoc holds the TypeBox schemas its handler validates with and answers with, so a schema
// change shows in the document with no second edit. Served at GET /api/openapi.json.
//
// The error answers of an operation are those its RouteDoc lists plus those its options
// imply: 401 on an authenticated route; 400 where there is a body, a path parameter or a
// query parameter to get wrong; 404 where a path parameter names an object; 413 and 415 (a
// body not labelled JSON) where there is a body; 500 and 503 everywhere, and 421 everywhere
// when the daemon checks Host names (FW_ALLOWED_HOSTS). Each error answer's `code` is limited to the catalogued
// codes of its status. A request that matches no path and method is answered 404
// ERR_NET_1011 or 405 ERR_NET_1009 (with Allow), the body of components.schemas.Error.
import type { TSchema } from '@sinclair/typebox';
import type { RouteDef } from './http';
import { rolesFor } from '../auth/roles';
import { codesOf, errorBody, errorStatuses } from './schemas';
import { ERRORS, type ErrorCode } from '../errors';
import { CHECKED } from '../config/validate';
import { YAML_TYPE, YAML_TYPES } from './media-type';

type Json = Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  304: 'not modified: the client holds this version\'s answer (If-None-Match)',
  400: 'bad request (also: a configuration over the expansion budget FW_MAX_EXPANSION, ERR_NET_1008 on a change or load, ERR_SYS_3003 at validate and commit)', 401: 'missing, malformed, expired or revoked token',
  403: 'the role of the token does not hold the permission the operation needs (details name the roles that do and the caller\'s)', 404: 'not found',
  405: 'method not allowed', 409: 'conflict with the session or existing objects', 413: 'body too large',
  415: 'the body is not labelled application/json (or application/yaml where the operation takes YAML)',
  421: 'the Host is not one of the names the daemon serves (FW_ALLOWED_HOSTS)',
  422: 'the Idempotency-Key was used with another request',
  429: 'too many failed logins (POST /api/login), or too many open event streams (GET /api/events)', 500: 'internal error', 503: 'store or compile queue unavailable, a write not confirmed by enough replicas, or (a commit in a cluster) no commit worker alive',
  504: 'compile did not finish in time (past FW_COMPILE_TIMEOUT_MS it is stopped, its thread replaced)',
};

/** "/api/addresses/:name" as OpenAPI writes it: "/api/addresses/{name}". */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function pathParams(pattern: string): string[] {
  return [...pattern.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

/** A plain JSON copy of a TypeBox schema (its symbol keys dropped), the constraints its
 * handler checks itself (`checked` in config/validate.ts) written as the keywords they are. */
export function plain(schema: TSchema | undefined): Json {
  return JSON.parse(JSON.stringify(schema), (_key, value: unknown) => {
    if (!value || typeof value !== 'object' || !(CHECKED in value)) return value;
    const { [CHECKED]: keywords, ...rest } = value as Json;
    return { ...rest, ...(keywords as Json) };
  }) as Json;
}

/** A path parameter's schema: ids of rules and version numbers are integers (firewall-api.md section 4), names strings. */
function pathParamSchema(name: string): Json {
  if (name === 'id') return { type: 'integer', minimum: 1 };
  if (name === 'n') return { type: 'integer', minimum: 0 };
  return { type: 'string' };
}

function operationId(def: RouteDef): string {
  const words = def.pattern.split('/').filter(Boolean).map((w) => w.replace(/^:/, 'by-'));
  return [def.method.toLowerCase(), ...words].join('-');
}

/** The error statuses an operation can answer (see the header comment). */
export function errorStatusesOf(def: RouteDef, hostCheck: boolean): number[] {
  const out = new Set<number>(def.doc.errors ?? []);
  const params = pathParams(def.pattern);
  const hasBody = def.doc.body !== undefined;
  if (def.auth !== false) {
    out.add(401);
    out.add(403);
  }
  // an Idempotency-Key on a changing request: a malformed key, reused with another request,
  // or its first request still running
  if (def.auth !== false && CHANGING.has(def.method)) {
    out.add(400);
    out.add(409);
    out.add(422);
  }
  if (hasBody || params.length || Object.keys(def.doc.query ?? {}).length) out.add(400);
  if (params.length) out.add(404);
  if (hasBody) out.add(415);
  // the body limit is checked on the Content-Length of any request that may carry a body,
  // before the route reads it (or ignores it)
  if (def.method !== 'GET' && def.method !== 'HEAD') out.add(413);
  if (hostCheck) out.add(421);
  out.add(500);
  out.add(503);
  return [...out].sort((a, b) => a - b);
}

const CHANGING = new Set(['POST', 'PUT', 'DELETE']);

/** A body's media types: the route's own, and the YAML ones too where the route speaks YAML
 * (every name a request body may be labelled YAML with; an answer is application/yaml). */
function mediaTypes(type: string, yaml: boolean | undefined, schema: TSchema, request: boolean): Json {
  const out: Json = { [type]: { schema: plain(schema) } };
  if (yaml) for (const t of request ? YAML_TYPES : [YAML_TYPE]) out[t] = { schema: plain(schema) };
  return out;
}

function operation(def: RouteDef, hostCheck: boolean): Json {
  const d = def.doc;
  const requestId = { $ref: '#/components/headers/RequestId' };
  const idempotent = def.auth !== false && CHANGING.has(def.method);
  const ok: Json = {
    description: 'success',
    headers: d.etag ? { 'X-Request-Id': requestId, ETag: { $ref: '#/components/headers/ETag' } } : { 'X-Request-Id': requestId },
    content: mediaTypes(d.contentType ?? 'application/json', d.yaml && def.method === 'GET', d.response, false),
  };
  const responses: Json = { 200: ok };
  if (d.etag) responses[304] = { $ref: '#/components/responses/NotModified' };
  for (const s of errorStatusesOf(def, hostCheck)) responses[s] = { $ref: `#/components/responses/Error${s}` };
  for (const [s, a] of Object.entries(d.otherAnswers ?? {})) {
    responses[s] = { description: a.description, headers: { 'X-Request-Id': requestId }, content: { 'application/json': { schema: plain(a.schema) } } };
  }
  const parameters: Json[] = pathParams(def.pattern).map((name) => ({
    name, in: 'path', required: true, schema: pathParamSchema(name), description: `the object's ${name}`,
  }));
  if (idempotent) {
    (ok.headers as Json)['Idempotent-Replayed'] = { schema: { type: 'string', enum: ['true'] }, description: 'the stored answer of an earlier request with this Idempotency-Key' };
    parameters.push({
      name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 257 },
      description: `runs the request once per user and key; a retry gets the first answer (kept FW_IDEMPOTENCY_TTL)`,
    });
  }
  for (const [name, q] of Object.entries(d.query ?? {})) {
    parameters.push({ name, in: 'query', required: false, schema: plain(q.schema), description: q.description });
  }
  const op: Json = {
    operationId: operationId(def),
    summary: d.summary,
    tags: [d.tag],
    responses,
  };
  if (def.auth !== false) {
    // who may call it, from the one roles table (src/auth/roles.ts)
    const roles = rolesFor(def.permission);
    op.description = `Roles: ${roles.join(', ')}.${def.anonymous ? ' Without a token: from the client addresses FW_METRICS allows.' : ''}`;
    op['x-roles'] = roles;
  }
  if (parameters.length) op.parameters = parameters;
  if (d.body) {
    op.requestBody = { required: !d.bodyOptional, content: mediaTypes('application/json', d.yaml, d.body, true) };
  }
  // a route without a token says so (one that may go without: either); the others inherit
  // the document's bearer requirement
  if (def.auth === false) op.security = [];
  else if (def.anonymous) op.security = [{}, { bearer: [] }];
  return op;
}

function errorResponses(): Json {
  const out: Json = {
    NotModified: { description: STATUS_TEXT[304], headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' }, ETag: { $ref: '#/components/headers/ETag' } } },
  };
  for (const s of errorStatuses()) {
    const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
    if (s === 401) headers['WWW-Authenticate'] = { schema: { type: 'string' }, description: 'Bearer' };
    if (s === 429 || s === 503) headers['Retry-After'] = { schema: { type: 'string' }, description: 'seconds to wait' };
    if (s === 405) headers.Allow = { schema: { type: 'string' }, description: 'the methods the path has' };
    const codes = codesOf(s).map((c) => `${c} (${ERRORS[c].message})`).join(', ');
    out[`Error${s}`] = {
      description: `${STATUS_TEXT[s] ?? 'error'}: ${codes}`,
      headers,
      content: { 'application/json': { schema: plain(errorBody(codesOf(s))) } },
    };
  }
  return out;
}

/** The document of `routes`; `version` is the daemon's package version; `hostCheck`: FW_ALLOWED_HOSTS is set (421 on every operation). */
export function openApiDocument(routes: readonly RouteDef[], version: string, hostCheck = false): Json {
  const paths: Record<string, Json> = {};
  const tags = new Map<string, string>();
  for (const def of routes) {
    const p = openApiPath(def.pattern);
    paths[p] ??= {};
    paths[p][def.method.toLowerCase()] = operation(def, hostCheck);
    if (!tags.has(def.doc.tag)) tags.set(def.doc.tag, TAG_TEXT[def.doc.tag] ?? def.doc.tag);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'fwd firewall management API',
      version,
      description: 'Configure a firewall through an exclusive configuration session: changes go into a candidate; '
        + 'a commit validates and compiles it into the running version. Errors are {code, message, details}; '
        + 'every answer carries X-Request-Id.',
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'the default FW_HOST and FW_PORT' }],
    security: [{ bearer: [] }],
    tags: [...tags].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'the JWT of POST /api/login, or an API token of POST /api/tokens ("fwd_...")' },
      },
      headers: {
        RequestId: { description: 'the request\'s id: the X-Request-Id sent, else a generated one; also in the logs and the audit trail', required: true, schema: { type: 'string' } },
        ETag: { description: 'names the running version the answer was read from', required: true, schema: { type: 'string' } },
      },
      schemas: { Error: plain(errorBody(Object.keys(ERRORS) as ErrorCode[])) },
      responses: errorResponses(),
    },
  };
}

const TAG_TEXT: Record<string, string> = {
  auth: 'Log in and out',
  users: 'Accounts and their roles',
  tokens: 'API tokens for automation',
  config: 'The configuration session, commit, versions and rollback',
  status: 'What is running',
  addresses: 'Address objects',
  services: 'Service objects',
  'address-groups': 'Address groups: addresses and groups under one name, usable wherever an address is',
  'service-groups': 'Service groups: services and groups under one name, usable wherever a service is',
  zones: 'Security zones',
  interfaces: 'Physical interfaces (a fixed inventory)',
  vlans: 'VLAN interfaces',
  dhcp: 'DHCP pools',
  routes: 'Static routes',
  policies: 'Security policies, in evaluation order',
  nat: 'NAT rules, in evaluation order',
  eval: 'What the configuration does to packets',
  sessions: 'Live connections of the data plane (conntrack): list and end them',
  audit: 'The audit trail',
  cluster: 'The instances of a cluster',
  events: 'Server-Sent Events of commits, confirmations, sessions and nodes',
  operations: 'Health, readiness, metrics and this document',
};
