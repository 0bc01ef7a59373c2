// An audit trail kept in two parts that share one sequence of ids: failed logins within a
// budget of their own (FW_AUDIT_LOGIN_FAILURES_KEEP), every other entry within FW_AUDIT_KEEP.
// A listing merges the parts by id, newest first, so that it reads as one trail; both stores
// list through here.
import { actionMatches, auditMatches, LOGIN_FAILED_ACTION, type AuditEntry, type AuditQuery } from './types';

/** One part, read newest first from below the query's `before`. */
export interface AuditCursor {
  /** the newest entry not taken yet; undefined once the part is read */
  head(): AuditEntry | undefined | Promise<AuditEntry | undefined>;
  /** takes the head */
  next(): void;
}

/** The entries of both parts that match the query, newest first, at most `limit`. */
export async function mergeAudit(query: AuditQuery, trail: AuditCursor, loginFailures: AuditCursor): Promise<AuditEntry[]> {
  // a query for other actions never reads the failed logins
  const parts = actionMatches(LOGIN_FAILED_ACTION, query) ? [trail, loginFailures] : [trail];
  const out: AuditEntry[] = [];
  while (out.length < query.limit) {
    let newest: { part: AuditCursor; entry: AuditEntry } | undefined;
    for (const part of parts) {
      const entry = await part.head();
      if (entry && (!newest || entry.id > newest.entry.id)) newest = { part, entry };
    }
    if (!newest) break;
    newest.part.next();
    if (auditMatches(newest.entry, query)) out.push(newest.entry);
  }
  return out;
}
