// A session's refusals as the contract answers them: who owns it, and a compare-and-set the
// store refused. One place for the service's modules.
import { FwError } from '../errors';
import type { SessionRecord } from '../store/types';

/** `s` if `user` owns it; else the contract's 409 (no session: begin one; another's: its owner). */
export function ownSession(user: string, s: SessionRecord | null): SessionRecord {
  if (!s) throw new FwError('ERR_SYS_3001', 'begin a session with POST /api/config/begin');
  if (s.owner !== user) throw new FwError('ERR_SYS_3002', `owner: ${s.owner}`);
  return s;
}

/**
 * The 409 of a session its owner cannot change right now. ERR_SYS_3002's catalogue message
 * ("held by another admin") is for other users; the owner is told what holds it.
 */
export function sessionBusy(details: string): FwError {
  return new FwError('ERR_SYS_3002', details, details.startsWith('a commit') ? 'the session is busy: a commit of it is in progress' : 'the session changed concurrently');
}

export const COMMIT_IN_PROGRESS = 'a commit of this session is in progress';

/** A compare-and-set the store refused, as the contract's 409 (a commit, or a lost session). */
export function conflictAsSessionError(e: unknown): never {
  if (e instanceof Error && e.name === 'StoreConflict') {
    throw sessionBusy((e as { reason?: string }).reason === 'committing' ? COMMIT_IN_PROGRESS : `the session changed concurrently: ${e.message}`);
  }
  throw e;
}

/** The reason of a StoreConflict ('session', 'committing', 'length'), or null for any other error. */
export function conflictReason(e: unknown): string | null {
  return e instanceof Error && e.name === 'StoreConflict' ? ((e as { reason?: string }).reason ?? 'session') : null;
}

/**
 * Whether this process is committing: from a commit request to its answer, and while a commit
 * job runs here, this process's changes and discards get 409 and an idle session is not
 * expired under the commit.
 */
export class CommitGuard {
  requests = 0;
  jobRunning = false;

  busy(): boolean {
    return this.requests > 0 || this.jobRunning;
  }

  /**
   * 409 while a commit holds the candidate. Called with no await between it and what it
   * guards (applying a change, claiming the commit), so nothing can slip in between.
   */
  check(): void {
    if (this.busy()) throw sessionBusy(COMMIT_IN_PROGRESS);
  }
}
