// A change is one operation on the candidate, exactly as the API received it. The journal
// of a session is a list of changes; replaying it on the base running version rebuilds the
// candidate on any instance. applyChange validates fully before it mutates anything, so a
// change either applies whole or throws a FwError and leaves the document untouched.
import type { ConfigDoc } from './types';
import { RESOURCES } from './resources';
import type { ChangeResult } from './resource';
import { FwError, isFwError } from '../errors';
import { cloneDoc, workingCopy } from './document';
import { loadDocument, type LoadMode } from './load';

export type ResourceKind =
  | 'address'
  | 'service'
  | 'address-group'
  | 'service-group'
  | 'dynamic-set'
  | 'schedule'
  | 'zone'
  | 'interface'
  | 'vlan'
  | 'dhcp'
  | 'route'
  | 'policy'
  | 'nat'
  | 'ha'
  | 'local-policy';

/** A change of one object: what a single create, update, delete or move request asks. */
export type ObjectChange =
  | { op: 'create'; kind: ResourceKind; body: unknown }
  | { op: 'update'; kind: ResourceKind; key: string; body: unknown }
  | { op: 'delete'; kind: ResourceKind; key: string }
  | { op: 'move'; kind: ResourceKind; key: string; body: unknown };

export type Change =
  | ObjectChange
  | { op: 'rollback'; version: number }
  /** a whole configuration document (PUT /api/config/candidate, load.ts) */
  | { op: 'load'; mode: LoadMode; config: unknown }
  /** object changes applied in order, all or none (POST /api/config/batch) */
  | { op: 'batch'; changes: ObjectChange[] };

export interface ApplyContext {
  /** For a rollback: the document of the version it loads. */
  versionDoc?: ConfigDoc;
  /** For a load: its result made beforehand from this very document (load.ts prepareLoad) */
  loaded?: ConfigDoc;
}

export function applyChange(doc: ConfigDoc, change: Change, ctx: ApplyContext = {}): ChangeResult {
  switch (change.op) {
    case 'rollback':
      return applyRollback(doc, ctx);
    case 'load':
      if (ctx.loaded) Object.assign(doc, ctx.loaded);
      else loadDocument(doc, change.config, change.mode);
      return {};
    case 'batch':
      return applyBatch(doc, change.changes);
    default:
      return applyObjectChange(doc, change);
  }
}

function applyObjectChange(doc: ConfigDoc, change: ObjectChange): ChangeResult {
  const ops = RESOURCES[change.kind];
  switch (change.op) {
    case 'create':
      if (ops.create) return ops.create(doc, change.body);
      break;
    case 'update':
      if (ops.update) return ops.update(doc, change.key, change.body);
      break;
    case 'delete':
      if (ops.remove) return ops.remove(doc, change.key);
      break;
    case 'move':
      if (ops.move) return ops.move(doc, change.key, change.body);
      break;
  }
  throw new FwError('ERR_NET_1009', `${change.op} is not supported on ${change.kind}`);
}

/**
 * Applies each change to a working copy, in order; the first refusal is answered as that
 * change's own error with details starting `operations[i]: `, and `doc` stays as it was.
 */
function applyBatch(doc: ConfigDoc, changes: ObjectChange[]): ChangeResult {
  const work = workingCopy(doc);
  const results: ChangeResult[] = [];
  changes.forEach((change, i) => {
    try {
      results.push(applyObjectChange(work, change));
    } catch (e) {
      if (!isFwError(e)) throw e;
      throw new FwError(e.code, `operations[${i}]: ${e.details || e.message}`, e.message, e.headers);
    }
  });
  Object.assign(doc, work);
  return { results };
}

/**
 * Replaces the candidate's content with an older version's. Id counters never go back, so
 * ids handed out since that version are not reused by later creates.
 */
function applyRollback(doc: ConfigDoc, ctx: ApplyContext): ChangeResult {
  if (!ctx.versionDoc) throw new FwError('ERR_NET_1003', 'version not found');
  const src = cloneDoc(ctx.versionDoc); // never share objects with an immutable version
  const counters = {
    policy: Math.max(doc.counters.policy, src.counters.policy),
    nat: Math.max(doc.counters.nat, src.counters.nat),
    route: Math.max(doc.counters.route, src.counters.route),
    // issue 41: only once either side has handed one out (absent otherwise, as before)
    ...(doc.counters.localPolicy !== undefined || src.counters.localPolicy !== undefined
      ? { localPolicy: Math.max(doc.counters.localPolicy ?? 0, src.counters.localPolicy ?? 0) }
      : {}),
  };
  Object.assign(doc, src, { counters });
  return {};
}
