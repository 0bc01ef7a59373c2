// Checks answers against the daemon's own OpenAPI document (GET /api/openapi.json): the
// status must be one the operation lists, the media type the one listed, and the body must
// match the listed schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses). A request that
// matches no operation must get the document's Error body with 404, or 405 when the path
// exists with other methods. Every answer carries X-Request-Id. Client (daemon.ts) runs this
// on every answer it receives, so every API test checks the document as a side effect.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Template {
  path: string; // "/api/addresses/{name}"
  regex: RegExp;
  literals: number; // segments without a parameter: the more, the better the match
}

export class OpenApiChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly templates: Template[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: Json) {
    addFormats(this.ajv);
    this.templates = Object.keys(doc.paths).map((p) => {
      const segments = p.split('/').filter(Boolean);
      const regex = new RegExp(`^/${segments.map((s) => (s.startsWith('{') ? '[^/]*' : escape(s))).join('/')}/?$`);
      return { path: p, regex, literals: segments.filter((s) => !s.startsWith('{')).length };
    });
  }

  /** The document's path template for a request path, or undefined. */
  templateOf(path: string): string | undefined {
    let best: Template | undefined;
    for (const t of this.templates) if (t.regex.test(path) && (!best || t.literals > best.literals)) best = t;
    return best?.path;
  }

  /** Throws an Error that says what the document does not describe about this answer. */
  check(method: string, url: string, status: number, contentType: string | null, requestId: string | null, text: string): void {
    const path = new URL(url, 'http://x').pathname; // as the client sent it: "." and ".." segments resolved
    const where = `${method} ${url} -> ${status}`;
    if (!requestId) throw new Error(`${where}: no X-Request-Id header`);
    const template = this.templateOf(path);
    const m = method === 'HEAD' ? 'get' : method.toLowerCase();
    const op: Json | undefined = template ? this.doc.paths[template][m] : undefined;
    if (!op) {
      const expected = template ? 405 : 404;
      if (status !== expected) throw new Error(`${where}: the document has no such operation; expected ${expected}`);
      this.checkBody(where, 'Error', this.doc.components.schemas.Error, 'application/json', contentType, text);
      return;
    }
    let response: Json | undefined = op.responses[String(status)];
    if (!response) throw new Error(`${where}: status ${status} is not listed for ${method} ${template} (listed: ${Object.keys(op.responses).join(', ')})`);
    let key = `${m} ${template} ${status}`;
    if (response.$ref) {
      key = response.$ref;
      response = this.doc.components.responses[response.$ref.split('/').pop()];
    }
    if (!response!.content) {
      if (text !== '') throw new Error(`${where}: the document lists no body, got ${text.slice(0, 200)}`);
      return;
    }
    if (method === 'HEAD') return; // no body to check
    // the media type the answer has, when the document lists several (JSON or YAML export)
    const listed = Object.entries(response!.content as Json);
    const [mediaType, media] = listed.find(([t]) => contentType?.startsWith(t)) ?? listed[0];
    this.checkBody(where, key, media.schema, mediaType, contentType, text);
  }

  private checkBody(where: string, key: string, schema: Json, mediaType: string, contentType: string | null, text: string): void {
    if (!contentType || !contentType.startsWith(mediaType)) {
      throw new Error(`${where}: Content-Type ${contentType} is not the document's ${mediaType}`);
    }
    if (mediaType !== 'application/json') {
      if (schema.type === 'string' && typeof text !== 'string') throw new Error(`${where}: not text`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
    }
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    if (!validate(body)) {
      const e = validate.errors?.[0];
      throw new Error(`${where}: the body does not match the document (${key}): ${e?.instancePath || '/'} ${e?.message}: ${text.slice(0, 300)}`);
    }
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const checkers = new Map<string, Promise<OpenApiChecker>>();

/** The checker of the daemon at `baseUrl`, from its document (fetched once per daemon). */
export function checkerFor(baseUrl: string): Promise<OpenApiChecker> {
  let c = checkers.get(baseUrl);
  if (!c) {
    c = fetch(`${baseUrl}/api/openapi.json`).then(async (r) => {
      if (r.status !== 200) throw new Error(`GET /api/openapi.json: ${r.status}`);
      return new OpenApiChecker((await r.json()) as Json);
    });
    checkers.set(baseUrl, c);
  }
  return c;
}
