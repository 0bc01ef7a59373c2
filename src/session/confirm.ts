// Commit confirmed (Junos `commit confirmed`): a commit made with confirm_timeout becomes
// running at once, and is kept only if POST /api/config/confirm (or any later commit) comes
// before its deadline; otherwise the daemon restores the version before it by itself. The
// deadline is part of the version's record in the store (VersionMeta.confirmBy), written by
// the commit itself, so every instance sees it, a restart finds it, and no instance has to
// survive for it to hold: each instance checks it every second, and the store's revert claim
// lets exactly one act (another takes over if that one dies mid-revert).
import type { Logger } from 'pino';
import { FwError } from '../errors';
import type { Store } from '../store/types';
import type { EventEmitterFn } from '../events/types';
import { SYSTEM_USER, type ConfigService } from './service';

export class CommitConfirmation {
  private checking = false;

  constructor(
    private readonly config: ConfigService<unknown>,
    private readonly store: Store,
    private readonly events: EventEmitterFn,
    private readonly log: Logger,
    /** how long an instance's revert claim lasts: a revert is one commit */
    private readonly claimMs: number,
  ) {}

  /**
   * Keeps the pending commit confirmed; 409 ERR_SYS_3004 when none is (or it is being
   * reverted). Another user's commit only once `mayConfirmOthers` has not thrown (the API
   * checks the caller's role there: the author's pipeline keeps the decision, or an admin).
   */
  async confirm(user: string, mayConfirmOthers: (author: string) => void = () => undefined): Promise<number> {
    await this.config.refreshRunning();
    const p = await this.config.pendingConfirm();
    if (!p) throw new FwError('ERR_SYS_3004', 'no commit confirmed is pending: the running version needs no confirmation');
    if (p.author !== user) mayConfirmOthers(p.author);
    if (!(await this.store.confirmVersion(p.version))) {
      throw new FwError('ERR_SYS_3004', `version ${p.version} is being reverted: its deadline ${p.deadline} has passed`);
    }
    this.log.info({ version: p.version, user }, 'commit confirmed');
    this.events({ type: 'confirm', state: 'confirmed', version: p.version, user });
    return p.version;
  }

  /** Reverts the pending commit if its deadline has passed (every instance calls this each second). */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await this.revertIfLate();
    } finally {
      this.checking = false;
    }
  }

  private async revertIfLate(): Promise<void> {
    const p = await this.config.pendingConfirm();
    if (!p || Date.parse(p.deadline) > Date.now()) return;
    if (!(await this.store.claimRevert(p.version, this.claimMs))) return; // confirmed, or another instance acts
    const restored = p.version - 1;
    const description = `automatic rollback: version ${p.version} (commit confirmed by ${p.author}) was not confirmed by ${p.deadline}; restores version ${restored}`;
    this.log.warn({ version: p.version, deadline: p.deadline }, 'commit not confirmed in time: reverting');
    let made: number | null;
    try {
      made = await this.config.revertUnconfirmed(p.version, description);
    } catch (e) {
      // the claim lapses after claimMs and an instance tries again
      this.log.error({ err: e, version: p.version }, 'automatic rollback failed; it will be tried again');
      return;
    }
    if (made === null) return; // a commit came first: it confirmed the version
    await this.store.audit({ at: Date.now(), user: SYSTEM_USER, action: 'config.revert', details: `${description}, as version ${made}`, reqId: '' });
    this.events({ type: 'confirm', state: 'reverted', version: p.version, user: SYSTEM_USER, restored_version: restored, new_version: made });
  }
}
