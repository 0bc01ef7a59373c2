// The audit trail as routes write it: who did what (the account, the API token when one was
// used, and the role the request had), with the request's id (the same id is in the request's
// log line and its X-Request-Id answer header) and the change's payload.
import type { Logger } from 'pino';
import type { Role } from '../auth/roles';
import type { AuthUser } from '../auth/user';
import type { AuditEntry, AuditQuery, Store } from '../store/types';
import { FailedLogins } from './failed-logins';
import type { Req } from './http';

/** Who an entry names when it is not the request's user (a login). */
export interface Actor {
  username: string;
  role?: Role;
}

/** Refusals remembered for the rate limit; past this many keys the memory starts over. */
const REFUSALS_MAX = 10_000;

export class AuditTrail {
  /** when each (actor, route) last had a refusal recorded: unix ms */
  private readonly refusals = new Map<string, number>();

  private readonly failedLogins: FailedLogins;

  constructor(private readonly store: Store, opts: { loginWindowSec: number; log: Logger }) {
    this.failedLogins = new FailedLogins(store, opts.loginWindowSec, opts.log);
  }

  /** Records a failed login of `username` (a valid name) from the request's client, bounded
   * and aggregated (src/api/failed-logins.ts). */
  failedLogin(req: Pick<Req, 'id' | 'ip'>, username: string): Promise<void> {
    return this.failedLogins.record(username, req.ip, req.id);
  }

  /** Records what is still counted (failed logins); the daemon stops next. */
  close(): Promise<void> {
    return this.failedLogins.close();
  }

  /** The entries `q` selects, newest first (GET /api/audit). */
  list(q: AuditQuery): Promise<AuditEntry[]> {
    return this.store.listAudit(q);
  }

  /** Records `action` by the request's user (or `actor`: the account a login is for). */
  record(req: { id: string; user?: AuthUser }, action: string, details: string, payload?: unknown, actor?: Actor): Promise<void> {
    const who = actor ?? req.user;
    if (!who) return Promise.reject(new Error(`audit entry ${action} names no one`));
    const token = actor === undefined ? req.user?.apiToken?.name : undefined;
    return this.store.audit({ at: Date.now(), user: who.username, role: who.role, token, action, details, reqId: req.id, payload });
  }

  /** Records the end of `owner`'s configuration session by the request's user: a discard of
   * one's own, else a forced one (`why` says what forced it when it was not a request to). */
  sessionEnded(req: Pick<Req, 'id' | 'user'>, owner: string, why = ''): Promise<void> {
    if (owner === req.user.username && !why) return this.record(req, 'session.discard', '');
    return this.record(req, 'session.force-discard', `owner: ${owner}${why ? ` (${why})` : ''}`);
  }

  /**
   * Records a request refused for its role (403: `reason` is its details), at most once a
   * second per actor and route: a script looping on a forbidden call cannot flood the trail.
   * Undefined when this one is not recorded; else resolves once written, never rejects (the
   * refusal is answered whatever happens here; a failed write is logged).
   */
  forbidden(req: Req, method: string, route: string, reason: string): Promise<void> | undefined {
    const now = Date.now();
    const key = `${req.user.username}\0${req.user.apiToken?.name ?? ''}\0${method} ${route}`;
    const last = this.refusals.get(key);
    if (last !== undefined && now - last < 1000) return undefined;
    if (this.refusals.size >= REFUSALS_MAX) this.refusals.clear();
    this.refusals.set(key, now);
    return this.record(req, 'auth.forbidden', `${method} ${route}: ${reason}`).catch((err: unknown) => {
      req.log.warn({ reqId: req.id, err: String(err) }, 'the refusal could not be audited');
    });
  }
}
