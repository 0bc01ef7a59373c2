// /api/dynamic-sets (issue 40, docs/dynamic-objects.md): the committed sets, a resource like
// every other (session, commit); and their entries, changed without a session by operators,
// admins and feeders (the `feed` permission): POST adds or refreshes, DELETE removes, GET
// lists. Entries are audited per request (one entry for the whole list), never per address.
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context';
import { crudRoutes, namedReads } from '../crud';
import { FwError } from '../../errors';
import { oneOf } from '../../config/render/objects';
import type { DynamicSetObj } from '../../config/types';
import type { Req, RouteDef } from '../http';
import { AddBody, RemoveBody, entriesToAdd, prefixesToRemove } from '../../config/dynamic-entries';
import type { DynamicSets } from '../../dynamic/service';
import type { DynamicEntry } from '../../dynamic/entry-store';

export const DynamicSetModel = Type.Object({
  name: Type.String(),
  family: oneOf(['ipv4', 'ipv6'] as const),
  'max-entries': Type.Integer(),
  'default-ttl': Type.Integer({ description: 'seconds; 0: entries stay until deleted' }),
}, { additionalProperties: false });

export function renderDynamicSet(d: DynamicSetObj) {
  return { name: d.name, family: d.family, 'max-entries': d.maxEntries, 'default-ttl': d.defaultTtl };
}

const EntryModel = Type.Object({
  ip: Type.String({ description: 'canonical prefix' }),
  expiresAt: Type.Union([Type.String({ description: 'ISO time' }), Type.Null()], { description: 'null: until deleted' }),
}, { additionalProperties: false });
const EntriesReply = Type.Object({
  name: Type.String(), family: oneOf(['ipv4', 'ipv6'] as const), 'max-entries': Type.Integer(), size: Type.Integer(),
  entries: Type.Array(EntryModel),
}, { additionalProperties: false });
const ChangeReply = Type.Object({
  message: Type.String(), added: Type.Integer(), refreshed: Type.Integer(), removed: Type.Integer(), size: Type.Integer(),
}, { additionalProperties: false });

/** Audit payloads list at most this many prefixes (the count is always there). */
const AUDIT_LIST = 100;

function runningSet(dyn: DynamicSets, req: Req): DynamicSetObj {
  const set = dyn.set(req.params.name);
  if (!set) throw new FwError('ERR_NET_1003', `dynamic set "${req.params.name}" is not in the running configuration`);
  return set;
}

function entryRoutes(ctx: AppContext, dyn: DynamicSets): RouteDef[] {
  const pattern = '/api/dynamic-sets/:name/entries';
  const tag = 'dynamic-sets';
  return [
    { method: 'GET', pattern, body: 'none', permission: ['read', 'feed'], doc: { tag, summary: 'The live entries of a running dynamic set', response: EntriesReply }, handler: async (req) => {
      const set = runningSet(dyn, req);
      const entries = await dyn.store.list(set.name, Date.now());
      return { body: {
        name: set.name, family: set.family, 'max-entries': set.maxEntries, size: entries.length,
        entries: entries.map((e) => ({ ip: e.ip, expiresAt: e.expiresAt === 0 ? null : new Date(e.expiresAt).toISOString() })),
      } };
    } },
    { method: 'POST', pattern, permission: 'feed', doc: { tag, summary: 'Adds or refreshes entries (no session; in the kernel within a second)', body: AddBody, response: ChangeReply }, handler: async (req) => {
      const set = runningSet(dyn, req);
      const now = Date.now();
      const existing = await dyn.store.list(set.name, now);
      const { entries, ttl } = entriesToAdd(set, req.body, existing, now);
      withinTotal(dyn, existing, entries, ctx.settings.dynamicMaxEntries);
      const r = await dyn.store.add(set.name, entries, set.maxEntries, now);
      await dyn.reload(set.name);
      dyn.lists?.rebalance(); // the lists give way to the sets' new entries (issue 40, capacity)
      const ips = entries.map((e) => e.ip);
      await ctx.audit.record(req, 'dynamic-set.entries-added', `${entries.length} entries to dynamic set ${set.name} (ttl ${ttl} s): ${r.added} new, ${r.refreshed} refreshed`,
        { set: set.name, ttl, count: ips.length, ips: ips.slice(0, AUDIT_LIST) });
      return { body: { message: 'entries added', added: r.added, refreshed: r.refreshed, removed: 0, size: r.size } };
    } },
    { method: 'DELETE', pattern, permission: 'feed', doc: { tag, summary: 'Removes entries (no session)', body: RemoveBody, response: ChangeReply }, handler: async (req) => {
      const set = runningSet(dyn, req);
      const ips = prefixesToRemove(set, req.body);
      const removed = await dyn.store.remove(set.name, ips);
      await dyn.reload(set.name);
      const size = (await dyn.store.list(set.name, Date.now())).length;
      await ctx.audit.record(req, 'dynamic-set.entries-removed', `${removed} of ${ips.length} entries removed from dynamic set ${set.name}`,
        { set: set.name, count: ips.length, removed, ips: ips.slice(0, AUDIT_LIST) });
      return { body: { message: 'entries removed', added: 0, refreshed: 0, removed, size } };
    } },
  ];
}

/**
 * FW_DYNAMIC_MAX_ENTRIES (issue 40): the sets' live entries alone stay within it, a POST past
 * it is refused whole (the lists share what the sets leave). The count is this instance's
 * (every instance re-reads a set at each change notice).
 */
function withinTotal(dyn: DynamicSets, existing: readonly DynamicEntry[], entries: readonly DynamicEntry[], max: number): void {
  const have = new Set(existing.map((e) => e.ip));
  const fresh = entries.filter((e) => !have.has(e.ip)).length;
  const total = dyn.totalEntries();
  if (total + fresh > max) throw new FwError('ERR_NET_1008', `FW_DYNAMIC_MAX_ENTRIES: the dynamic sets hold ${total} entries of at most ${max} over every set and list, and ${fresh} would be new`);
}

export function dynamicSetRoutes(ctx: AppContext): RouteDef[] {
  const crud = crudRoutes(ctx, {
    kind: 'dynamic-set',
    path: '/api/dynamic-sets',
    param: 'name',
    noun: 'dynamic set',
    messages: {
      create: 'dynamic set created in candidate',
      update: 'dynamic set updated in candidate',
      remove: 'dynamic set deleted from candidate',
    },
    ...namedReads((doc) => doc.dynamicSets, (_doc, o) => renderDynamicSet(o), DynamicSetModel),
  });
  return ctx.dynamic ? [...crud, ...entryRoutes(ctx, ctx.dynamic)] : crud;
}
