// The audit trail as routes write it: who did what, with the request's id (the same id is in
// the request's log line and its X-Request-Id answer header) and the change's payload.
import type { Store } from '../store/types';
import type { Req } from './http';

export class AuditTrail {
  constructor(private readonly store: Store) {}

  /** Records `action` by the request's user (or `user`, e.g. the name a failed login tried). */
  record(req: Pick<Req, 'id' | 'user'>, action: string, details: string, payload?: unknown, user = req.user.username): Promise<void> {
    return this.store.audit({ at: Date.now(), user, action, details, reqId: req.id, payload });
  }
}
