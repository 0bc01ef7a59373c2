// Automation at scale: the whole configuration exported as one document (JSON or YAML), loaded
// back into the candidate in one change (replace or merge), and atomic batches of the single
// object requests. Each load or batch is one journal entry of the session (src/config/load.ts,
// src/config/changes.ts), so it applies whole or not at all, on every store.
import { Type } from '@sinclair/typebox';
import YAML from 'yaml';
import { FwError, isFwError } from '../../errors';
import { exportDoc, ExportModel } from '../../config/export';
import { LOAD_MODES, type LoadMode } from '../../config/load';
import { planDocument } from '../../config/plan';
import type { ObjectChange } from '../../config/changes';
import { shapeChecker } from '../../config/validate';
import { oneOf } from '../../config/render/objects';
import type { AppContext } from '../context';
import { configQuery } from '../crud';
import type { Reply, Req, RouteDef } from '../http';
import { Router } from '../router';
import { bodyType, mediaType, YAML_TYPE, YAML_TYPES } from '../media-type';
import { configQueryDoc } from '../schemas';
import { DetailedDiffReply, DiffReply } from './config';
import type { ParsePool } from '../../workers/parse-pool';

/** At most this many operations in one batch. */
export const MAX_BATCH = 10_000;

const BatchOperation = Type.Object({
  method: oneOf(['POST', 'PUT', 'DELETE'] as const),
  path: Type.String({ description: 'the path of the single request, e.g. /api/addresses or /api/policies/7/move' }),
  body: Type.Optional(Type.Unknown({ description: 'the body of the single request' })),
}, { additionalProperties: false });
const BatchBody = Type.Object({
  operations: Type.Array(BatchOperation, { minItems: 1, maxItems: MAX_BATCH }),
}, { additionalProperties: false });
const batchShape = shapeChecker(BatchBody);
const BatchReply = Type.Object({
  message: Type.String(),
  results: Type.Array(Type.Object({
    message: Type.String({ description: 'the single request\'s success message' }),
    id: Type.Optional(Type.String({ description: 'the id a create of a policy, NAT rule or route handed out' })),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

const formatQuery = {
  format: { schema: oneOf(['json', 'yaml'] as const), description: 'yaml: the same document as YAML (as with Accept: application/yaml)' },
};
const modeQuery = {
  mode: { schema: oneOf(LOAD_MODES), description: 'replace (default): the candidate becomes the document; merge: add and update, delete nothing' },
};

/** A query parameter that is one of `allowed` (else 400 ERR_NET_1005), or null when absent. */
function queryOneOf<T extends string>(req: Req, name: string, allowed: readonly T[]): T | null {
  const v = req.query.get(name);
  if (v === null || (allowed as readonly string[]).includes(v)) return v as T | null;
  throw new FwError('ERR_NET_1005', `query "${name}": "${v}" is not one of ${allowed.join(', ')}`);
}

/** YAML when ?format=yaml, or when Accept names YAML and not JSON before it. */
function wantsYaml(req: Req): boolean {
  const format = queryOneOf(req, 'format', ['json', 'yaml'] as const);
  if (format !== null) return format === 'yaml';
  const accepted = req.headers.accept.split(',').map(mediaType);
  const yaml = accepted.findIndex((t) => YAML_TYPES.has(t));
  const json = accepted.indexOf('application/json');
  return yaml >= 0 && (json < 0 || yaml < json);
}

function yamlReply(text: string): Reply {
  return { body: undefined, json: text, headers: { 'Content-Type': YAML_TYPE } };
}

function toYaml(doc: unknown): string {
  return YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
}

/** The YAML export of each running version still served (written once: seconds at 20,000 policies). */
const runningYaml = new WeakMap<object, string>();

/**
 * A loaded document as JSON values: from YAML when its Content-Type says so (in the parse
 * thread, src/workers/parse-pool.ts, brought to JSON values: what the journal stores, so
 * replaying the journal loads exactly what was checked), else from JSON (a large body in the
 * JSON parse thread, joined in slices: issue 38).
 */
async function parseDocument(req: Req, parsePool: ParsePool): Promise<unknown> {
  const raw = req.raw;
  if (!raw || raw.length === 0) throw new FwError('ERR_NET_1004', 'a configuration document is required');
  if (bodyType(req.headers.contentType, true) === 'json') return parsePool.json(raw);
  return parsePool.yaml(raw);
}

/** The routes a batch may contain: every route that changes one object, matched as requests are. */
function changeRouter(routes: readonly RouteDef[]): Router {
  const router = new Router();
  for (const r of routes) if (r.change) router.add(r);
  return router;
}

/** The object changes of a batch's operations; a bad one is its own error, placed. */
function batchChanges(router: Router, ops: ReadonlyArray<{ method: string; path: string; body?: unknown }>): { changes: ObjectChange[]; messages: string[] } {
  const changes: ObjectChange[] = [];
  const messages: string[] = [];
  ops.forEach((op, i) => {
    try {
      if (op.path.includes('?')) throw new FwError('ERR_NET_1004', `"${op.path}": an operation's path has no query`);
      const m = router.match(op.method, op.path);
      if (m.kind === 'not-found') throw new FwError('ERR_NET_1011', `${op.method} ${op.path} is not a change of one object`);
      if (m.kind === 'method-not-allowed') throw new FwError('ERR_NET_1009', `${op.method} is not allowed on ${op.path}`);
      changes.push(m.def.change!.build(m.params, op.body));
      messages.push(m.def.change!.message);
    } catch (e) {
      if (isFwError(e)) throw new FwError(e.code, `operations[${i}]: ${e.details}`, e.message, e.headers);
      throw e;
    }
  });
  return { changes, messages };
}

export function automationRoutes(ctx: AppContext, routes: () => readonly RouteDef[]): RouteDef[] {
  const cfg = ctx.config;
  const maxBody = ctx.settings.maxLoadBodyBytes;
  let router: Router | undefined; // the route table is fixed once the server runs
  return [
    { method: 'GET', pattern: '/api/config/export', body: 'none', permission: 'read', noStore: true,
      doc: { tag: 'config', summary: 'The whole configuration as one document (running, or the candidate)', response: ExportModel, yaml: true,
        query: { ...configQueryDoc, ...formatQuery }, errors: [409] },
      handler: async (req) => {
        const yaml = wantsYaml(req);
        if (configQuery(req) === 'candidate') {
          const { doc, baseVersion } = await cfg.candidate();
          const x = exportDoc(doc, baseVersion);
          return yaml ? yamlReply(toYaml(x)) : { body: x };
        }
        const running = cfg.current();
        // built once per version and form: a running version never changes
        if (!yaml) return { ...running.cachedAnswer('export', () => exportDoc(running.doc, running.meta.version)), headers: {} };
        let text = runningYaml.get(running);
        if (text === undefined) runningYaml.set(running, (text = toYaml(exportDoc(running.doc, running.meta.version))));
        return yamlReply(text);
      } },
    { method: 'PUT', pattern: '/api/config/candidate', body: 'raw', maxBody, permission: 'configure',
      doc: { tag: 'config', summary: 'Load a whole configuration document into the candidate (one change)', response: DiffReply, body: ExportModel, yaml: true,
        query: modeQuery, errors: [404, 409] },
      handler: async (req) => {
        const mode: LoadMode = queryOneOf(req, 'mode', LOAD_MODES) ?? 'replace';
        const config = await parseDocument(req, ctx.parsePool);
        await cfg.change(req.user.username, { op: 'load', mode, config });
        await ctx.audit.record(req, 'config.load', `mode ${mode}`, { mode });
        return { body: await cfg.diff() };
      } },
    { method: 'POST', pattern: '/api/config/plan', body: 'raw', maxBody, permission: 'read',
      doc: { tag: 'config', summary: 'What a document would change against the running configuration: no session, nothing stored', response: DetailedDiffReply,
        body: ExportModel, yaml: true, query: modeQuery, errors: [404] },
      handler: async (req) => {
        const mode: LoadMode = queryOneOf(req, 'mode', LOAD_MODES) ?? 'replace';
        const config = await parseDocument(req, ctx.parsePool);
        await cfg.refreshRunning();
        const running = cfg.current();
        return { body: await planDocument(running.doc, running.meta.version, config, mode, ctx.settings.maxExpansion) };
      } },
    { method: 'POST', pattern: '/api/config/batch', maxBody, permission: 'configure',
      doc: { tag: 'config', summary: `Up to ${MAX_BATCH} object changes, all applied in order or none (one change)`, response: BatchReply, body: BatchBody, errors: [404, 405, 409] },
      handler: async (req) => {
        const b = batchShape(req.body);
        router ??= changeRouter(routes());
        const { changes, messages } = batchChanges(router, b.operations);
        const r = await cfg.change(req.user.username, { op: 'batch', changes });
        const results = (r.results ?? []).map((x, i) => (x.id === undefined ? { message: messages[i] } : { message: messages[i], id: String(x.id) }));
        await ctx.audit.record(req, 'config.batch', `${changes.length} operations`, b.operations.map((o) => `${o.method} ${o.path}`));
        return { body: { message: 'batch applied to candidate', results } };
      } },
  ];
}
