// The configuration session and the commit pipeline. The candidate is the base running
// version plus the session's journal; this process keeps the candidate it built and applies
// each change to it synchronously (validate, then mutate) before the change is appended
// durably, so concurrent requests are serialized by the event loop and never interleave
// inside a change. A commit is one function: validate, compile, then swap atomically.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { FwError } from '../errors';
import { applyChange, type ApplyContext, type Change } from '../config/changes';
import type { ChangeResult } from '../config/resource';
import { cloneDoc, parseDoc, serializeDoc } from '../config/document';
import { diffDocs, diffSummary, type ConfigDiff } from '../config/diff';
import type { ConfigDoc } from '../config/types';
import type { SessionRecord, Store, VersionMeta, JournalEntry } from '../store/types';
import { RunningState } from './running';

/** Compiles a document (in worker threads) and returns its analysis warnings. */
export interface Compiler<C> {
  compile(doc: ConfigDoc): Promise<{ compiled: C; warnings: string[] }>;
}

export interface SessionOptions {
  sessionTimeoutSec: number;
  commitTimeoutMs: number;
}

export interface SessionInfo {
  active: boolean;
  owner: string | null;
  started_at: string | null;
  expires_at: string | null;
  changes: number;
}

interface Candidate {
  sessionId: string;
  seq: number; // journal entries applied
  doc: ConfigDoc;
}

/** A compare-and-set the store refused: another writer moved the session (409, retry). */
function conflictAsSessionError(e: unknown): never {
  if (e instanceof Error && e.name === 'StoreConflict') {
    throw new FwError('ERR_SYS_3002', `the session changed concurrently: ${e.message}`);
  }
  throw e;
}

export class ConfigService<C = unknown> {
  private running!: RunningState<C>;
  private session: SessionRecord | null = null;
  private cand: Candidate | null = null;
  private committing = false;
  /** the candidate compiled on demand (eval with ?config=candidate), by session and journal length */
  private candCompiled: { key: string; result: Promise<{ compiled: C; warnings: string[] }> } | null = null;
  private readonly versionDocs = new Map<number, ConfigDoc>();
  private readonly runningListeners: Array<(state: RunningState<C>) => void> = [];

  constructor(
    private readonly store: Store,
    private readonly opts: SessionOptions,
    private readonly log: Logger,
    private readonly compiler: Compiler<C>,
    private readonly commitChecks: (doc: ConfigDoc) => string[],
  ) {}

  /** Loads the running version and rebuilds an active session's candidate from its journal. */
  async init(): Promise<void> {
    const meta = await this.store.runningVersion();
    const doc = await this.versionDoc(meta.version);
    this.setRunning(new RunningState(meta, doc, this.compiler.compile(doc)));
    await this.reloadSession();
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

  private async reloadSession(): Promise<void> {
    this.session = null;
    this.cand = null;
    const state = await this.store.getSession();
    if (!state) return;
    const doc = cloneDoc(await this.versionDoc(state.session.baseVersion));
    for (const entry of state.journal) applyChange(doc, entry.change, await this.contextFor(entry.change));
    this.session = { ...state.session };
    this.cand = { sessionId: state.session.id, seq: state.journal.length, doc };
    this.log.info({ owner: state.session.owner, changes: state.journal.length }, 'session restored');
  }

  private async contextFor(change: Change): Promise<ApplyContext> {
    if (change.op !== 'rollback') return {};
    return { versionDoc: await this.versionDoc(change.version) };
  }

  /** The document of a committed version (404 when there is none); cached, never mutated. */
  async versionDoc(version: number): Promise<ConfigDoc> {
    const cached = this.versionDocs.get(version);
    if (cached) return cached;
    const rec = Number.isSafeInteger(version) ? await this.store.getVersion(version) : undefined;
    if (!rec) throw new FwError('ERR_NET_1003', `version ${version} not found`);
    const doc = parseDoc(rec.doc);
    if (this.versionDocs.size > 32) this.versionDocs.clear();
    this.versionDocs.set(version, doc);
    return doc;
  }

  /** The active session, after ending it if it sat idle past the timeout. */
  private async liveSession(): Promise<SessionRecord | null> {
    const s = this.session;
    if (!s) return null;
    if (Date.now() - s.lastChangeAt <= this.opts.sessionTimeoutSec * 1000 || this.committing) return s;
    await this.endSession(s, 'expired', s.owner);
    return null;
  }

  private async endSession(s: SessionRecord, reason: string, by: string): Promise<void> {
    if (this.session?.id === s.id) {
      this.session = null;
      this.cand = null;
    }
    await this.store.endSession(s.id);
    this.log.info({ owner: s.owner, by, reason }, 'session ended');
    if (reason === 'expired') {
      await this.store.audit({ at: Date.now(), user: s.owner, action: 'session.expire', details: `idle over ${this.opts.sessionTimeoutSec} s`, reqId: '' });
    }
  }

  /** Ends a session that sat idle past the timeout (called by a timer too). */
  async expireIdle(): Promise<void> {
    await this.liveSession();
  }

  async info(): Promise<SessionInfo> {
    const s = await this.liveSession();
    if (!s || !this.cand) return { active: false, owner: null, started_at: null, expires_at: null, changes: 0 };
    return {
      active: true,
      owner: s.owner,
      started_at: new Date(s.startedAt).toISOString(),
      expires_at: new Date(s.lastChangeAt + this.opts.sessionTimeoutSec * 1000).toISOString(),
      changes: this.cand.seq,
    };
  }

  async begin(user: string): Promise<void> {
    const active = await this.liveSession();
    if (active) throw new FwError('ERR_SYS_3002', `owner: ${active.owner}`, 'a configuration session is already active');
    const now = Date.now();
    const rec: SessionRecord = { id: randomUUID(), owner: user, startedAt: now, lastChangeAt: now, baseVersion: this.running.meta.version };
    const existing = await this.store.beginSession(rec);
    if (existing) throw new FwError('ERR_SYS_3002', `owner: ${existing.owner}`, 'a configuration session is already active');
    this.session = { ...rec };
    this.cand = { sessionId: rec.id, seq: 0, doc: cloneDoc(this.running.doc) };
    this.log.info({ owner: user }, 'session started');
  }

  /** The session if `user` owns it; else the contract's 409. */
  private async ownedSession(user: string): Promise<{ s: SessionRecord; cand: Candidate }> {
    const s = await this.liveSession();
    if (!s || !this.cand) throw new FwError('ERR_SYS_3001', 'begin a session with POST /api/config/begin');
    if (s.owner !== user) throw new FwError('ERR_SYS_3002', `owner: ${s.owner}`);
    return { s, cand: this.cand };
  }

  /**
   * 409 while a commit holds the candidate. Called with no await between it and what it
   * guards (applying a change, claiming the commit), so nothing can slip in between.
   */
  private checkNotCommitting(): void {
    if (this.committing) throw new FwError('ERR_SYS_3002', 'a commit of this session is in progress');
  }

  /** Applies one change to the candidate and appends it durably before resolving. */
  async change(user: string, change: Change, ctx: ApplyContext = {}): Promise<ChangeResult> {
    const { s, cand } = await this.ownedSession(user);
    this.checkNotCommitting();
    const result = applyChange(cand.doc, change, ctx); // throws before mutating anything
    const entry: JournalEntry = { seq: cand.seq++, at: Date.now(), user, change };
    s.lastChangeAt = entry.at;
    try {
      await this.store.appendChange(s.id, entry).catch(conflictAsSessionError);
    } catch (e) {
      // the in-memory candidate is ahead of the disk: rebuild it from what is durable
      this.log.error({ err: e }, 'journal append failed; reloading the session');
      await this.reloadSession().catch(() => {
        this.session = null;
        this.cand = null;
      });
      throw e instanceof FwError ? e : new FwError('ERR_SYS_4002', 'the change was not recorded');
    }
    return result;
  }

  async rollback(user: string, version: number): Promise<void> {
    await this.ownedSession(user);
    const versionDoc = await this.versionDoc(version);
    await this.change(user, { op: 'rollback', version }, { versionDoc });
  }

  /** Ends the session (another admin's only with `force`); resolves to the owner it had. */
  async discard(user: string, force: boolean): Promise<string> {
    const s = await this.liveSession();
    if (!s) throw new FwError('ERR_SYS_3001', 'no session to discard');
    if (s.owner !== user && !force) throw new FwError('ERR_SYS_3002', `owner: ${s.owner}`);
    this.checkNotCommitting();
    await this.endSession(s, force && s.owner !== user ? 'force-discarded' : 'discarded', user);
    return s.owner; // the caller audits it with its request id
  }

  /** The candidate of the active session (any admin may read it). */
  async candidate(): Promise<{ doc: ConfigDoc; seq: number; sessionId: string }> {
    await this.liveSession();
    if (!this.cand) throw new FwError('ERR_SYS_3001', 'no active configuration session');
    return this.cand;
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
    return { base_version: this.running.meta.version, ...diffDocs(this.running.doc, doc) };
  }

  /** The commit checks and compile warnings, without committing. */
  async validate(): Promise<{ warnings: string[] }> {
    const { doc } = await this.candidate();
    const problems = this.commitChecks(doc);
    if (problems.length) throw new FwError('ERR_SYS_3003', problems.join('\n'));
    const { warnings } = await this.compileInTime(doc);
    return { warnings };
  }

  async commit(user: string, description: string): Promise<{ version: number; warnings: string[] }> {
    const { s, cand } = await this.ownedSession(user);
    this.checkNotCommitting();
    this.committing = true; // from here to the swap, changes and discards get 409
    try {
      const problems = this.commitChecks(cand.doc);
      if (problems.length) throw new FwError('ERR_SYS_3003', problems.join('\n'));
      const { compiled, warnings } = await this.compileInTime(cand.doc);
      const meta: VersionMeta = {
        version: this.running.meta.version + 1,
        author: user,
        time: Date.now(),
        description,
        summary: diffSummary(diffDocs(this.running.doc, cand.doc)),
      };
      await this.store.commit(s.id, cand.seq, { ...meta, doc: serializeDoc(cand.doc) }).catch(conflictAsSessionError);
      // the candidate document becomes the immutable running version
      this.setRunning(new RunningState(meta, cand.doc, Promise.resolve({ compiled, warnings })));
      this.session = null;
      this.cand = null;
      this.log.info({ version: meta.version, author: user, summary: meta.summary }, 'commit');
      return { version: meta.version, warnings };
    } finally {
      this.committing = false;
    }
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
