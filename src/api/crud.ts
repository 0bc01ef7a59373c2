// The routes every configuration resource has, built from one description: list and single
// reads (running, or the candidate with ?config=candidate), create, update, delete, and move
// for ordered rules. A resource module of src/api/routes only says what differs.
import { naturalCompare } from '../config/natural-order';
import { Type, type TSchema } from '@sinclair/typebox';
import type { ResourceKind } from '../config/changes';
import { RESOURCES } from '../config/resources';
import type { ConfigDoc } from '../config/types';
import { FwError } from '../errors';
import type { AppContext } from './context';
import { message, type ObjectChangeRoute, type QueryDoc, type Reply, type Req, type RouteDef } from './http';
import { configQueryDoc, MessageReply } from './schemas';
import { listReply } from './list-reply';
import { EncodedList } from '../session/encoded-list';

export interface CrudSpec {
  kind: ResourceKind;
  path: string; // "/api/addresses"
  param: string; // path parameter of one object: "name", "id", "interface"
  /** exact success messages; an absent one means the operation does not exist */
  messages: { create?: string; update?: string; remove?: string; move?: string };
  /** The list read model. `variant` is what listVariant returned. */
  list(doc: ConfigDoc, variant: string): unknown;
  /**
   * The list as rows and each row's read model (what `list` answers, as an array): long lists
   * (rule tables) are then encoded and streamed a slice at a time (list-reply.ts).
   */
  listRows?: { rows(doc: ConfigDoc, variant: string): readonly unknown[]; render(doc: ConfigDoc, row: never): unknown };
  /** Checks the list's query filters and names the variant (part of the cache key). */
  listVariant?(query: URLSearchParams): string;
  /** False for variants too many to cache (free-text filters): answered afresh each time. */
  cachedVariant?(variant: string): boolean;
  /**
   * Run-time state the read model shows (issue 40: FQDN resolutions): a tag that changes with
   * it, or null when the version has none. With a tag the answer is not cached per version and
   * its ETag carries the tag.
   */
  runtimeTag?(doc: ConfigDoc): string | null;
  /** One object's read model, or undefined when it does not exist. */
  one(doc: ConfigDoc, key: string): unknown;
  /** Checks the path key before lookup (ids: 400 ERR_NET_1002). */
  checkKey?(key: string): void;
  /** "name" of the object in not-found details */
  noun: string;
  /** the schema of one object's read model, and of the list */
  model: TSchema;
  listModel: TSchema;
  /** the list's query filters (listVariant reads them), for the OpenAPI document */
  listQuery?: Record<string, QueryDoc>;
}

/**
 * The reads of a resource kept in a name-keyed table of the document: the list sorted by
 * name, as an array of read models or (listAs 'object') an object keyed by name; one object's
 * read model, or undefined when it does not exist.
 */
export function namedReads<T>(
  table: (doc: ConfigDoc) => ReadonlyMap<string, T>,
  render: (doc: ConfigDoc, o: T) => unknown,
  model: TSchema,
  listAs: 'array' | 'object' = 'array',
): Pick<CrudSpec, 'list' | 'one' | 'model' | 'listModel'> {
  return {
    model,
    listModel: listAs === 'array' ? Type.Array(model) : Type.Record(Type.String(), model),
    list: (doc) => {
      const t = table(doc);
      const names = [...t.keys()].sort(naturalCompare); // h-ext-12 before h-ext-102
      if (listAs === 'array') return names.map((name) => render(doc, t.get(name)!));
      const out: Record<string, unknown> = {};
      for (const name of names) out[name] = render(doc, t.get(name)!);
      return out;
    },
    one: (doc, key) => {
      const o = table(doc).get(key);
      return o && render(doc, o);
    },
  };
}

type Running = ReturnType<AppContext['config']['current']>;

/** The version's ETag with the run-time state's tag in it, or null when the read shows none. */
function runtimeEtag(spec: CrudSpec, running: Running): string | null {
  const tag = spec.runtimeTag?.(running.doc);
  return tag ? running.etag.replace(/"$/, `-${tag}"`) : null;
}

/**
 * The document a read is answered from: the running version (immutable, so its answers are
 * cached and carry an ETag), or the candidate with ?config=candidate (neither).
 */
export async function readSource(ctx: AppContext, req: Req): Promise<{ doc: ConfigDoc; running: Running | null }> {
  if (configQuery(req) === 'candidate') return { doc: (await ctx.config.candidate()).doc, running: null };
  const running = ctx.config.current();
  return { doc: running.doc, running };
}

/** Which configuration `?config=` names: running (the default) or candidate; else 400 ERR_NET_1005. */
export function configQuery(req: Req): 'running' | 'candidate' {
  const which = req.query.get('config');
  if (which === null || which === 'running') return 'running';
  if (which === 'candidate') return 'candidate';
  throw new FwError('ERR_NET_1005', `query "config": "${which}" is not one of running, candidate`);
}

/** 304 when the client already holds this version's answer (If-None-Match), else null. */
function notModified(req: Req, etag: string): Reply | null {
  const given = req.headers.ifNoneMatch;
  if (given === '') return null;
  const hit = given.trim() === '*' || given.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
  return hit ? { status: 304, body: undefined, json: '', headers: { ETag: etag } } : null;
}

export function crudRoutes(ctx: AppContext, spec: CrudSpec): RouteDef[] {
  const item = `${spec.path}/:${spec.param}`;
  const user = (req: Req) => req.user.username;
  const bodies = RESOURCES[spec.kind].bodies;
  const tag = spec.path.split('/').pop()!;
  // a change is refused without the caller's session (409); the candidate read likewise
  const change = (summary: string, body?: TSchema) => ({ tag, summary, response: MessageReply, body, errors: [409] });
  const read = (summary: string, response: TSchema, query: Record<string, QueryDoc> = {}) =>
    ({ tag, summary, response, query: { ...configQueryDoc, ...query }, etag: true, errors: [409] });
  const audited = (req: Req, op: string, key: string, payload: unknown) =>
    ctx.audit.record(req, `change.${op}`, `${spec.kind} ${key}`, payload);
  const routes: RouteDef[] = [
    {
      method: 'GET',
      pattern: spec.path,
      body: 'none',
      permission: 'read',
      doc: read(`List ${tag}`, spec.listModel, spec.listQuery),
      handler: (req) => {
        const variant = spec.listVariant ? spec.listVariant(req.query) : '';
        const rows = spec.listRows;
        // the candidate changes under a later turn of the event loop: its list is encoded whole first
        if (configQuery(req) === 'candidate') {
          return ctx.config.candidate().then(({ doc }) => (rows
            ? listReply(new EncodedList(rows.rows(doc, variant), (row) => rows.render(doc, row as never)).encodeAll(), req.log)
            : { body: spec.list(doc, variant) }));
        }
        const running = ctx.config.current();
        const runtime = runtimeEtag(spec, running);
        if (runtime) return notModified(req, runtime) ?? { body: spec.list(running.doc, variant), headers: { ETag: runtime } };
        if (spec.cachedVariant?.(variant) === false) return notModified(req, running.etag) ?? { body: spec.list(running.doc, variant), headers: { ETag: running.etag } };
        const hit = notModified(req, running.etag);
        if (hit) return hit;
        // the running version's answer is its cached encoding: given in the same call, or streamed
        if (rows) return listReply(running.encodedList(`${spec.kind}:${variant}`, () => rows.rows(running.doc, variant), (row) => rows.render(running.doc, row as never)), req.log, { ETag: running.etag });
        return running.cachedAnswer(`${spec.kind}:${variant}`, () => spec.list(running.doc, variant));
      },
    },
    {
      method: 'GET',
      pattern: item,
      body: 'none',
      permission: 'read',
      doc: read(`Read one ${spec.noun}`, spec.model),
      handler: async (req) => {
        const key = req.params[spec.param];
        spec.checkKey?.(key);
        const { doc, running } = await readSource(ctx, req);
        const model = spec.one(doc, key);
        if (model === undefined) throw new FwError('ERR_NET_1003', `${spec.noun} "${key}" not found`);
        if (!running) return { body: model };
        const etag = runtimeEtag(spec, running) ?? running.etag;
        return notModified(req, etag) ?? { body: model, headers: { ETag: etag } };
      },
    },
  ];
  const { create, update, remove, move } = spec.messages;
  const key = (params: Record<string, string>) => {
    spec.checkKey?.(params[spec.param]);
    return params[spec.param];
  };
  /** " to position 3 of 20" for a rule of an ordered table just moved or created (the audit says where it went). */
  const placeOf = async (kind: string, id: string): Promise<string> => {
    if (kind !== 'policy' && kind !== 'nat') return '';
    const { doc } = await ctx.config.candidate();
    const rules = kind === 'policy' ? doc.policies : doc.nat;
    const at = rules.findIndex((r) => String(r.id) === id);
    return at < 0 ? '' : ` to position ${at + 1} of ${rules.length}`;
  };
  /** A changing route: its change (what a batch runs too), applied, audited and answered. */
  const changing = (method: 'POST' | 'PUT' | 'DELETE', pattern: string, summary: string, msg: string, build: ObjectChangeRoute['build'], body?: TSchema): RouteDef => ({
    method,
    pattern,
    ...(body ? {} : { body: 'none' as const }),
    permission: 'configure',
    doc: change(summary, body),
    change: { build, message: msg },
    handler: async (req) => {
      const c = build(req.params, req.body);
      const r = await ctx.config.change(user(req), c);
      // the object's key: the path's, the id handed out, or the name the (accepted) body gave
      const objectKey = 'key' in c ? c.key : r.id !== undefined ? String(r.id) : String((req.body as Record<string, unknown>)[spec.param]);
      const where = c.op === 'move' || (c.op === 'create' && r.id !== undefined) ? await placeOf(spec.kind, objectKey) : '';
      await audited(req, c.op, objectKey + where, 'body' in c ? c.body : undefined);
      return message(msg, r.id !== undefined ? { id: String(r.id) } : {});
    },
  });
  if (create) {
    routes.push(changing('POST', spec.path, `Create a ${spec.noun} in the candidate`, create, (_p, body) => ({ op: 'create', kind: spec.kind, body }), bodies.create));
  }
  if (update) {
    routes.push(changing('PUT', item, `Update a ${spec.noun} in the candidate`, update, (p, body) => ({ op: 'update', kind: spec.kind, key: key(p), body }), bodies.update));
  }
  if (remove) {
    routes.push(changing('DELETE', item, `Delete a ${spec.noun} from the candidate`, remove, (p) => ({ op: 'delete', kind: spec.kind, key: key(p) })));
  }
  if (move) {
    routes.push(changing('POST', `${item}/move`, `Move a ${spec.noun} in the candidate's order`, move, (p, body) => ({ op: 'move', kind: spec.kind, key: key(p), body }), bodies.move));
  }
  return routes;
}
