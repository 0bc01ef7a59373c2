// Changes to the candidate: each validated and applied to the cached candidate, then appended
// to the journal with a compare-and-set on its length; when another instance appended first,
// the candidate is brought up to date and the change tried again.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { FwError, isFwError } from '../errors';
import { applyChange, type ApplyContext, type Change } from '../config/changes';
import { prepareLoad } from '../config/load';
import type { ConfigDoc } from '../config/types';
import { footprint } from '../config/footprint';
import type { ChangeResult } from '../config/resource';
import { withUndo } from '../config/undo';
import { checkExpansion, expansionOf } from '../config/expansion';
import type { JournalEntry, SessionJournal } from '../store/types';
import type { Candidate, CandidateReplica } from './candidate';
import { type CommitGuard, conflictAsSessionError, conflictReason, sessionBusy } from './conflicts';
import { GroupAppend, type AppendTarget } from './group-append';
import type { SessionLifecycle } from './lifecycle';

/** How many runs of other instances' entries a candidate may lack before a change syncs it first. */
const MAX_GAPS = 1024;

/**
 * A change another instance's appends keep getting ahead of is tried again at least this
 * often and for at least CHANGE_RETRY_MS before 409. Each retry joins its instance's next
 * group, and with n instances changing what the others' changes touch (policies from three
 * instances at once) an instance wins about one round in n: a count alone let a few changes
 * in a thousand lose 16 rounds in a row (measured: 14 of 6,000 policy creations, 64 writers,
 * three instances); rounds take milliseconds, so seconds of losing do not happen.
 */
const CHANGE_ATTEMPTS = 16;
const CHANGE_RETRY_MS = 5_000;

export class ChangeWriter<C> {
  /** a shared journal's group append (null: a sole writer, which groups its own fsyncs) */
  private readonly appends: GroupAppend | null;
  /** marks this process's journal entries in the store (its own are never unseen to it) */
  private readonly appendTag = randomUUID();

  constructor(
    private readonly journal: SessionJournal,
    private readonly replica: CandidateReplica<C>,
    private readonly lifecycle: SessionLifecycle<C>,
    private readonly guard: CommitGuard,
    private readonly log: Logger,
    /** FW_MAX_EXPANSION: a change that grows the candidate over it is refused (config/expansion.ts) */
    private readonly maxExpansion?: number,
  ) {
    this.appends = journal.soleWriter ? null : new GroupAppend(journal.appendChanges.bind(journal), this.appendTarget());
  }

  /** The candidate's side of the group append (group-append.ts). */
  private appendTarget(): AppendTarget {
    return {
      reach: (sessionId, expected) => {
        const cand = this.replica.cand;
        const gaps = cand?.sessionId === sessionId ? cand.gaps : [];
        return { unknownFrom: gaps.length ? gaps[0][0] : expected, tag: this.appendTag };
      },
      landed: (sessionId, expected, at, entries) => {
        this.replica.ownLanded(sessionId, entries);
        const c = this.replica.cand;
        if (!c || c.sessionId !== sessionId || at === expected) return;
        c.gaps.push([expected, at]);
        c.seq += at - expected;
      },
      uncertain: () => this.replica.storeChanged(),
      isRefusal: (e) => conflictReason(e) !== null,
    };
  }

  /**
   * Applies one change to the candidate and appends it durably before resolving. The cached
   * candidate is trusted first (one round trip: the append); a refused append or a refusal
   * that an unseen journal entry may explain brings the candidate up to date and tries again.
   * Many changes are in flight at once: a sole writer's appends pipeline (group commit) and
   * are never refused; a shared journal's are group-appended (group-append.ts), and a
   * refused group is undone, with everything applied on top of it, before it is tried again.
   */
  async change(user: string, change: Change, ctx: ApplyContext = {}): Promise<ChangeResult> {
    const shared = !this.journal.soleWriter;
    const keys = footprint(change);
    let fresh = false;
    const since = Date.now();
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS || Date.now() - since < CHANGE_RETRY_MS; attempt++) {
      const { cand, session } = this.replica;
      if (!cand || cand.dirty || this.lacksFor(cand, keys) || (session && this.lifecycle.expired(session))) {
        await this.lifecycle.liveSession();
        fresh = true;
      }
      const attemptFresh = fresh;
      const loaded = change.op === 'load' ? await this.prepared(user, change, shared ? attemptFresh : true) : undefined;
      const outcome = await this.replica.gate.runShared(() => this.tryChange(user, change, keys, loaded ? { ...ctx, ...loaded } : ctx, shared ? attemptFresh : true, shared));
      if (outcome !== 'retry') return outcome;
      await this.replica.synced();
      fresh = true;
    }
    throw sessionBusy(`the session changed concurrently for ${Date.now() - since} ms; try again`);
  }

  /**
   * The candidate lacks too much for this change: one that may touch anything is appended
   * only on a candidate without gaps, and gaps are not left to pile up without bound.
   */
  private lacksFor(c: Candidate, keys: string[] | null): boolean {
    return c.gaps.length > (keys === null ? 0 : MAX_GAPS);
  }

  /**
   * A load made beforehand in slices (load.ts prepareLoad), off the gate, so that the HTTP
   * thread answers meanwhile; applied only to the candidate it was made from, at the same
   * length (else the load runs again inside the change). A refusal is final when the
   * candidate is fresh.
   */
  private async prepared(user: string, change: Extract<Change, { op: 'load' }>, fresh: boolean): Promise<{ loaded: ConfigDoc; loadedFrom: Candidate; loadedAt: number } | undefined> {
    const { cand } = this.lifecycle.ownedBy(user, this.replica.session); // 409 before any work
    if (cand.dirty) return undefined;
    const at = cand.seq;
    try {
      return { loaded: await prepareLoad(cand.doc, change.config, change.mode), loadedFrom: cand, loadedAt: at };
    } catch (e) {
      if (fresh && isFwError(e) && this.replica.cand === cand && cand.seq === at) throw e;
      return undefined;
    }
  }

  private async tryChange(user: string, change: Change, keys: string[] | null, ctx: ApplyContext & { loadedFrom?: Candidate; loadedAt?: number }, fresh: boolean, undoable: boolean): Promise<ChangeResult | 'retry'> {
    const { s, cand } = this.lifecycle.ownedBy(user, this.replica.session);
    this.guard.check();
    if (cand.dirty) return 'retry';
    if (ctx.loaded && (ctx.loadedFrom !== cand || ctx.loadedAt !== cand.seq)) ctx = { ...ctx, loaded: undefined }; // made from another state: load again
    let applied: { result: ChangeResult; undo: () => void };
    const budget = this.maxExpansion !== undefined && mayExpand(change) ? this.maxExpansion : undefined;
    const before = budget === undefined ? 0 : expansionOf(cand.doc).total;
    try {
      // throws before mutating anything
      applied = undoable || budget !== undefined ? withUndo(cand.doc, () => applyChange(cand.doc, change, ctx)) : { result: applyChange(cand.doc, change, ctx), undo: () => undefined };
    } catch (e) {
      if (!fresh && isFwError(e)) return 'retry'; // an entry we have not seen yet may explain it
      throw e;
    }
    if (budget !== undefined) {
      try {
        checkExpansion(cand.doc, budget, before); // 400 ERR_NET_1008 with the numbers
      } catch (e) {
        applied.undo();
        throw e;
      }
    }
    const entry: JournalEntry = { seq: cand.seq++, at: Date.now(), user, change };
    s.lastChangeAt = entry.at;
    try {
      if (this.appends) {
        await this.appends.append(s.id, entry, keys, () => {
          applied.undo(); // back to what the store has; called newest first by the group append
          cand.seq = entry.seq;
        });
      } else {
        await this.journal.appendChange(s.id, entry);
      }
      return applied.result;
    } catch (e) {
      // the group append has undone a refused change; elsewhere later appends may be in
      // flight on top of it: rebuild before the next change
      if (!this.appends) cand.dirty = true;
      const reason = conflictReason(e);
      // another instance appended first, or began another session: bring it up to date and retry
      if (reason === 'length' || reason === 'session') return 'retry';
      if (reason === 'committing') conflictAsSessionError(e);
      if (isFwError(e) && e.code === 'ERR_SYS_4006') throw e; // made, kept, but not confirmed
      this.log.error({ err: e }, 'journal append failed');
      throw isFwError(e) ? e : new FwError('ERR_SYS_4002', 'the change was not recorded');
    }
  }
}

/** Whether a change can make the candidate expand to more (a delete or a move cannot). */
function mayExpand(change: Change): boolean {
  switch (change.op) {
    case 'create':
    case 'update':
      return change.kind === 'address' || change.kind === 'address-group' || change.kind === 'policy' || change.kind === 'nat';
    case 'delete':
    case 'move':
      return false;
    default:
      return true; // load, batch, rollback
  }
}
