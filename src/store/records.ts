// Record shapes and rules both stores keep alike, defined once: the embedded store's
// TypeScript and the Redis store's Lua scripts (which receive these records as arguments)
// start from the same values. The store contract (test/store/contract.ts) checks the rest.
import type { SerializedDoc } from '../config/document';
import type { VersionMeta, VersionRecord } from './types';

/** What a store keeps when not told otherwise (FW_VERSIONS_KEEP, FW_AUDIT_KEEP,
 * FW_AUDIT_LOGIN_FAILURES_KEEP; 0: all). */
export const RETENTION_DEFAULTS = { versionsKeep: 100, auditKeep: 100_000, auditLoginFailuresKeep: 10_000 } as const;

/** Version 0, written once by a new store: the initial document. */
export function initialVersion(doc: SerializedDoc): VersionRecord {
  return { version: 0, author: 'system', time: Date.now(), description: 'initial configuration', summary: '', doc };
}

/** A version's meta as listed and kept in the history: its fields in one order, confirmBy only when set. */
export function metaOf(r: VersionMeta): VersionMeta {
  const meta: VersionMeta = { version: r.version, author: r.author, time: r.time, description: r.description, summary: r.summary };
  if (r.confirmBy !== undefined) meta.confirmBy = r.confirmBy;
  return meta;
}

/** An expiry in unix ms; a value that can only be unix seconds (before 1973 in ms) is scaled. */
export function expiryMs(t: number): number {
  return t < 1e11 ? t * 1000 : t;
}
