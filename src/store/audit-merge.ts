// An audit trail kept in two parts that share one sequence of ids: failed logins within a
// budget of their own (FW_AUDIT_LOGIN_FAILURES_KEEP), every other entry within FW_AUDIT_KEEP.
// A listing merges the parts by id, newest first, so that it reads as one trail; both stores
// list through here.
import { actionMatches, auditMatches, LOGIN_FAILED_ACTION, type AuditEntry, type AuditQuery } from './types';

/** What a listing reads of an entry to merge and filter (a store may keep the rest packed). */
type Listable = Pick<AuditEntry, 'id' | 'user' | 'action'>;

/** One part, read newest first from below the query's `before`. */
export interface AuditCursor<E extends Listable = AuditEntry> {
  /** the newest entry not taken yet; undefined once the part is read */
  head(): E | undefined | Promise<E | undefined>;
  /** takes the head */
  next(): void;
}

/** The entries of both parts that match the query, newest first, at most `limit`. */
export async function mergeAudit<E extends Listable = AuditEntry>(query: AuditQuery, trail: AuditCursor<E>, loginFailures: AuditCursor<E>): Promise<E[]> {
  // a query for other actions never reads the failed logins
  const failures = actionMatches(LOGIN_FAILED_ACTION, query) ? loginFailures : null;
  let a = await trail.head();
  let b = failures ? await failures.head() : undefined;
  const out: E[] = [];
  while (out.length < query.limit && (a || b)) {
    // the next head is awaited only when it is a promise: an await per entry would cost a
    // turn of the microtask queue, several times slower through 100,000 entries in memory
    let entry: E;
    if (a && (!b || a.id > b.id)) {
      entry = a;
      trail.next();
      const head = trail.head();
      a = head instanceof Promise ? await head : head;
    } else {
      entry = b!;
      failures!.next();
      const head = failures!.head();
      b = head instanceof Promise ? await head : head;
    }
    if (auditMatches(entry, query)) out.push(entry);
  }
  return out;
}
