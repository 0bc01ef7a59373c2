// The contract suite: generated from the daemon's own OpenAPI document (GET /api/openapi.json),
// it walks every operation and checks the real server against what the document says, so
// that the document and the server cannot drift apart (issue 43 item 14). Every answer is
// checked by the document's checker (test/helpers/openapi.ts: status listed, media type,
// body valid against the listed schema, X-Request-Id). Nothing here names an operation: an
// endpoint added to the route table is covered by this file as it stands.
//
// What is checked, per operation:
// - request bodies: a base body (the required fields, each with its example or the simplest
//   value its schema allows: test/helpers/schema-probes.ts) and variants of it, one place
//   changed each. A variant the document refuses (a required field missing, an unknown field
//   where additionalProperties is false, another JSON type, a value outside an enum, a number
//   outside minimum/maximum, a string over maxLength) must be refused with 400 (its code may
//   be a reference's, ERR_NET_2003/2005, when the base names an object that does not exist:
//   contract.md section 3 puts shape and existence in one check). A variant the document
//   accepts must not be refused as malformed for that field (ERR_NET_1004 "unknown field",
//   ERR_NET_1005, ERR_NET_1006, ERR_NET_1008, ERR_SEC_1001, ERR_SEC_1002 naming it): the
//   document would then be looser than the server;
// - query parameters the same way (a value outside the document's enum, boolean, integer
//   bounds: refused; a value it allows: not refused as malformed);
// - path parameters: a value of another type than the document's is refused with 400; one of
//   its type that names nothing is 404 ERR_NET_1003 on a read;
// - media types: each listed request media type is taken, and a YAML or text type the
//   document does not list is refused with 415;
// - 413 ERR_NET_1010 on every operation a body can be sent to; 401 ERR_SEC_5001 with
//   WWW-Authenticate: Bearer on every operation that needs a token; 304 without a body or a
//   Content-Type; X-Request-Id declared required on every answer; every object schema says
//   whether it takes more properties (additionalProperties);
// - and never a 5xx but the 503 and 504 the document lists.
//
// What it tolerates, each because the spec allows it and said here so:
// - a body labelled with a structured JSON type (application/merge-patch+json, any
//   application/*+json) is JSON (RFC 6839), taken where application/json is: the document
//   cannot list every such type;
// - a base body may be refused for what no schema can say (an address that is not a CIDR,
//   a reference to an object that does not exist: contract.md section 3's second check),
//   so a looseness probe counts only when the server's details name the probed field;
// - a read without parameters may answer 409 (it needs a session) or, when it has query
//   parameters, 400 (one of them is needed: a search without a criterion);
// - a 404 ERR_NET_1003 for the object a path names ends a probe there: the body of a change to
//   nothing is not looked at;
// - streams (text/event-stream) are not read: their answers never end.
import http from 'node:http';
import { ADMIN, ADMIN_PASSWORD, Client, useDaemon } from '../helpers/daemon';
import { OpenApiChecker } from '../helpers/openapi';
import { baseValue, constantsOf, resolve, typeOf, variants } from '../helpers/schema-probes';

const d = useDaemon({ FW_MAX_BODY: '65536' });
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let doc: Json;
let checker: OpenApiChecker;

interface Op { method: string; path: string; op: Json }
let ops: Op[] = [];

beforeAll(async () => {
  doc = (await (await fetch(`${d.url}/api/openapi.json`)).json()) as Json;
  checker = new OpenApiChecker(doc);
  ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as Json })));
});

interface Answer { status: number; body: Json | undefined; headers: Headers; problem?: string }

/** A request checked against the document: an undescribed answer is returned as a problem, not thrown. */
async function send(method: string, url: string, opts: { body?: string; type?: string; token?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? d.client.token : opts.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers['Content-Type'] = opts.type ?? 'application/json';
  const r = await fetch(d.url + url, { method, body: opts.body, headers });
  const text = await r.text();
  let body: Json | undefined;
  try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
  let problem: string | undefined;
  try {
    checker.check(method, url, r.status, r.headers.get('content-type'), r.headers.get('x-request-id'), text);
  } catch (e) {
    problem = (e as Error).message;
  }
  if (!problem && r.status >= 500 && r.status !== 503 && r.status !== 504) problem = `${method} ${url} -> ${r.status}: ${text.slice(0, 300)}`;
  return { status: r.status, body, headers: r.headers, problem };
}

const CHANGING = new Set(['POST', 'PUT', 'DELETE']);
/** Operations that take or end the session or the token themselves: run as they are. */
const SESSION_OPS = new Set(['/api/config/begin', '/api/login', '/api/logout']);

/** Before a changing request: a session of the admin client (a probe may have committed or discarded it). */
async function inSession(o: Op): Promise<void> {
  if (!CHANGING.has(o.method) || SESSION_OPS.has(o.path)) return;
  const s = await d.client.get('/api/config/session');
  if (!s.body.active) await d.client.post('/api/config/begin');
}

/** After an operation's probes: the admin client still logged in (a probe may have been a logout). */
async function stillLoggedIn(): Promise<void> {
  if ((await send('GET', '/api/me')).status === 401) await d.client.login(ADMIN, ADMIN_PASSWORD);
}

const isStream = (o: Op) => Object.keys(o.op.responses['200']?.content ?? {}).includes('text/event-stream');
const paramsOf = (o: Op, where: string): Json[] => (o.op.parameters ?? []).map((p: Json) => resolve(doc, p)).filter((p: Json) => p.in === where);
const needsToken = (o: Op) => o.op.security === undefined;

/** A path with every parameter filled with the simplest value of its schema. */
function filled(o: Op, values: Record<string, string> = {}): string {
  return o.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (values[name] !== undefined) return encodeURIComponent(values[name]);
    const p = paramsOf(o, 'path').find((x) => x.name === name);
    return typeOf(p?.schema ?? {}) === 'integer' ? '999999' : 'no-such-object';
  });
}

/** A request error: 400 with a code of kind 1 (contract.md section 6). */
const isRequestError = (a: Answer) => a.status === 400 && /^ERR_[A-Z]+_1\d{3}$/.test(String(a.body?.code));
/** A refusal of `field` as malformed: the codes of shape, enum and range, the details naming it. */
const MALFORMED = new Set(['ERR_NET_1005', 'ERR_NET_1006', 'ERR_NET_1008', 'ERR_SEC_1001', 'ERR_SEC_1002']);
function refusedAsMalformed(a: Answer, field: string): boolean {
  if (a.status !== 400) return false;
  const details = String(a.body?.details ?? '');
  const named = details.includes(`"${field}"`) || details.includes(`"${field}[`) || details.includes(`.${field}"`);
  if (!named) return false;
  if (MALFORMED.has(a.body?.code)) return true;
  return a.body?.code === 'ERR_NET_1004' && /unknown field|at most|must be|wrong type|expected/i.test(details);
}

function report(problems: string[]): void {
  expect(problems).toEqual([]);
}

test('the document: X-Request-Id is required on every answer, and every object schema of a request body says whether it takes other properties', () => {
  const problems: string[] = [];
  const responses = [...ops.flatMap((o) => Object.entries(o.op.responses).map(([s, r]) => [`${o.method} ${o.path} ${s}`, resolve(doc, r as Json)] as const)),
    ...Object.entries(doc.components.responses).map(([name, r]) => [`components.responses.${name}`, r as Json] as const)];
  for (const [where, r] of responses) {
    const header = resolve(doc, r.headers?.['X-Request-Id']);
    if (header.required !== true) problems.push(`${where}: X-Request-Id not marked required`);
  }
  const walk = (s: unknown, where: string): void => {
    if (!s || typeof s !== 'object') return;
    const x = s as Json;
    if (x.type === 'object' && x.additionalProperties === undefined && !x.patternProperties) problems.push(`${where}: an object schema without additionalProperties`);
    for (const [k, v] of Object.entries(x)) if (k !== 'examples' && k !== 'default' && k !== 'const' && k !== 'enum') walk(v, `${where}/${k}`);
  };
  // request bodies: the server refuses unknown fields (contract.md section 1), so each object says so
  for (const o of ops) for (const [type, media] of Object.entries(o.op.requestBody?.content ?? {})) walk((media as Json).schema, `${o.method} ${o.path} ${type}`);
  walk(doc.components.schemas, '#/components/schemas');
  report(problems);
});

test('every read without parameters answers with what the document describes; never a 5xx', async () => {
  const problems: string[] = [];
  for (const o of ops.filter((x) => x.method === 'GET' && !x.path.includes('{') && !isStream(x))) {
    const a = await send('GET', o.path);
    if (a.problem) problems.push(a.problem);
    else if (a.status >= 400 && a.status !== 409 && !(a.status === 400 && paramsOf(o, 'query').length)) problems.push(`GET ${o.path} -> ${a.status} ${a.body?.code}: a read without parameters failed`);
  }
  report(problems);
}, 120_000);

test('request bodies: what the document refuses, the server refuses as a request error; what it accepts, the server does not refuse as malformed', async () => {
  const problems: string[] = [];
  for (const o of ops.filter((x) => x.op.requestBody)) {
    const schema = o.op.requestBody.content['application/json']?.schema;
    if (!schema) continue;
    const url = filled(o);
    const base = baseValue(doc, schema);
    await inSession(o);
    const first = await send(o.method, url, { body: JSON.stringify(base) });
    if (first.problem) problems.push(`base body ${JSON.stringify(base).slice(0, 200)}: ${first.problem}`);
    for (const v of variants(doc, schema, base)) {
      await inSession(o);
      const a = await send(o.method, url, { body: JSON.stringify(v.value) });
      const where = `${o.method} ${o.path} ${v.at || '(body)'}: ${v.what}`;
      if (a.problem) problems.push(`${where}: ${a.problem}`);
      else if (a.status === 404 && a.body?.code === 'ERR_NET_1003' && /no-such-object|999999/.test(String(a.body?.details))) continue;
      else if (v.invalid && a.status !== 400) problems.push(`${where}: the document refuses it, the server answered ${a.status} ${a.body?.code ?? ''} ${String(a.body?.details ?? a.body?.message ?? '').slice(0, 120)}`);
      else if (!v.invalid && refusedAsMalformed(a, v.field)) problems.push(`${where}: the document allows it, the server refused it: ${a.body?.code} ${a.body?.details}`);
    }
    await stillLoggedIn();
  }
  report(problems);
}, 600_000);

test('query parameters: a value outside the document\'s type, enum or bounds is a request error; one it allows is not refused as malformed', async () => {
  const problems: string[] = [];
  for (const o of ops.filter((x) => !isStream(x) && paramsOf(x, 'query').length)) {
    for (const p of paramsOf(o, 'query')) {
      const s = resolve(doc, p.schema);
      const constants = constantsOf(s);
      const type = typeOf(s);
      const probes: Array<{ value: string; invalid: boolean; what: string }> = [];
      if (constants) {
        probes.push({ value: 'zz-probe', invalid: true, what: `not one of ${constants.join(', ')}` });
        for (const c of constants) probes.push({ value: String(c), invalid: false, what: 'one of the document\'s values' });
      } else if (type === 'boolean') {
        probes.push({ value: 'zz-probe', invalid: true, what: 'not a boolean' }, { value: 'true', invalid: false, what: 'true' }, { value: 'false', invalid: false, what: 'false' });
      } else if (type === 'integer') {
        probes.push({ value: 'zz-probe', invalid: true, what: 'not an integer' });
        if (s.minimum !== undefined) probes.push({ value: String(s.minimum - 1), invalid: true, what: `under the minimum ${s.minimum}` }, { value: String(s.minimum), invalid: false, what: 'the minimum' });
        if (s.maximum !== undefined) probes.push({ value: String(s.maximum + 1), invalid: true, what: `over the maximum ${s.maximum}` }, { value: String(s.maximum), invalid: false, what: 'the maximum' });
      } else if (type === 'string' && !s.format && !s.pattern) {
        probes.push({ value: 'zz-probe', invalid: false, what: 'a string the document allows' });
      }
      for (const probe of probes) {
        await inSession(o);
        const url = `${filled(o)}?${new URLSearchParams({ [p.name]: probe.value })}`;
        const a = await send(o.method, url);
        const where = `${o.method} ${o.path}?${p.name}=${probe.value} (${probe.what})`;
        if (a.problem) problems.push(`${where}: ${a.problem}`);
        else if (probe.invalid && !isRequestError(a)) problems.push(`${where}: the document refuses it, the server answered ${a.status} ${a.body?.code ?? ''}`);
        else if (!probe.invalid && refusedAsMalformed(a, p.name) && String(a.body?.details).includes(`query "${p.name}": `)) problems.push(`${where}: the document allows it, the server refused it: ${a.body?.code} ${a.body?.details}`);
      }
    }
    await stillLoggedIn();
  }
  report(problems);
}, 600_000);

test('path parameters: another type than the document\'s is a request error; a value of its type that names nothing is 404 on a read', async () => {
  const problems: string[] = [];
  for (const o of ops.filter((x) => x.path.includes('{') && !isStream(x))) {
    for (const p of paramsOf(o, 'path')) {
      const type = typeOf(resolve(doc, p.schema));
      const body = o.op.requestBody ? JSON.stringify(baseValue(doc, o.op.requestBody.content['application/json'].schema)) : undefined;
      await inSession(o);
      if (type === 'integer') {
        const a = await send(o.method, filled(o, { [p.name]: 'zz-probe' }), { body });
        if (a.problem) problems.push(a.problem);
        else if (!isRequestError(a)) problems.push(`${o.method} ${o.path} with ${p.name}=zz-probe: the document says integer, the server answered ${a.status} ${a.body?.code ?? ''}`);
      }
      if (o.method === 'GET') {
        const a = await send('GET', filled(o));
        if (a.problem) problems.push(a.problem);
        else if (a.status !== 404 || a.body?.code !== 'ERR_NET_1003') problems.push(`GET ${filled(o)}: expected 404 ERR_NET_1003, got ${a.status} ${a.body?.code ?? ''} ${a.body?.details ?? ''}`);
        const other = await send('GET', filled(o, { [p.name]: type === 'integer' ? 'zz-probe' : '12' }));
        if (other.problem) problems.push(other.problem);
        else if (type !== 'integer' && isRequestError(other) && other.body?.code === 'ERR_NET_1002') problems.push(`GET ${o.path}: the document says ${p.name} is a string, the server takes only integers (${other.body?.details})`);
      }
    }
    await stillLoggedIn();
  }
  report(problems);
}, 600_000);

/** Media types a server might take without the document saying so. */
const UNLISTED_CANDIDATES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain', 'application/x-www-form-urlencoded'];

test('media types: every listed request media type is taken, and one the document does not list is refused with 415', async () => {
  const problems: string[] = [];
  for (const o of ops.filter((x) => x.op.requestBody)) {
    const listed = Object.keys(o.op.requestBody.content);
    const body = JSON.stringify(baseValue(doc, o.op.requestBody.content['application/json']?.schema ?? {})); // JSON text is YAML too
    for (const type of new Set([...listed, ...UNLISTED_CANDIDATES])) {
      await inSession(o);
      const a = await send(o.method, filled(o), { body, type });
      if (a.problem) problems.push(`${type}: ${a.problem}`);
      else if (listed.includes(type) && a.status === 415) problems.push(`${o.method} ${o.path}: ${type} is listed, the server answered 415`);
      else if (!listed.includes(type) && a.status !== 415) problems.push(`${o.method} ${o.path}: ${type} is not listed, the server took it (${a.status} ${a.body?.code ?? ''})`);
    }
    await stillLoggedIn();
  }
  report(problems);
}, 600_000);

/** A request that says its body is over any limit, answered before any of it is sent. */
function oversized(method: string, path: string, token: string): Promise<{ status: number; contentType: string | null; requestId: string | null; text: string }> {
  return new Promise((resolveAnswer, reject) => {
    const u = new URL(d.url + path);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method, headers: { 'Content-Type': 'application/json', 'Content-Length': String(512 * 1024 * 1024), Authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => {
        resolveAnswer({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? null, requestId: (res.headers['x-request-id'] as string | undefined) ?? null, text });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write('{');
  });
}

test('a body over the limit is 413 ERR_NET_1010 on every operation a body can be sent to, and the document lists it', async () => {
  const problems: string[] = [];
  for (const o of ops.filter((x) => CHANGING.has(x.method))) {
    const a = await oversized(o.method, filled(o), d.client.token);
    try {
      checker.check(o.method, filled(o), a.status, a.contentType, a.requestId, a.text);
      if (a.status !== 413 || JSON.parse(a.text).code !== 'ERR_NET_1010') problems.push(`${o.method} ${o.path}: ${a.status} ${a.text.slice(0, 120)}`);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  report(problems);
}, 120_000);

test('without a token: 401 ERR_SEC_5001 with WWW-Authenticate: Bearer on every operation that needs one', async () => {
  const problems: string[] = [];
  for (const o of ops.filter(needsToken)) {
    const a = await send(o.method, filled(o), { token: null });
    if (a.problem) problems.push(a.problem);
    else if (a.status !== 401 || a.body?.code !== 'ERR_SEC_5001' || a.headers.get('www-authenticate') !== 'Bearer') problems.push(`${o.method} ${o.path}: ${a.status} ${a.body?.code} ${a.headers.get('www-authenticate')}`);
  }
  report(problems);
}, 120_000);

test('304: the operations that list it answer If-None-Match without a body or a Content-Type, with ETag and X-Request-Id', async () => {
  const problems: string[] = [];
  const c = new Client(d.url);
  c.token = d.client.token;
  const etagged = ops.filter((o) => o.op.responses['304'] && !o.path.includes('{'));
  expect(etagged.length).toBeGreaterThan(0);
  for (const o of etagged) {
    const first = await fetch(d.url + o.path, { headers: { Authorization: `Bearer ${c.token}` } });
    await first.text();
    const etag = first.headers.get('etag');
    if (!etag) { problems.push(`GET ${o.path}: no ETag on 200`); continue; }
    const again = await fetch(d.url + o.path, { headers: { Authorization: `Bearer ${c.token}`, 'If-None-Match': etag } });
    const text = await again.text();
    if (again.status !== 304) problems.push(`GET ${o.path}: If-None-Match answered ${again.status}`);
    else if (text !== '' || again.headers.get('content-type') !== null || !again.headers.get('etag') || !again.headers.get('x-request-id')) {
      problems.push(`GET ${o.path}: 304 with body "${text.slice(0, 50)}", Content-Type ${again.headers.get('content-type')}, ETag ${again.headers.get('etag')}, X-Request-Id ${again.headers.get('x-request-id')}`);
    }
  }
  report(problems);
});
