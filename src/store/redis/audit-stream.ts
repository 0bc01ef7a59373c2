// The audit trail's streams read newest first, a page at a time and only when needed, as the
// cursors mergeAudit takes (two streams: the failed logins are kept apart).
import type { AuditCursor } from '../audit-merge';
import type { AuditEntry, AuditEvent } from '../types';
import type { Scripted } from './scripts';

/** Audit stream entries read per call. */
const AUDIT_PAGE = 500;

/** A Redis call made through the store (its connection trouble becomes 503 ERR_SYS_4002). */
export type RedisCall = <T>(fn: (redis: Scripted) => Promise<T>) => Promise<T>;

/** An audit stream read newest first from below `before`, a page of 500 at a time, each when needed. */
export function auditCursor(call: RedisCall, stream: string, before: number | undefined): AuditCursor {
  let end = before === undefined ? '+' : `(${before}-0`;
  let page: AuditEntry[] = [];
  let at = 0;
  let last = false;
  const read = async (): Promise<void> => {
    const raw = await call((redis) => redis.xrevrange(stream, end, '-', 'COUNT', AUDIT_PAGE));
    last = raw.length < AUDIT_PAGE;
    if (raw.length) end = `(${raw[raw.length - 1][0]}`;
    page = raw.map(([streamId, fields]) => {
      const e = JSON.parse(fields[1]) as AuditEvent;
      return { ...e, id: Number(streamId.split('-')[0]), reqId: e.reqId ?? '' };
    });
    at = 0;
  };
  return {
    // a promise only when the page is read through and another must be fetched
    head: () => (at < page.length || last ? page[at] : read().then(() => page[at])),
    next: () => void at++,
  };
}
