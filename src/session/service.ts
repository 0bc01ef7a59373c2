// The configuration session and the commit pipeline. The candidate is the base running
// version plus the session's journal, and the store holds both: this process caches the
// candidate it last built and brings it up to date from the store's journal (only the entries
// it has not seen), so any instance sharing the store can serve any request of the session.
// A change is validated and applied to the cached candidate, then appended with a
// compare-and-set on the journal length (one store round trip); when another instance
// appended first, the candidate is rebuilt and the change tried again. A commit is one job:
// claim the session, validate, compile, then swap atomically (in this process, or on a queue
// worker in a cluster).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { FwError, isFwError } from '../errors';
import { applyChange, type ApplyContext, type Change } from '../config/changes';
import type { ChangeResult } from '../config/resource';
import { parseDoc, serializeDoc, workingCopy } from '../config/document';
import { diffDocs, type ConfigDiff } from '../config/diff';
import { changeSummary } from '../config/diff-detail';
import type { ConfigDoc } from '../config/types';
import type { SessionHead, SessionRecord, Store, VersionMeta, JournalEntry } from '../store/types';
import { RunningState } from './running';
import { NoDataPlane, type DataPlane } from '../dataplane/types';
import { Gate } from './gate';
import { withUndo } from '../config/undo';
import type { EventEmitterFn } from '../events/types';
import { GroupAppend, type AppendTarget } from './group-append';
import { footprint } from '../config/footprint';
import { Lru } from '../lru';

/**
 * Parsed documents of committed versions other than the running one (rollbacks, reads of
 * GET /api/config/versions/{n}, a candidate's base) kept for reuse: a few, least recently used
 * out first. Every commit used to add its document here for good (issue 15).
 */
const VERSION_DOCS_CACHED = 8;

/** Compiles a document (in worker threads) and returns its analysis warnings. */
export interface Compiler<C> {
  compile(doc: ConfigDoc): Promise<{ compiled: C; warnings: string[] }>;
}

export interface SessionOptions {
  sessionTimeoutSec: number;
  commitTimeoutMs: number;
}

/** A commit confirmed waiting for POST /api/config/confirm. */
export interface PendingConfirm {
  version: number;
  author: string;
  deadline: string; // ISO time
}

export interface SessionInfo {
  active: boolean;
  owner: string | null;
  started_at: string | null;
  expires_at: string | null;
  changes: number;
  pending_confirm: PendingConfirm | null;
}

/** The user the daemon's own actions are recorded as (an automatic revert, a session expiry). */
export const SYSTEM_USER = 'system';

interface Candidate {
  sessionId: string;
  /** the journal length it was built for: entries applied, plus those listed in `gaps` */
  seq: number;
  /**
   * Positions below `seq` holding other instances' entries it lacks ([from, to), ascending):
   * its own group landed after them (their footprints did not meet its own). The next sync
   * applies them.
   */
  gaps: Array<[number, number]>;
  doc: ConfigDoc;
  /** holds a change the store refused: rebuild before using it again */
  dirty: boolean;
}

/** One commit: the session, how many of its changes it commits, who asked and why. */
export interface CommitJob {
  sessionId: string;
  journalLength: number;
  user: string;
  description: string;
  /** a commit confirmed: seconds from the swap until the daemon reverts it unless confirmed */
  confirmTimeoutSec?: number;
}

export interface CommitResult {
  version: number;
  warnings: string[];
  /** a commit confirmed: its deadline (unix ms) */
  confirmBy?: number;
}

/** Runs a commit job: in this process (embedded store) or on a queue worker (cluster). */
export interface CommitRunner {
  run(job: CommitJob): Promise<CommitResult>;
}

/** Waits until every live instance serves `version`; answers the ids of those that did not. */
export type VersionSync = (version: number) => Promise<string[]>;

/** `s` if `user` owns it; else the contract's 409 (no session: begin one; another's: its owner). */
function ownSession(user: string, s: SessionRecord | null): SessionRecord {
  if (!s) throw new FwError('ERR_SYS_3001', 'begin a session with POST /api/config/begin');
  if (s.owner !== user) throw new FwError('ERR_SYS_3002', `owner: ${s.owner}`);
  return s;
}

/** A compare-and-set the store refused, as the contract's 409 (a commit, or a lost session). */
function conflictAsSessionError(e: unknown): never {
  if (e instanceof Error && e.name === 'StoreConflict') {
    const why = (e as { reason?: string }).reason === 'committing' ? 'a commit of this session is in progress' : `the session changed concurrently: ${e.message}`;
    throw new FwError('ERR_SYS_3002', why);
  }
  throw e;
}

function conflictReason(e: unknown): string | null {
  return e instanceof Error && e.name === 'StoreConflict' ? ((e as { reason?: string }).reason ?? 'session') : null;
}

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

export class ConfigService<C = unknown> {
  private running!: RunningState<C>;
  private session: SessionRecord | null = null;
  private cand: Candidate | null = null;
  /** commit requests this process is answering, and whether it runs a commit job now */
  private commitRequests = 0;
  private jobRunning = false;
  private readonly gate = new Gate();
  private runner: CommitRunner = { run: (job) => this.commitJob(job) };
  private versionSync: VersionSync = async () => [];
  /** one load of a newer running version at a time */
  private loading: Promise<void> | null = null;
  /** the candidate compiled on demand (eval with ?config=candidate), by session and journal length */
  private candCompiled: { key: string; result: Promise<{ compiled: C; warnings: string[] }> } | null = null;
  private readonly versionDocs = new Lru<number, ConfigDoc>(VERSION_DOCS_CACHED);
  private readonly runningListeners: Array<(state: RunningState<C>) => void> = [];
  /** where session, commit and confirmation events are reported (GET /api/events) */
  events: EventEmitterFn = () => undefined;
  /** a shared store's group append (null: the embedded store, which groups its own fsyncs) */
  private readonly appends: GroupAppend | null;
  /** marks this process's journal entries in the store (its own are never unseen to it) */
  private readonly appendTag = randomUUID();
  /** a sync that waits for the gate: callers arriving meanwhile share it */
  private queuedSync: { started: boolean; done: Promise<void> } | null = null;

  constructor(
    private readonly store: Store,
    private readonly opts: SessionOptions,
    private readonly log: Logger,
    private readonly compiler: Compiler<C>,
    private readonly commitChecks: (doc: ConfigDoc) => string[],
    /** enforces each committed version before it becomes running (none: FW_DATAPLANE=none) */
    private readonly dataPlane: DataPlane = new NoDataPlane(),
  ) {
    const many = store.kind === 'embedded' ? undefined : store.appendChanges;
    this.appends = many ? new GroupAppend(many.bind(store), this.appendTarget()) : null;
  }

  /** The candidate's side of the group append (group-append.ts). */
  private appendTarget(): AppendTarget {
    return {
      reach: (sessionId, expected) => {
        const gaps = this.cand?.sessionId === sessionId ? this.cand.gaps : [];
        return { unknownFrom: gaps.length ? gaps[0][0] : expected, tag: this.appendTag };
      },
      landed: (sessionId, expected, at) => {
        const c = this.cand;
        if (!c || c.sessionId !== sessionId || at === expected) return;
        c.gaps.push([expected, at]);
        c.seq += at - expected;
      },
      uncertain: () => this.storeChanged(),
      isRefusal: (e) => conflictReason(e) !== null,
    };
  }

  /**
   * The store may no longer hold what the cached candidate holds (an append whose outcome is
   * unknown; a failover to a replica that had not received the last writes): the candidate
   * is rebuilt from the store before its next use.
   */
  storeChanged(): void {
    if (this.cand) this.cand.dirty = true;
  }

  /** Loads the running version and rebuilds an active session's candidate from its journal. */
  async init(): Promise<void> {
    const meta = await this.store.runningVersion();
    const doc = await this.versionDoc(meta.version);
    this.setRunning(new RunningState(meta, doc, this.compiler.compile(doc)));
    await this.synced();
    if (this.session) this.log.info({ owner: this.session.owner, changes: this.cand?.seq }, 'session restored');
  }

  /** Commits go through `runner` (a queue) and answer after `sync` (every instance serves them). */
  useCluster(runner: CommitRunner, sync: VersionSync): void {
    this.runner = runner;
    this.versionSync = sync;
  }

  current(): RunningState<C> {
    return this.running;
  }

  /** Calls `listener` with every running version this process serves from now on. */
  onRunningChange(listener: (state: RunningState<C>) => void): void {
    this.runningListeners.push(listener);
    if (this.running) listener(this.running);
  }

  /** The one place the running version this process serves is replaced. */
  private setRunning(state: RunningState<C>): void {
    this.running = state;
    for (const listener of this.runningListeners) listener(state);
  }

  /**
   * Serves the store's running version if it is newer than ours (another instance committed):
   * the document at once, its matchers compiling in the pool behind it.
   */
  refreshRunning(): Promise<void> {
    this.loading ??= this.loadNewerRunning().finally(() => { this.loading = null; });
    return this.loading;
  }

  private async loadNewerRunning(): Promise<void> {
    const meta = await this.store.runningVersion();
    if (meta.version <= this.running.meta.version) return;
    const doc = await this.versionDoc(meta.version);
    if (meta.version <= this.running.meta.version) return;
    this.setRunning(new RunningState(meta, doc, this.compiler.compile(doc)));
    this.log.info({ version: meta.version, author: meta.author }, 'loaded a running version committed elsewhere');
  }

  /**
   * Brings the session and the cached candidate up to date with the store (exclusive: after
   * the appends in flight). Callers that arrive while one waits for the gate share it, since
   * it reads the store after they arrived: a burst of refused changes costs one sync.
   */
  private synced(): Promise<void> {
    if (this.queuedSync && !this.queuedSync.started) return this.queuedSync.done;
    const slot = { started: false, done: Promise.resolve() };
    slot.done = this.gate.runExclusive(() => {
      slot.started = true;
      return this.syncFromStore();
    });
    if (!slot.started) this.queuedSync = slot;
    return slot.done;
  }

  private async syncFromStore(): Promise<void> {
    const c = this.cand;
    const from = c && !c.dirty ? (c.gaps.length ? c.gaps[0][0] : c.seq) : 0;
    // a shared store reads the head and the entries this candidate lacks in one round trip
    const since = this.store.sessionSince && c && !c.dirty ? await this.store.sessionSince(from) : undefined;
    const head = since === undefined ? await this.store.sessionHead() : since?.head ?? null;
    if (!head) {
      this.session = null;
      this.cand = null;
      return;
    }
    this.session = { ...head.session };
    const same = c && !c.dirty && c.sessionId === head.session.id;
    if (same && c.seq === head.length && !c.gaps.length) return;
    if (same && c.seq <= head.length) {
      const entries = since?.entries ?? await this.store.journalSince(c.sessionId, from);
      if (entries && (await this.applyEntries(c, from, entries))) return;
    }
    await this.rebuild(head);
  }

  /**
   * Applies the journal entries from position `from` on that the candidate lacks: those in
   * its gaps and those past its length (its own are applied already; footprints let the gaps'
   * entries apply after them). False when one does not fit: the caller rebuilds.
   */
  private async applyEntries(c: Candidate, from: number, entries: JournalEntry[]): Promise<boolean> {
    let g = 0; // the first gap not yet behind the entry (both ascend)
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry.seq !== from + i) return false;
      while (g < c.gaps.length && c.gaps[g][1] <= entry.seq) g++;
      const lacks = entry.seq >= c.seq || (g < c.gaps.length && entry.seq >= c.gaps[g][0]);
      if (!lacks) continue;
      try {
        applyChange(c.doc, entry.change, await this.contextFor(entry.change)); // leaves c.doc as it was if it throws
      } catch {
        return false;
      }
    }
    if (from + entries.length < c.seq) return false; // its own entries are not all there
    c.seq = from + entries.length;
    c.gaps = [];
    return true;
  }

  private async rebuild(head: SessionHead): Promise<void> {
    const journal = (await this.store.journalSince(head.session.id, 0)) ?? [];
    const doc = workingCopy(await this.versionDoc(head.session.baseVersion));
    for (const entry of journal) applyChange(doc, entry.change, await this.contextFor(entry.change));
    this.cand = { sessionId: head.session.id, seq: journal.length, gaps: [], doc, dirty: false };
  }

  private async contextFor(change: Change): Promise<ApplyContext> {
    if (change.op !== 'rollback') return {};
    return { versionDoc: await this.versionDoc(change.version) };
  }

  /** The document of a committed version (404 when there is none or it was pruned); never mutated. */
  async versionDoc(version: number): Promise<ConfigDoc> {
    if (this.running?.meta.version === version) return this.running.doc;
    const cached = this.versionDocs.get(version);
    if (cached) return cached;
    const rec = Number.isSafeInteger(version) ? await this.store.getVersion(version) : undefined;
    if (!rec) throw new FwError('ERR_NET_1003', `version ${version} not found`);
    const doc = parseDoc(rec.doc);
    this.versionDocs.set(version, doc);
    return doc;
  }

  private expired(s: SessionRecord): boolean {
    return Date.now() - s.lastChangeAt > this.opts.sessionTimeoutSec * 1000;
  }

  /** The active session as the store has it, after ending it if it sat idle past the timeout. */
  private async liveSession(): Promise<SessionRecord | null> {
    await this.synced();
    const s = this.session;
    if (!s || !this.expired(s) || this.commitBusy()) return s;
    await this.endSession(s, 'expired', s.owner);
    return this.session;
  }

  private async endSession(s: SessionRecord, reason: string, by: string): Promise<void> {
    const ended = await this.store.endSession(s.id);
    if (this.session?.id === s.id) {
      this.session = null;
      this.cand = null;
    }
    if (ended) {
      this.log.info({ owner: s.owner, by, reason }, 'session ended');
      this.events({ type: 'session', state: reason === 'expired' ? 'expired' : 'discarded', owner: s.owner, user: by });
      // the instance that ended it records it (the others find it gone)
      if (reason === 'expired') {
        await this.store.audit({ at: Date.now(), user: s.owner, action: 'session.expire', details: `idle over ${this.opts.sessionTimeoutSec} s`, reqId: '' });
      }
      return;
    }
    // a commit claimed it, or it was already gone: the store decides
    await this.synced();
    if (this.session?.id === s.id) throw new FwError('ERR_SYS_3002', 'a commit of this session is in progress');
  }

  /** Ends a session that sat idle past the timeout (called by a timer too). */
  async expireIdle(): Promise<void> {
    if (!this.session && this.store.kind === 'embedded') return; // nothing can have begun elsewhere
    await this.liveSession();
  }

  async info(): Promise<SessionInfo> {
    const s = await this.liveSession();
    const pending_confirm = await this.pendingConfirm();
    if (!s || !this.cand) return { active: false, owner: null, started_at: null, expires_at: null, changes: 0, pending_confirm };
    return {
      active: true,
      owner: s.owner,
      started_at: new Date(s.startedAt).toISOString(),
      expires_at: new Date(s.lastChangeAt + this.opts.sessionTimeoutSec * 1000).toISOString(),
      changes: this.cand.seq,
      pending_confirm,
    };
  }

  /**
   * The commit confirmed waiting for confirmation: the running version if it was committed
   * with a confirm_timeout and is not confirmed yet (a later commit replaces it as running,
   * and so confirms it).
   */
  async pendingConfirm(): Promise<PendingConfirm | null> {
    const meta = this.running.meta;
    if (meta.confirmBy === undefined) return null;
    if ((await this.store.confirmedVersion()) >= meta.version) return null;
    return { version: meta.version, author: meta.author, deadline: new Date(meta.confirmBy).toISOString() };
  }

  /**
   * Restores the version before the unconfirmed `version` as a new version, with the same
   * pipeline as any commit (checks, data plane, atomic swap): in a session of the system's
   * own, after ending any session that is open (it was begun on the version withdrawn).
   * The caller holds the store's revert claim. Resolves to the new version, or null when
   * `version` is no longer running (a commit came first: it confirmed it).
   */
  async revertUnconfirmed(version: number, description: string): Promise<number | null> {
    await this.refreshRunning();
    if (this.running.meta.version !== version) return null;
    const restore = version - 1;
    for (let attempt = 0; ; attempt++) {
      const s = await this.liveSession();
      // a user's session (409 while a commit holds it: the revert is tried again later), or a
      // revert's own that died half-way (start over)
      if (s) await this.endSession(s, 'discarded', SYSTEM_USER);
      try {
        await this.begin(SYSTEM_USER);
        break;
      } catch (e) {
        if (!(isFwError(e) && e.code === 'ERR_SYS_3002') || attempt >= 3) throw e;
        // someone began a session in between: end it too
      }
    }
    await this.refreshRunning();
    if (this.running.meta.version !== version) return null;
    await this.rollback(SYSTEM_USER, restore);
    const { s, cand } = await this.ownedSession(SYSTEM_USER);
    const r = await this.commitJob({ sessionId: s.id, journalLength: cand.seq, user: SYSTEM_USER, description });
    return r.version;
  }

  async begin(user: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const active = await this.liveSession();
      if (active) throw new FwError('ERR_SYS_3002', `owner: ${active.owner}`, 'a configuration session is already active');
      await this.refreshRunning();
      const now = Date.now();
      const base = this.running;
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
      await this.gate.runExclusive(async () => {
        this.session = { ...rec };
        this.cand = { sessionId: rec.id, seq: 0, gaps: [], doc: workingCopy(base.doc), dirty: false };
      });
      this.log.info({ owner: user }, 'session started');
      this.events({ type: 'session', state: 'begun', owner: user, user });
      return;
    }
  }

  /** The session if `user` owns it; else the contract's 409. */
  private ownedBy(user: string, s: SessionRecord | null): { s: SessionRecord; cand: Candidate } {
    const owned = ownSession(user, s && this.cand ? s : null);
    return { s: owned, cand: this.cand! };
  }

  /**
   * The caller's session and its journal length, for a commit job. The job brings its own
   * candidate up to date (claiming the session at exactly that length), so on a shared store
   * the instance that takes the request reads only the head: replaying entries it lacks (a
   * whole configuration loaded through another instance) would only delay the job. An expired
   * session takes the full path, which ends it.
   */
  private async sessionToCommit(user: string): Promise<{ s: SessionRecord; length: number }> {
    const head = this.store.kind === 'embedded' ? null : await this.store.sessionHead();
    if (!head || this.expired(head.session)) {
      const { s, cand } = await this.ownedSession(user);
      return { s, length: cand.seq };
    }
    return { s: ownSession(user, head.session), length: head.length };
  }

  private async ownedSession(user: string): Promise<{ s: SessionRecord; cand: Candidate }> {
    return this.ownedBy(user, await this.liveSession());
  }

  /**
   * 409 while a commit holds the candidate. Called with no await between it and what it
   * guards (applying a change, claiming the commit), so nothing can slip in between.
   */
  private checkNotCommitting(): void {
    if (this.commitBusy()) throw new FwError('ERR_SYS_3002', 'a commit of this session is in progress');
  }

  private commitBusy(): boolean {
    return this.commitRequests > 0 || this.jobRunning;
  }

  /**
   * Applies one change to the candidate and appends it durably before resolving. The cached
   * candidate is trusted first (one round trip: the append); a refused append or a refusal
   * that an unseen journal entry may explain brings the candidate up to date and tries again.
   * Many changes are in flight at once: on the embedded store appends pipeline (group commit)
   * and are never refused; on a shared store they are group-appended (group-append.ts), and a
   * refused group is undone, with everything applied on top of it, before it is tried again.
   */
  async change(user: string, change: Change, ctx: ApplyContext = {}): Promise<ChangeResult> {
    const shared = this.store.kind !== 'embedded';
    const keys = footprint(change);
    let fresh = false;
    const since = Date.now();
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS || Date.now() - since < CHANGE_RETRY_MS; attempt++) {
      if (!this.cand || this.cand.dirty || this.lacksFor(this.cand, keys) || (this.session && this.expired(this.session))) {
        await this.liveSession();
        fresh = true;
      }
      const attemptFresh = fresh;
      const outcome = await this.gate.runShared(() => this.tryChange(user, change, keys, ctx, shared ? attemptFresh : true, shared));
      if (outcome !== 'retry') return outcome;
      await this.synced();
      fresh = true;
    }
    throw new FwError('ERR_SYS_3002', `the session changed concurrently for ${Date.now() - since} ms; try again`);
  }

  /**
   * The candidate lacks too much for this change: one that may touch anything is appended
   * only on a candidate without gaps, and gaps are not left to pile up without bound.
   */
  private lacksFor(c: Candidate, keys: string[] | null): boolean {
    return c.gaps.length > (keys === null ? 0 : MAX_GAPS);
  }

  private async tryChange(user: string, change: Change, keys: string[] | null, ctx: ApplyContext, fresh: boolean, undoable: boolean): Promise<ChangeResult | 'retry'> {
    const { s, cand } = this.ownedBy(user, this.session);
    this.checkNotCommitting();
    if (cand.dirty) return 'retry';
    let applied: { result: ChangeResult; undo: () => void };
    try {
      // throws before mutating anything
      applied = undoable ? withUndo(cand.doc, () => applyChange(cand.doc, change, ctx)) : { result: applyChange(cand.doc, change, ctx), undo: () => undefined };
    } catch (e) {
      if (!fresh && isFwError(e)) return 'retry'; // an entry we have not seen yet may explain it
      throw e;
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
        await this.store.appendChange(s.id, entry);
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

  async rollback(user: string, version: number): Promise<void> {
    await this.ownedSession(user);
    const versionDoc = await this.versionDoc(version);
    await this.change(user, { op: 'rollback', version }, { versionDoc });
    this.events({ type: 'rollback', version, user });
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
    this.checkNotCommitting();
    await this.endSession(s, force && s.owner !== user ? 'force-discarded' : 'discarded', user);
    return s.owner; // the caller audits it with its request id
  }

  /** The candidate of the active session (any admin may read it). */
  async candidate(): Promise<{ doc: ConfigDoc; seq: number; sessionId: string; baseVersion: number }> {
    const s = await this.liveSession();
    if (!s || !this.cand) throw new FwError('ERR_SYS_3001', 'no active configuration session');
    return { ...this.cand, baseVersion: s.baseVersion };
  }

  /** The candidate compiled in the worker pool; rebuilt only when the journal has grown. */
  async compiledCandidate(): Promise<{ compiled: C; warnings: string[] }> {
    const cand = await this.candidate();
    const key = `${cand.sessionId}:${cand.seq}`;
    if (this.candCompiled?.key !== key) {
      const result = this.compileInTime(cand.doc);
      result.catch(() => { if (this.candCompiled?.key === key) this.candCompiled = null; });
      this.candCompiled = { key, result };
    }
    return this.candCompiled.result;
  }

  async diff(): Promise<ConfigDiff & { base_version: number }> {
    const { doc } = await this.candidate();
    await this.refreshRunning();
    return { base_version: this.running.meta.version, ...diffDocs(this.running.doc, doc) };
  }

  /** The commit checks and compile warnings, without committing. */
  async validate(): Promise<{ warnings: string[] }> {
    const { doc } = await this.candidate();
    await this.checkCommittable(doc);
    const { warnings } = await this.compileInTime(doc);
    return { warnings };
  }

  /**
   * Commits the session of `user`: one job (run here or on a queue worker), then, in a cluster,
   * waits until every live instance serves the new version; `unconfirmed` names those that
   * did not within the bound.
   */
  async commit(user: string, description: string, confirmTimeoutSec?: number): Promise<CommitResult & { unconfirmed: string[] }> {
    this.checkNotCommitting();
    this.commitRequests++; // from here to the answer, this process's changes and discards get 409
    try {
      const { s, length } = await this.sessionToCommit(user);
      const job: CommitJob = { sessionId: s.id, journalLength: length, user, description };
      if (confirmTimeoutSec !== undefined) job.confirmTimeoutSec = confirmTimeoutSec;
      const result = await this.runner.run(job);
      await this.refreshRunning();
      const unconfirmed = await this.versionSync(result.version);
      return { ...result, unconfirmed };
    } finally {
      this.commitRequests--;
    }
  }

  /**
   * The commit job itself: claims the session at exactly the journal length the user saw,
   * validates, compiles and swaps. Refuses (409) if the session moved on since.
   */
  async commitJob(job: CommitJob): Promise<CommitResult> {
    if (this.jobRunning) throw new FwError('ERR_SYS_3002', 'a commit of this session is in progress');
    this.jobRunning = true; // from here to the swap, this process's changes and discards get 409
    try {
      await this.refreshRunning();
      await this.synced();
      const s = this.session;
      const cand = this.cand;
      if (!s || !cand || s.id !== job.sessionId) throw new FwError('ERR_SYS_3001', 'the session to commit is no longer active');
      if (s.owner !== job.user) throw new FwError('ERR_SYS_3002', `owner: ${s.owner}`);
      if (cand.seq !== job.journalLength) {
        throw new FwError('ERR_SYS_3002', `the session changed concurrently: ${cand.seq} changes, not ${job.journalLength}`);
      }
      await this.store.claimCommit(s.id, cand.seq, this.opts.commitTimeoutMs * 2).catch(conflictAsSessionError);
      try {
        return await this.checkCompileSwap(job, s, cand);
      } catch (e) {
        await this.store.releaseCommit(s.id, cand.seq).catch(() => undefined);
        throw e;
      }
    } finally {
      this.jobRunning = false;
    }
  }

  private async checkCompileSwap(job: CommitJob, s: SessionRecord, cand: Candidate): Promise<CommitResult> {
    await this.checkCommittable(cand.doc);
    const { compiled, warnings, base, summary } = await this.compileAndDiff(cand.doc);
    const meta: VersionMeta = {
      version: base.meta.version + 1,
      author: job.user,
      time: Date.now(),
      description: job.description,
      summary,
    };
    // the deadline counts from the swap, not from the request (a slow compile does not eat it)
    if (job.confirmTimeoutSec !== undefined) meta.confirmBy = Date.now() + job.confirmTimeoutSec * 1000;
    // the kernel holds the new version before it is durable; a refused apply has restored
    // the previous version's state and throws, so running stays what it was
    await this.dataPlane.apply(cand.doc, meta.version);
    let unconfirmed: FwError | null = null;
    try {
      await this.store.commit(s.id, cand.seq, { ...meta, doc: serializeDoc(cand.doc) }).catch(conflictAsSessionError);
    } catch (e) {
      // committed on the primary but not confirmed by enough replicas: it is the running
      // version now (the same request again finds it done); the answer says unconfirmed
      if (isFwError(e) && e.code === 'ERR_SYS_4006') {
        unconfirmed = e;
      } else {
        await this.dataPlane.apply(base.doc, base.meta.version).catch((e2: unknown) => {
          this.log.error({ err: e2 }, 'data plane: restoring the running version failed');
        });
        throw e;
      }
    }
    this.reportCommit(job, meta); // before the swap's own events (node version)
    // the candidate document becomes the immutable running version (versionDoc() serves it from there)
    if (this.running.meta.version < meta.version) this.setRunning(new RunningState(meta, cand.doc, Promise.resolve({ compiled, warnings })));
    if (this.session?.id === s.id) {
      this.session = null;
      this.cand = null;
    }
    this.log.info({ version: meta.version, author: job.user, summary: meta.summary, unconfirmed: unconfirmed !== null }, 'commit');
    await this.confirmedByCommit(job, meta, base.meta);
    if (unconfirmed) throw unconfirmed;
    return meta.confirmBy === undefined ? { version: meta.version, warnings } : { version: meta.version, warnings, confirmBy: meta.confirmBy };
  }

  /**
   * The events of a commit, from the instance that made it (in a cluster, the worker: they
   * are reported even if the instance that took the request is gone).
   */
  private reportCommit(job: CommitJob, meta: VersionMeta): void {
    const deadline = meta.confirmBy === undefined ? undefined : new Date(meta.confirmBy).toISOString();
    this.events({ type: 'commit', version: meta.version, author: job.user, description: job.description, summary: meta.summary, ...(deadline ? { confirm_by: deadline } : {}) });
    this.events({ type: 'session', state: 'committed', owner: job.user, user: job.user });
    if (deadline) this.events({ type: 'confirm', state: 'pending', version: meta.version, user: job.user, deadline });
  }

  /** A commit on top of an unconfirmed commit confirms it (as Junos does): recorded and audited. */
  private async confirmedByCommit(job: CommitJob, meta: VersionMeta, base: VersionMeta): Promise<void> {
    if (base.confirmBy === undefined || job.user === SYSTEM_USER) return;
    try {
      if ((await this.store.confirmedVersion()) >= base.version) return;
      await this.store.confirmVersion(base.version);
      await this.store.audit({ at: Date.now(), user: job.user, action: 'config.confirm', details: `version ${base.version}, by the commit of version ${meta.version}`, reqId: '' });
      this.events({ type: 'confirm', state: 'confirmed', version: base.version, user: job.user });
    } catch (e) {
      this.log.warn({ err: String(e), version: base.version }, 'could not record the confirmation by commit');
    }
  }

  /**
   * Compiles the candidate on a pool thread and, meanwhile on this thread, diffs it against
   * the running version for the commit's summary (at 20,000 policies the diff is ~0.1 s that
   * used to wait for the compile). `base` is the running version the summary is against: if
   * another version became running during the compile, the summary is diffed again.
   */
  private async compileAndDiff(doc: ConfigDoc): Promise<{ compiled: C; warnings: string[]; base: RunningState<C>; summary: VersionMeta['summary'] }> {
    const compiling = this.compileInTime(doc);
    let base = this.running;
    let summary: VersionMeta['summary'];
    try {
      summary = changeSummary(base.doc, doc);
    } catch (e) {
      await compiling.catch(() => undefined); // its failure is not left unhandled
      throw e;
    }
    const { compiled, warnings } = await compiling;
    if (this.running !== base) {
      base = this.running;
      summary = changeSummary(base.doc, doc);
    }
    return { compiled, warnings, base, summary };
  }

  /** The commit checks, then the data plane's own (names, `nft -c`): 400 ERR_SYS_3003. */
  private async checkCommittable(doc: ConfigDoc): Promise<void> {
    let problems = this.commitChecks(doc);
    if (problems.length === 0) problems = await this.dataPlane.check(doc);
    if (problems.length) throw new FwError('ERR_SYS_3003', problems.join('\n'));
  }

  private async compileInTime(doc: ConfigDoc): Promise<{ compiled: C; warnings: string[] }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FwError('ERR_SYS_4004', `compile took over ${this.opts.commitTimeoutMs} ms`)), this.opts.commitTimeoutMs);
    });
    try {
      return await Promise.race([this.compiler.compile(doc), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
