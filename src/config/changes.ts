// A change is one operation on the candidate, exactly as the API received it. The journal
// of a session is a list of changes; replaying it on the base running version rebuilds the
// candidate on any instance. applyChange validates fully before it mutates anything, so a
// change either applies whole or throws a FwError and leaves the document untouched.
import type { ConfigDoc } from './types';
import { RESOURCES } from './resources';
import type { ChangeResult } from './resource';
import { FwError } from '../errors';
import { cloneDoc } from './document';

export type ResourceKind =
  | 'address'
  | 'service'
  | 'zone'
  | 'interface'
  | 'vlan'
  | 'dhcp'
  | 'route'
  | 'policy'
  | 'nat';

export type Change =
  | { op: 'create'; kind: ResourceKind; body: unknown }
  | { op: 'update'; kind: ResourceKind; key: string; body: unknown }
  | { op: 'delete'; kind: ResourceKind; key: string }
  | { op: 'move'; kind: ResourceKind; key: string; body: unknown }
  | { op: 'rollback'; version: number };

export interface ApplyContext {
  /** For a rollback: the document of the version it loads. */
  versionDoc?: ConfigDoc;
}

export function applyChange(doc: ConfigDoc, change: Change, ctx: ApplyContext = {}): ChangeResult {
  if (change.op === 'rollback') return applyRollback(doc, ctx);
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
  };
  Object.assign(doc, src, { counters });
  return {};
}
