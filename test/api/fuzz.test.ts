// Property-based fuzzing from the OpenAPI document (fast-check): thousands of requests a run,
// each an operation of the document with path parameters, query parameters and a body drawn
// from its schemas (values that fit, from a pool of names and addresses the configuration
// uses, so that many succeed) or deliberately wrong (another JSON value, a missing or an
// unknown field). Every answer: no 5xx, described by the document (the Client checks every
// answer, test/helpers/openapi.ts), and a refused request leaves the candidate, the session
// and the running version exactly as they were.
import fc from 'fast-check';
import { serializeDoc } from '../../src/config/document';
import { Client, ok, useDaemon } from '../helpers/daemon';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const RUNS = 3000;
const d = useDaemon({ FW_LOGIN_MAX_FAILURES: '1000' });
const fuzzer = new Client('');
let doc: Json;

/** Words the configuration uses: names, addresses, enum values, ports. */
const WORDS = [
  'lan', 'wan', 'dmz', 'web', 'db', 'eth0', 'eth1', 'eth2', 'eth3', 'v10', 'https', 'ssh', 'any', '', 'admin',
  '10.0.0.0/24', '10.0.0.1', '10.0.0.10', '10.0.0.200', '192.168.1.1/24', '2001:db8::/64', '2001:db8::1', '0.0.0.0/0', 'default',
  'tcp', 'udp', 'icmp', 'allow', 'deny', 'l2', 'l3', 'snat', 'dnat-ip', 'dnat-port', 'top', 'bottom', 'before', 'after',
  'up', 'down', 'ping', 'http', 'running', 'candidate', '80', '443', '1000-2000', '1', '2', '3', 'true', 'false',
  'a-long-enough-password',
];
const word = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...WORDS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
const int = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 5 }) }, { weight: 1, arbitrary: fc.integer() }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4100 }) });

/** Values that fit a JSON schema (the subset TypeBox writes). */
function fits(s: Json, depth = 0): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.anyOf) return fc.oneof(...s.anyOf.map((x: Json) => fits(x, depth)));
  switch (s.type) {
    case 'string': return word;
    case 'integer': return int;
    case 'number': return fc.double({ noNaN: true });
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    case 'array': return fc.array(fits(s.items ?? {}, depth + 1), { maxLength: depth > 1 ? 1 : 3 });
    case 'object': {
      const props: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) props[k] = fits(v as Json, depth + 1);
      return fc.record(props, { requiredKeys: s.required ?? [] });
    }
    default: return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body for a schema: one that fits (mostly), or one that is wrong in a typical way. */
function bodyFor(method: string, s: Json | undefined): fc.Arbitrary<string | undefined> {
  if (method === 'get') return fc.constant(undefined); // fetch sends no body with GET
  if (!s) return fc.constantFrom(undefined, '{"unexpected":1}');
  const good = fits(s).map((v) => JSON.stringify(v));
  const bad = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    fits(s).map((v) => JSON.stringify({ ...(v as object), ['unknown-field']: 1 })),
    fits(s).map((v) => { // a required field left out
      const o = { ...(v as Json) };
      delete o[(s.required ?? [])[0]];
      return JSON.stringify(o);
    }),
    fc.constantFrom('', '{', '[1,2', 'null', '"text"'),
  );
  return fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: bad });
}

interface Request { method: string; url: string; body: string | undefined }

/**
 * Commits without confirm_timeout: a commit confirmed is reverted by the daemon seconds later,
 * which would change the state while a later refused request is being checked
 * (test/api/confirm.test.ts covers it).
 */
function withoutConfirmTimeout(template: string, schema: Json | undefined): Json | undefined {
  if (template !== '/api/config/commit' || !schema?.properties?.confirm_timeout) return schema;
  const { confirm_timeout: _dropped, ...properties } = schema.properties; // eslint-disable-line @typescript-eslint/no-unused-vars
  return { ...schema, properties };
}

function requestArb(): fc.Arbitrary<Request> {
  const ops: Array<fc.Arbitrary<Request>> = [];
  for (const [template, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      // logging out would end the fuzzer's token: every later request would be a 401
      if (template === '/api/logout') continue;
      // an event stream never ends; test/api/events.test.ts covers its refusals
      if (op.responses?.['200']?.content?.['text/event-stream']) continue;
      const params = (op.parameters ?? []) as Json[];
      const pathArbs = params.filter((p) => p.in === 'path').map((p) => fc.tuple(fc.constant(p.name as string), word));
      const queryArbs = params.filter((p) => p.in === 'query').map((p) =>
        fc.option(fc.tuple(fc.constant(p.name as string), fc.oneof(fits(p.schema).map(String), word)), { nil: undefined }));
      const schema = withoutConfirmTimeout(template, op.requestBody?.content['application/json'].schema);
      ops.push(fc.tuple(fc.tuple(...pathArbs), fc.tuple(...queryArbs), bodyFor(method, schema)).map(([ps, qs, body]) => {
        let url = template;
        for (const [name, value] of ps) url = url.replace(`{${name}}`, encodeURIComponent(value));
        const q = new URLSearchParams(qs.filter((x): x is [string, string] => x !== undefined));
        const qText = q.toString();
        return { method: method.toUpperCase(), url: qText ? `${url}?${qText}` : url, body };
      }));
    }
  }
  return fc.oneof(...ops);
}

/** What a refused request must not change: the session, its candidate and the running version. */
async function state(): Promise<string> {
  const config = d.daemon.daemon.ctx.config;
  const info = await config.info();
  const cand = info.active ? await config.candidate() : null;
  return JSON.stringify({
    info: { ...info, expires_at: null }, // a change moves the expiry; a refused one must not, but it is time-based
    candidate: cand && { seq: cand.seq, doc: serializeDoc(cand.doc) },
    running: config.current().meta.version,
  });
}

beforeAll(async () => {
  doc = (await (await fetch(`${d.url}/api/openapi.json`)).json()) as Json;
  // the fuzzer works as its own admin so that deleting "admin" does not lock it out
  await ok(d.client.post('/api/users', { username: 'fuzzer', password: 'fuzzer-password-123', role: 'admin' }));
  fuzzer.url = d.url;
  await fuzzer.login('fuzzer', 'fuzzer-password-123');
  await ok(fuzzer.post('/api/config/begin'));
});

test(`${RUNS} requests generated from the document: no 5xx, every answer described, refused requests change nothing`, async () => {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(requestArb(), async (req) => {
      const before = await state();
      const r = await fuzzer.raw(req.method, req.url, req.body); // throws on an answer the document does not describe
      seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
      expect(r.status).toBeLessThan(500);
      if (r.status >= 400) {
        expect(r.body.code).toMatch(/^ERR_/);
        expect(await state()).toBe(before);
      }
    }),
    { numRuns: RUNS, endOnFailure: true, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
  );
  // the generator reaches both sides: accepted requests and refusals of several kinds
  expect(seen.get(200) ?? 0).toBeGreaterThan(RUNS / 20);
  expect([...seen.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(4);
}, 600_000);
