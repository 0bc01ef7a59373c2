// The routes every configuration resource has, built from one description: list and single
// reads (running, or the candidate with ?config=candidate), create, update, delete, and move
// for ordered rules. A resource module of src/api/routes only says what differs.
import type { ResourceKind } from '../config/changes';
import type { ConfigDoc } from '../config/types';
import { FwError } from '../errors';
import type { AppContext } from './context';
import { message, type Req, type RouteDef } from './http';

export interface CrudSpec {
  kind: ResourceKind;
  path: string; // "/api/addresses"
  param: string; // path parameter of one object: "name", "id", "interface"
  /** exact success messages; an absent one means the operation does not exist */
  messages: { create?: string; update?: string; remove?: string; move?: string };
  /** The list read model. `variant` is what listVariant returned. */
  list(doc: ConfigDoc, variant: string): unknown;
  /** Checks the list's query filters and names the variant (part of the cache key). */
  listVariant?(query: URLSearchParams): string;
  /** One object's read model, or undefined when it does not exist. */
  one(doc: ConfigDoc, key: string): unknown;
  /** Checks the path key before lookup (ids: 400 ERR_NET_1002). */
  checkKey?(key: string): void;
  /** "name" of the object in not-found details */
  noun: string;
}

/**
 * The reads of a resource kept in a name-keyed table of the document: the list sorted by
 * name, as an array of read models or (listAs 'object') an object keyed by name; one object's
 * read model, or undefined when it does not exist.
 */
export function namedReads<T>(
  table: (doc: ConfigDoc) => ReadonlyMap<string, T>,
  render: (doc: ConfigDoc, o: T) => unknown,
  listAs: 'array' | 'object' = 'array',
): Pick<CrudSpec, 'list' | 'one'> {
  return {
    list: (doc) => {
      const t = table(doc);
      const names = [...t.keys()].sort();
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

/** The document a read is answered from: running, or the candidate with ?config=candidate. */
export async function readSource(ctx: AppContext, req: Req): Promise<{ doc: ConfigDoc; cache: boolean }> {
  const which = req.query.get('config');
  if (which === null || which === 'running') return { doc: ctx.config.current().doc, cache: true };
  if (which === 'candidate') return { doc: (await ctx.config.candidate()).doc, cache: false };
  throw new FwError('ERR_NET_1005', `query "config": "${which}" is not one of running, candidate`);
}

export function crudRoutes(ctx: AppContext, spec: CrudSpec): RouteDef[] {
  const item = `${spec.path}/:${spec.param}`;
  const user = (req: Req) => req.user.username;
  const routes: RouteDef[] = [
    {
      method: 'GET',
      pattern: spec.path,
      body: 'none',
      handler: async (req) => {
        const variant = spec.listVariant ? spec.listVariant(req.query) : '';
        const src = await readSource(ctx, req);
        if (!src.cache) return { body: spec.list(src.doc, variant) };
        const running = ctx.config.current();
        return { body: undefined, json: running.cachedJson(`${spec.kind}:${variant}`, () => spec.list(running.doc, variant)) };
      },
    },
    {
      method: 'GET',
      pattern: item,
      body: 'none',
      handler: async (req) => {
        const key = req.params[spec.param];
        spec.checkKey?.(key);
        const { doc } = await readSource(ctx, req);
        const model = spec.one(doc, key);
        if (model === undefined) throw new FwError('ERR_NET_1003', `${spec.noun} "${key}" not found`);
        return { body: model };
      },
    },
  ];
  const { create, update, remove, move } = spec.messages;
  if (create) {
    routes.push({
      method: 'POST',
      pattern: spec.path,
      handler: async (req) => {
        const r = await ctx.config.change(user(req), { op: 'create', kind: spec.kind, body: req.body });
        return message(create, r.id !== undefined ? { id: String(r.id) } : {});
      },
    });
  }
  if (update) {
    routes.push({
      method: 'PUT',
      pattern: item,
      handler: async (req) => {
        spec.checkKey?.(req.params[spec.param]);
        await ctx.config.change(user(req), { op: 'update', kind: spec.kind, key: req.params[spec.param], body: req.body });
        return message(update);
      },
    });
  }
  if (remove) {
    routes.push({
      method: 'DELETE',
      pattern: item,
      body: 'none',
      handler: async (req) => {
        spec.checkKey?.(req.params[spec.param]);
        await ctx.config.change(user(req), { op: 'delete', kind: spec.kind, key: req.params[spec.param] });
        return message(remove);
      },
    });
  }
  if (move) {
    routes.push({
      method: 'POST',
      pattern: `${item}/move`,
      handler: async (req) => {
        spec.checkKey?.(req.params[spec.param]);
        await ctx.config.change(user(req), { op: 'move', kind: spec.kind, key: req.params[spec.param], body: req.body });
        return message(move);
      },
    });
  }
  return routes;
}
