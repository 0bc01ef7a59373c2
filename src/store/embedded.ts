// The embedded store: files in FW_DATA_DIR for a single box. All state is kept in memory for
// fast reads; the files are the durable truth, and every promise that reports a change
// resolves only once the change is on disk (fsync'd). Layout, write order and recovery are
// described in docs/store.md.
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import type { SerializedDoc } from '../config/document';
import { stringifyKnown } from '../config/json-pieces';
import { FwError, isFwError } from '../errors';
import { acquireDirLock, type DirLock } from './dir-lock';
import { MetaState } from './meta-state';
import { EmbeddedAccounts } from './embedded-accounts';
import { EmbeddedVersions } from './embedded-versions';
import { activeSession, checkLength, claimHeld, type ActiveSession } from './embedded-session';
import { IdempotencyLog } from './idempotency-log';
import { DIR_MODE, FILE_MODE, GroupAppender, atomicWriteFile, durableUnlink, ensureDurableFile, errCode, fsyncNewDirs } from './files';
import { AuditLog, type AuditBudgets } from './audit-log';
import { RETENTION_DEFAULTS } from './records';
import { dropUncommittedVersions, initializeDataDir, layout, loadMeta, loadSession, removeTmpFiles, type Logger, type Paths } from './recovery';
import type { VersionChange, VersionDeltaRecord } from './version-deltas';
import type { EmbeddedStoreOptions } from './embedded-options';
import {
  StoreConflict,
  type ApiTokenRecord,
  type AppendReach,
  type AuditEntry,
  type AuditEvent,
  type AuditQuery,
  type IdempotencyRecord,
  type JournalEntry,
  type StoredAnswer,
  type SessionRecord,
  type SessionHead,
  type SessionState,
  type Store,
  type Replacing,
  type StoredUser,
  type UserRecord,
  type VersionMeta,
  type VersionRecord,
} from './types';

export type { EmbeddedStoreOptions };

const silent: Logger = { info: () => undefined, warn: () => undefined };

export class EmbeddedStore implements Store {
  readonly kind = 'embedded' as const;
  /** the data folder's lock makes this process the journal's only writer */
  readonly soleWriter = true;
  private readonly paths: Paths;
  private readonly log: Logger;
  private readonly onFailure: (err: Error) => void;
  private state: 'new' | 'opening' | 'open' | 'closing' | 'closed' = 'new';
  private failure: FwError | null = null;
  private lock: DirLock | null = null;

  /** What meta.json holds, or is being written to hold. Users and revocations are read here. */
  private meta!: MetaState;
  /** secret, users, tokens, revocations, confirmation: the rest of meta.json */
  private accounts!: EmbeddedAccounts;

  /** the committed versions: files, history.log, the kept list, the text cache, retention */
  private readonly versions: EmbeddedVersions;

  private session: ActiveSession | null = null;
  /** Session file operations (begin, end, commit), strictly in call order. */
  private fileOps: Promise<unknown> = Promise.resolve();
  private auditLog!: AuditLog;
  private readonly auditBudgets: AuditBudgets;
  private idempotency!: IdempotencyLog;

  constructor(opts: EmbeddedStoreOptions) {
    this.paths = layout(opts.dir);
    this.log = opts.logger ?? silent;
    this.onFailure = opts.onFailure ?? (() => undefined);
    this.versions = new EmbeddedVersions({
      paths: this.paths,
      log: this.log,
      cacheSize: opts.versionCacheSize ?? 8,
      keep: opts.versionsKeep ?? RETENTION_DEFAULTS.versionsKeep,
      keyframeEvery: opts.keyframeEvery,
      fail: (e) => this.fail(e),
    });
    this.auditBudgets = {
      keep: opts.auditKeep ?? RETENTION_DEFAULTS.auditKeep,
      loginFailuresKeep: opts.auditLoginFailuresKeep ?? RETENTION_DEFAULTS.auditLoginFailuresKeep,
    };
  }

  // ---- life cycle ----

  async open(initialDoc: () => SerializedDoc): Promise<void> {
    if (this.state !== 'new') throw new Error('the store can be opened once');
    this.state = 'opening';
    try {
      const made = fs.mkdirSync(this.paths.dir, { recursive: true, mode: DIR_MODE });
      this.lock = acquireDirLock(this.paths.dir);
      if (this.lock.tookOverFrom !== null) {
        this.log.warn({ dir: this.paths.dir, pid: this.lock.tookOverFrom }, 'took over the lock of a daemon that is gone');
      }
      if (made !== undefined) await fsyncNewDirs(this.paths.dir, made);
      await this.recover(initialDoc);
    } catch (e) {
      await this.versions.close();
      await this.auditLog?.close().catch(() => undefined);
      await this.session?.log.close().catch(() => undefined);
      this.lock?.release();
      this.state = 'closed';
      throw e;
    }
    this.state = 'open';
  }

  private async recover(initialDoc: () => SerializedDoc): Promise<void> {
    const p = this.paths;
    await fsp.mkdir(p.versions, { recursive: true, mode: DIR_MODE });
    const tmp = [...(await removeTmpFiles(p.dir)), ...(await removeTmpFiles(p.versions))];
    if (tmp.length) this.log.info({ files: tmp }, 'removed temporary files of an interrupted write');

    const meta = (await loadMeta(p.meta)) ?? (await initializeDataDir(p, initialDoc(), this.log));
    this.meta = new MetaState(p.meta, meta, (e) => this.fail(e));
    this.accounts = new EmbeddedAccounts(this.meta, () => this.check());

    const dropped = await dropUncommittedVersions(p, meta.running);
    if (dropped.length) this.log.warn({ versions: dropped }, 'dropped versions of a commit that did not finish');
    await this.versions.open(meta.running);

    const s = await loadSession(p, meta.lastEndedSession, this.log);
    if (s) {
      this.session = { ...s, log: GroupAppender.open(p.session, (e) => this.fail(e)), committing: false, claim: null };
      this.log.info({ owner: s.record.owner, changes: s.journal.length }, 'recovered the active session');
    }
    await ensureDurableFile(p.history);
    this.auditLog = await AuditLog.open(p.audit, this.auditBudgets, this.log, (e) => this.fail(e));
    this.versions.openHistory();
    this.idempotency = new IdempotencyLog(p.idempotency, (e) => this.fail(e));
    await this.idempotency.open();
    this.log.info({ dir: p.dir, running: meta.running, session: s !== null }, 'embedded store open');
  }

  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closing';
    await this.fileOps.catch(() => undefined);
    await this.meta.idle();
    await this.session?.log.close().catch(() => undefined);
    await this.versions.close();
    await this.auditLog.close().catch(() => undefined);
    await this.idempotency.close().catch(() => undefined);
    this.lock?.release();
    this.state = 'closed';
  }

  reachable(): boolean {
    return this.state === 'open' && !this.failure;
  }

  /** Throws unless the store can serve a call. */
  private check(): void {
    if (this.failure) throw this.failure;
    if (this.state !== 'open') throw new FwError('ERR_SYS_4002', `the store is ${this.state === 'new' ? 'not open' : 'closed'}`);
  }

  /**
   * A write failed: memory may now be ahead of the disk, so the store refuses every later
   * call (503); a restart recovers the durable state. Returns the error to throw.
   */
  private fail(e: unknown): FwError {
    if (isFwError(e) && e.code === 'ERR_SYS_4002') return e;
    if (!this.failure) {
      const reason = e instanceof Error ? e.message : String(e);
      this.failure = new FwError('ERR_SYS_4002', `write to ${this.paths.dir} failed: ${reason}`);
      this.log.warn({ err: reason, dir: this.paths.dir }, 'the store failed a write; restart the daemon to recover');
      this.onFailure(this.failure);
    }
    return this.failure;
  }

  // ---- users, secret, API tokens, revocations, confirmation (meta.json): EmbeddedAccounts ----

  getOrCreateSecret(generate: () => string): Promise<string> {
    return this.accounts.getOrCreateSecret(generate);
  }

  listUsers(): Promise<UserRecord[]> {
    return this.accounts.listUsers();
  }

  getUser(username: string): Promise<UserRecord | undefined> {
    return this.accounts.getUser(username);
  }

  putUser(user: StoredUser, replacing?: Replacing): Promise<boolean> {
    return this.accounts.putUser(user, replacing);
  }

  deleteUser(username: string): Promise<boolean> {
    return this.accounts.deleteUser(username);
  }

  addApiToken(token: ApiTokenRecord): Promise<boolean> {
    return this.accounts.addApiToken(token);
  }

  getApiToken(hash: string): Promise<ApiTokenRecord | undefined> {
    return this.accounts.getApiToken(hash);
  }

  listApiTokens(owner?: string): Promise<ApiTokenRecord[]> {
    return this.accounts.listApiTokens(owner);
  }

  deleteApiToken(owner: string, name: string): Promise<ApiTokenRecord | undefined> {
    return this.accounts.deleteApiToken(owner, name);
  }

  touchApiTokens(used: ReadonlyMap<string, number>): Promise<void> {
    return this.accounts.touchApiTokens(used);
  }

  revokeToken(jti: string, expiresAt: number): Promise<void> {
    return this.accounts.revokeToken(jti, expiresAt);
  }

  isRevoked(jti: string): Promise<boolean> {
    return this.accounts.isRevoked(jti);
  }

  confirmedVersion(): Promise<number> {
    return this.accounts.confirmedVersion();
  }

  confirmVersion(version: number): Promise<boolean> {
    return this.accounts.confirmVersion(version);
  }

  claimRevert(version: number, leaseMs: number): Promise<boolean> {
    return this.accounts.claimRevert(version, leaseMs);
  }

  // ---- versions: EmbeddedVersions ----

  async runningVersion(): Promise<VersionMeta> {
    this.check();
    return { ...this.versions.runningMeta };
  }

  async listVersions(): Promise<VersionMeta[]> {
    this.check();
    return this.versions.list();
  }

  async getVersion(version: number): Promise<VersionRecord | undefined> {
    this.check();
    return this.versions.get(version);
  }

  async versionDelta(version: number): Promise<VersionDeltaRecord | undefined> {
    this.check();
    return this.versions.delta(version);
  }

  // ---- the session and its journal ----

  /** Runs session file operations one after another, in call order. */
  private sessionOp<T>(task: () => Promise<T>): Promise<T> {
    const p = this.fileOps.then(task);
    this.fileOps = p.catch(() => undefined);
    return p;
  }

  async getSession(): Promise<SessionState | null> {
    this.check();
    const s = this.session;
    return s && { session: { ...s.record }, journal: s.journal.slice() };
  }

  async sessionHead(): Promise<SessionHead | null> {
    this.check();
    const s = this.session;
    return s && { session: { ...s.record }, length: s.journal.length };
  }

  async sessionSince(from: number): Promise<{ head: SessionHead; entries: JournalEntry[] } | null> {
    const head = await this.sessionHead();
    return head && { head, entries: this.session!.journal.slice(from) };
  }

  async journalSince(sessionId: string, from: number): Promise<JournalEntry[] | null> {
    this.check();
    const s = this.session;
    return s && s.record.id === sessionId ? s.journal.slice(from) : null;
  }

  async claimCommit(sessionId: string, journalLength: number, leaseMs: number): Promise<null> {
    const claimer = `${sessionId}:${journalLength}`;
    this.check();
    const s = activeSession(this.session, sessionId);
    if (claimHeld(s) && s.claim?.by !== claimer) throw new StoreConflict(`session ${sessionId} is being committed`, 'committing');
    checkLength(s, journalLength);
    s.claim = { by: claimer, until: Date.now() + leaseMs };
    return null;
  }

  async releaseCommit(sessionId: string, journalLength: number): Promise<void> {
    this.check();
    const s = this.session;
    if (s && s.record.id === sessionId && s.claim?.by === `${sessionId}:${journalLength}`) s.claim = null;
  }

  async beginSession(session: SessionRecord): Promise<SessionRecord | null> {
    this.check();
    if (this.session) return { ...this.session.record };
    const record: SessionRecord = { ...session };
    const line = JSON.stringify(record) + '\n';
    const handle = this.sessionOp(async () => {
      await atomicWriteFile(this.paths.session, line);
      return fsp.open(this.paths.session, 'a', FILE_MODE);
    });
    this.session = { record, journal: [], log: new GroupAppender(handle, (e) => this.fail(e)), committing: false, claim: null };
    try {
      await handle;
    } catch (e) {
      throw this.fail(e);
    }
    return null;
  }

  async appendChange(sessionId: string, entry: JournalEntry): Promise<void> {
    this.check();
    const s = activeSession(this.session, sessionId);
    if (claimHeld(s)) throw new StoreConflict(`session ${sessionId} is being committed`, 'committing');
    if (entry.seq !== s.journal.length) {
      throw new StoreConflict(`session ${sessionId} has ${s.journal.length} changes; cannot append change ${entry.seq}`, 'length');
    }
    const e: JournalEntry = { seq: entry.seq, at: entry.at, user: entry.user, change: entry.change };
    // a loaded document is written as the text it was parsed from (json-pieces.ts), not serialized again
    const line = stringifyKnown(e) + '\n'; // may throw: then nothing was accepted
    s.journal.push(e);
    s.record.lastChangeAt = entry.at;
    try {
      await s.log.append(line);
    } catch (err) {
      throw this.fail(err);
    }
  }

  /**
   * This process is the journal's only writer: nothing it has not seen can lie before the
   * entries, so `reach` never matters. Each is checked when called, as appendChange does, so
   * the first refused means all are (they are consecutive), and they share the group fsync.
   */
  async appendChanges(sessionId: string, entries: JournalEntry[], _reach?: AppendReach): Promise<number> {
    await Promise.all(entries.map((e) => this.appendChange(sessionId, e)));
    return entries[0]?.seq ?? (await this.sessionHead())?.length ?? 0;
  }

  async endSession(sessionId: string): Promise<boolean> {
    this.check();
    const s = this.session;
    if (!s || s.record.id !== sessionId || claimHeld(s)) return false;
    this.session = null;
    try {
      await this.sessionOp(async () => {
        await s.log.close(); // appends accepted before the end are durable first
        await durableUnlink(this.paths.session);
      });
    } catch (e) {
      throw this.fail(e);
    }
    return true;
  }

  async commit(sessionId: string, journalLength: number, version: VersionRecord, change?: VersionChange): Promise<void> {
    this.check();
    const s = activeSession(this.session, sessionId);
    if (s.committing) throw new StoreConflict(`session ${sessionId} is already being committed`, 'committing');
    checkLength(s, journalLength);
    const n = version.version;
    const running = this.versions.runningMeta.version;
    if (n !== running + 1) {
      throw new StoreConflict(`version ${n} does not follow the running version ${running}`, 'session');
    }
    const written = this.versions.prepare(version, change); // a snapshot: the caller may reuse its objects
    s.committing = true;
    try {
      await this.sessionOp(async () => {
        await s.log.close(); // every accepted change is durable before the commit point
        await this.versions.write(written);
        this.meta.running = n;
        this.meta.lastEndedSession = sessionId;
        await this.meta.persist(); // the commit point: the rename of meta.json
        this.versions.switchTo(written);
        this.session = null;
        // not needed for correctness: open() removes a log whose session the commit ended
        await fsp.unlink(this.paths.session).catch((e: unknown) => {
          if (errCode(e) !== 'ENOENT') this.log.warn({ err: String(e) }, 'could not remove the session log');
        });
      });
    } catch (e) {
      throw this.fail(e);
    }
    // after the answer: a keyframe when one is due, the files of the versions no longer kept
    this.sessionOp(() => this.versions.afterCommit(written)).catch((e: unknown) => this.fail(e));
  }

  async audit(event: AuditEvent): Promise<void> {
    this.check();
    try {
      await this.auditLog.append(event);
    } catch (e) {
      throw this.fail(e);
    }
  }

  async listAudit(query: AuditQuery): Promise<AuditEntry[]> {
    this.check();
    return this.auditLog.list(query);
  }

  async ping(): Promise<void> {
    this.check();
  }

  // ---- idempotency keys ----

  async claimIdempotencyKey(scope: string, fingerprint: string, leaseMs: number): Promise<IdempotencyRecord | null> {
    this.check();
    return this.idempotency.claim(scope, fingerprint, leaseMs);
  }

  async saveIdempotentAnswer(scope: string, fingerprint: string, answer: StoredAnswer, ttlMs: number): Promise<void> {
    this.check();
    try {
      await this.idempotency.save(scope, fingerprint, answer, ttlMs);
    } catch (e) {
      throw this.fail(e);
    }
  }

  async releaseIdempotencyKey(scope: string, fingerprint: string): Promise<void> {
    this.check();
    this.idempotency.release(scope, fingerprint);
  }
}
