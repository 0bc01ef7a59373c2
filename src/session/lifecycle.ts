// The session's life: begun by one user, read, expired after sitting idle, discarded (by its
// owner, or forced), and the owner's own session found for a change or a commit.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { FwError, isFwError } from '../errors';
import type { ConfigDoc } from '../config/types';
import type { EventEmitterFn } from '../events/types';
import type { SessionRecord, Store } from '../store/types';
import type { Candidate, CandidateReplica } from './candidate';
import { COMMIT_IN_PROGRESS, CommitGuard, conflictAsSessionError, conflictReason, ownSession, sessionBusy } from './conflicts';
import type { RunningVersions } from './running-versions';
import type { PendingConfirm, SessionInfo, SessionOptions } from './types';

export class SessionLifecycle<C> {
  constructor(
    private readonly store: Store,
    private readonly replica: CandidateReplica<C>,
    private readonly versions: RunningVersions<C>,
    private readonly guard: CommitGuard,
    private readonly opts: SessionOptions,
    private readonly log: Logger,
    private readonly emit: EventEmitterFn,
  ) {}

  expired(s: SessionRecord): boolean {
    return Date.now() - s.lastChangeAt > this.opts.sessionTimeoutSec * 1000;
  }

  /** The active session as the store has it, after ending it if it sat idle past the timeout. */
  async liveSession(): Promise<SessionRecord | null> {
    await this.replica.synced();
    const s = this.replica.session;
    if (!s || !this.expired(s) || this.guard.busy()) return s;
    await this.endSession(s, 'expired', s.owner);
    return this.replica.session;
  }

  /** Ends session `s` for `reason` ('expired', 'discarded', 'force-discarded'), as `by`. */
  async endSession(s: SessionRecord, reason: string, by: string): Promise<void> {
    const ended = await this.store.endSession(s.id);
    this.replica.forget(s.id);
    if (ended) {
      this.log.info({ owner: s.owner, by, reason }, 'session ended');
      this.emit({ type: 'session', state: reason === 'expired' ? 'expired' : 'discarded', owner: s.owner, user: by });
      // the instance that ended it records it (the others find it gone)
      if (reason === 'expired') {
        await this.store.audit({ at: Date.now(), user: s.owner, action: 'session.expire', details: `idle over ${this.opts.sessionTimeoutSec} s`, reqId: '' });
      }
      return;
    }
    // a commit claimed it, or it was already gone: the store decides
    await this.replica.synced();
    if (this.replica.session?.id === s.id) throw sessionBusy(COMMIT_IN_PROGRESS);
  }

  /** Ends a session that sat idle past the timeout (called by a timer too). */
  async expireIdle(): Promise<void> {
    if (!this.replica.session && this.store.soleWriter) return; // nothing can have begun elsewhere
    await this.liveSession();
  }

  async info(): Promise<SessionInfo> {
    const s = await this.liveSession();
    const pending_confirm = await this.pendingConfirm();
    const cand = this.replica.cand;
    if (!s || !cand) return { active: false, owner: null, started_at: null, expires_at: null, changes: 0, pending_confirm };
    return {
      active: true,
      owner: s.owner,
      started_at: new Date(s.startedAt).toISOString(),
      expires_at: new Date(s.lastChangeAt + this.opts.sessionTimeoutSec * 1000).toISOString(),
      changes: cand.seq,
      pending_confirm,
    };
  }

  /**
   * The commit confirmed waiting for confirmation: the running version if it was committed
   * with a confirm_timeout and is not confirmed yet (a later commit replaces it as running,
   * and so confirms it).
   */
  async pendingConfirm(): Promise<PendingConfirm | null> {
    const meta = this.versions.current().meta;
    if (meta.confirmBy === undefined) return null;
    if ((await this.store.confirmedVersion()) >= meta.version) return null;
    return { version: meta.version, author: meta.author, deadline: new Date(meta.confirmBy).toISOString() };
  }

  async begin(user: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const active = await this.liveSession();
      if (active) throw new FwError('ERR_SYS_3002', `owner: ${active.owner}`, 'a configuration session is already active');
      await this.versions.refresh();
      const now = Date.now();
      const base = this.versions.current();
      const rec: SessionRecord = { id: randomUUID(), owner: user, startedAt: now, lastChangeAt: now, baseVersion: base.meta.version };
      let existing: SessionRecord | null;
      try {
        existing = await this.store.beginSession(rec);
      } catch (e) {
        // another instance committed after we read the running version: start from the new one
        if (conflictReason(e) === 'session' && attempt < 3) continue;
        conflictAsSessionError(e);
      }
      if (existing) throw new FwError('ERR_SYS_3002', `owner: ${existing.owner}`, 'a configuration session is already active');
      await this.replica.start(rec, base.doc);
      this.log.info({ owner: user }, 'session started');
      this.emit({ type: 'session', state: 'begun', owner: user, user });
      return;
    }
  }

  /** The session if `user` owns it; else the contract's 409. */
  ownedBy(user: string, s: SessionRecord | null): { s: SessionRecord; cand: Candidate } {
    const cand = this.replica.cand;
    const owned = ownSession(user, s && cand ? s : null);
    return { s: owned, cand: cand! };
  }

  async ownedSession(user: string): Promise<{ s: SessionRecord; cand: Candidate }> {
    return this.ownedBy(user, await this.liveSession());
  }

  /**
   * The caller's session and its journal length, for a commit job. The job brings its own
   * candidate up to date (claiming the session at exactly that length), so on a shared store
   * the instance that takes the request reads only the head: replaying entries it lacks (a
   * whole configuration loaded through another instance) would only delay the job. An expired
   * session takes the full path, which ends it.
   */
  async sessionToCommit(user: string): Promise<{ s: SessionRecord; length: number }> {
    const head = this.store.soleWriter ? null : await this.store.sessionHead();
    if (!head || this.expired(head.session)) {
      const { s, cand } = await this.ownedSession(user);
      return { s, length: cand.seq };
    }
    return { s: ownSession(user, head.session), length: head.length };
  }

  /**
   * Ends the session: the caller's own, or (force) another user's once `mayForce` has not
   * thrown (the API checks the caller's role there, knowing whose session it is). Resolves to
   * the owner it had.
   */
  async discard(user: string, force: boolean, mayForce: (owner: string) => void = () => undefined): Promise<string> {
    const s = await this.liveSession();
    if (!s) throw new FwError('ERR_SYS_3001', 'no session to discard');
    if (s.owner !== user && !force) throw new FwError('ERR_SYS_3002', `owner: ${s.owner}`);
    if (s.owner !== user) mayForce(s.owner);
    this.guard.check();
    await this.endSession(s, force && s.owner !== user ? 'force-discarded' : 'discarded', user);
    return s.owner; // the caller audits it with its request id
  }

  /**
   * Ends the active session if `owner` holds it, as `by` did: an account deleted releases its
   * lock at once rather than after the idle timeout. False when it holds none, or a commit of
   * it is under way (the commit ends it).
   */
  async endSessionOf(owner: string, by: string): Promise<boolean> {
    const s = await this.liveSession();
    if (!s || s.owner !== owner || this.guard.busy()) return false;
    try {
      await this.endSession(s, 'force-discarded', by);
    } catch (e) {
      if (isFwError(e) && e.code === 'ERR_SYS_3002') return false; // a commit claimed it meanwhile
      throw e;
    }
    return true;
  }

  /** The candidate of the active session (any admin may read it). */
  async candidate(): Promise<{ doc: ConfigDoc; seq: number; sessionId: string; baseVersion: number }> {
    const s = await this.liveSession();
    const cand = this.replica.cand;
    if (!s || !cand) throw new FwError('ERR_SYS_3001', 'no active configuration session');
    return { ...cand, baseVersion: s.baseVersion };
  }
}
