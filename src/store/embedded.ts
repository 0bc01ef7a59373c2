// The embedded store: files in FW_DATA_DIR for a single box. All state is kept in memory for
// fast reads; the files are the durable truth, and every promise that reports a change
// resolves only once the change is on disk (fsync'd). Layout, write order and recovery are
// described in docs/store.md.
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { SerializedDoc } from '../config/document';
import { FwError, isFwError } from '../errors';
import { acquireDirLock, type DirLock } from './dir-lock';
import { MetaState } from './meta-state';
import { Lru } from '../lru';
import { IdempotencyLog } from './idempotency-log';
import { DIR_MODE, FILE_MODE, GroupAppender, atomicWriteFile, durableUnlink, ensureDurableFile, errCode, fsyncDir, replaceAppendLog } from './files';
import { AuditLog, type AuditBudgets } from './audit-log';
import { RETENTION_DEFAULTS, expiryMs, initialVersion, metaOf } from './records';
import {
  dropUncommittedVersions,
  historyText,
  layout,
  loadHistory,
  loadMeta,
  loadSession,
  newMeta,
  removeTmpFiles,
  versionFiles,
  type Logger,
  type MetaFile,
  type Paths,
} from './recovery';
import {
  StoreConflict,
  sortApiTokens,
  userOf,
  ADMIN_ROLE,
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
  refusedReplacing,
  replacingRefusal,
  type Replacing,
  type StoredUser,
  type UserRecord,
  type VersionMeta,
  type VersionRecord,
} from './types';

export interface EmbeddedStoreOptions {
  dir: string;
  logger?: Logger;
  /** Version documents kept in memory besides the running one (default 8). */
  versionCacheSize?: number;
  /** FW_VERSIONS_KEEP: committed versions kept, the newest (default 100; 0: all). */
  versionsKeep?: number;
  /** FW_AUDIT_KEEP: audit entries kept, the newest, failed logins apart (default 100,000; 0: all). */
  auditKeep?: number;
  /** FW_AUDIT_LOGIN_FAILURES_KEEP: failed-login audit entries kept, the newest (default 10,000; 0: all). */
  auditLoginFailuresKeep?: number;
  /** Told once when a write fails and the store stops serving (e.g. to exit for a restart). */
  onFailure?: (err: Error) => void;
}

interface ActiveSession {
  record: SessionRecord;
  /** Accepted entries; an entry is visible as soon as its append is accepted. */
  journal: JournalEntry[];
  log: GroupAppender;
  committing: boolean;
  /** A commit's claim (claimCommit): who holds it and until when (unix ms). */
  claim: { by: string; until: number } | null;
}

function claimHeld(s: ActiveSession): boolean {
  return s.committing || (s.claim !== null && s.claim.until > Date.now());
}

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
  private secretWrite: Promise<string> | null = null;
  /** the automatic revert of an unconfirmed commit in progress (claimRevert) */
  private revertClaim: { version: number; until: number } | null = null;

  /** The running version as readers see it: switched once a commit is durable. */
  private running!: VersionMeta;
  /** The kept versions, oldest first; the running one is the last. */
  private metas: VersionMeta[] = [];
  /** The lowest version whose file may still exist (pruning deletes from here up). */
  private lowestFile = 0;
  /** Lines in history.log (it is rewritten with the kept versions once it holds twice as many). */
  private historyLines = 0;
  /** Version file texts, least recently used out first; the running version's always stays. */
  private readonly versionCache: Lru<number, Promise<string>>;

  private session: ActiveSession | null = null;
  /** Session file operations (begin, end, commit), strictly in call order. */
  private fileOps: Promise<unknown> = Promise.resolve();
  private history!: GroupAppender;
  private auditLog!: AuditLog;
  private readonly versionsKeep: number;
  private readonly auditBudgets: AuditBudgets;
  private idempotency!: IdempotencyLog;

  constructor(opts: EmbeddedStoreOptions) {
    this.paths = layout(opts.dir);
    this.log = opts.logger ?? silent;
    this.versionCache = new Lru(opts.versionCacheSize ?? 8, (n) => n === this.running?.version);
    this.onFailure = opts.onFailure ?? (() => undefined);
    this.versionsKeep = opts.versionsKeep ?? RETENTION_DEFAULTS.versionsKeep;
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
      if (made !== undefined) await this.syncNewDirs(made);
      await this.recover(initialDoc);
    } catch (e) {
      await this.history?.close().catch(() => undefined);
      await this.auditLog?.close().catch(() => undefined);
      await this.session?.log.close().catch(() => undefined);
      this.lock?.release();
      this.state = 'closed';
      throw e;
    }
    this.state = 'open';
  }

  /** Makes directories just created durable: fsync of each new one's parent. */
  private async syncNewDirs(firstMade: string): Promise<void> {
    let d = path.resolve(this.paths.dir);
    const top = path.resolve(firstMade);
    for (;;) {
      await fsyncDir(path.dirname(d));
      if (d === top || path.dirname(d) === d) break;
      d = path.dirname(d);
    }
  }

  private async recover(initialDoc: () => SerializedDoc): Promise<void> {
    const p = this.paths;
    await fsp.mkdir(p.versions, { recursive: true, mode: DIR_MODE });
    const tmp = [...(await removeTmpFiles(p.dir)), ...(await removeTmpFiles(p.versions))];
    if (tmp.length) this.log.info({ files: tmp }, 'removed temporary files of an interrupted write');

    const meta = (await loadMeta(p.meta)) ?? (await this.initialize(initialDoc));
    this.meta = new MetaState(p.meta, meta, (e) => this.fail(e));

    const dropped = await dropUncommittedVersions(p, meta.running);
    if (dropped.length) this.log.warn({ versions: dropped }, 'dropped versions of a commit that did not finish');
    // pruning deletes the oldest files first: the lowest file left is the oldest kept version
    this.lowestFile = (await versionFiles(p))[0] ?? meta.running;
    this.metas = await loadHistory(p, this.lowestFile, meta.running, this.log);
    this.historyLines = this.metas.length;
    this.running = this.metas[this.metas.length - 1];
    await this.versionText(meta.running); // the running document must be readable now

    const s = await loadSession(p, meta.lastEndedSession, this.log);
    if (s) {
      this.session = { ...s, log: GroupAppender.open(p.session, (e) => this.fail(e)), committing: false, claim: null };
      this.log.info({ owner: s.record.owner, changes: s.journal.length }, 'recovered the active session');
    }
    await ensureDurableFile(p.history);
    this.auditLog = await AuditLog.open(p.audit, this.auditBudgets, this.log, (e) => this.fail(e));
    this.history = GroupAppender.open(p.history, (e) => this.fail(e));
    this.idempotency = new IdempotencyLog(p.idempotency, (e) => this.fail(e));
    await this.idempotency.open();
    this.log.info({ dir: p.dir, running: meta.running, session: s !== null }, 'embedded store open');
  }

  /** A new data directory: version 0, then meta.json (written last: it marks the store as made). */
  private async initialize(initialDoc: () => SerializedDoc): Promise<MetaFile> {
    const p = this.paths;
    const leftovers = (await versionFiles(p)).filter((n) => n !== 0);
    if (leftovers.length) {
      throw new Error(`${p.dir} holds committed versions but no meta.json; refusing to start (restore meta.json from a backup)`);
    }
    const rec = initialVersion(initialDoc());
    await atomicWriteFile(p.version(0), JSON.stringify(rec));
    await atomicWriteFile(p.history, JSON.stringify(metaOf(rec)) + '\n');
    await fsp.rm(p.session, { force: true });
    const meta = newMeta();
    await atomicWriteFile(p.meta, JSON.stringify(meta));
    this.log.info({ dir: p.dir }, 'initialized a new data directory');
    return meta;
  }

  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closing';
    await this.fileOps.catch(() => undefined);
    await this.meta.idle();
    await this.session?.log.close().catch(() => undefined);
    await this.history.close().catch(() => undefined);
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

  // ---- users, secret, revocations (meta.json) ----

  async getOrCreateSecret(generate: () => string): Promise<string> {
    this.check();
    if (this.secretWrite) return this.secretWrite;
    if (this.meta.secret !== null) return this.meta.secret;
    const secret = generate();
    this.meta.secret = secret;
    this.secretWrite = this.meta.persist().then(() => secret);
    return this.secretWrite;
  }

  async listUsers(): Promise<UserRecord[]> {
    this.check();
    return this.meta.sortedUsers();
  }

  async getUser(username: string): Promise<UserRecord | undefined> {
    this.check();
    const u = this.meta.users.get(username);
    return u && { ...u };
  }

  async putUser(user: StoredUser, replacing?: Replacing): Promise<boolean> {
    this.check();
    const refusal = replacing === undefined ? null : replacingRefusal(this.meta.users.get(user.username), replacing);
    if (refusal) throw refusedReplacing(refusal, user.username);
    if (user.role !== ADMIN_ROLE && this.meta.isLastAdmin(user.username)) return false;
    this.meta.users.set(user.username, userOf(user));
    await this.meta.persist();
    return true;
  }

  async deleteUser(username: string): Promise<boolean> {
    this.check();
    if (!this.meta.users.has(username)) return true;
    if (this.meta.isLastAdmin(username)) return false;
    this.meta.users.delete(username);
    for (const t of [...this.meta.apiTokens.values()]) if (t.owner === username) this.meta.apiTokens.delete(t.hash);
    await this.meta.persist();
    return true;
  }

  // ---- API tokens (meta.json) ----

  async addApiToken(token: ApiTokenRecord): Promise<boolean> {
    this.check();
    if (this.meta.apiTokenNamed(token.owner, token.name)) return false;
    this.meta.apiTokens.set(token.hash, { ...token });
    await this.meta.persist();
    return true;
  }

  async getApiToken(hash: string): Promise<ApiTokenRecord | undefined> {
    this.check();
    const t = this.meta.apiTokens.get(hash);
    return t && { ...t };
  }

  async listApiTokens(owner?: string): Promise<ApiTokenRecord[]> {
    this.check();
    const all = [...this.meta.apiTokens.values()].filter((t) => owner === undefined || t.owner === owner);
    return sortApiTokens(all.map((t) => ({ ...t })));
  }

  async deleteApiToken(owner: string, name: string): Promise<ApiTokenRecord | undefined> {
    this.check();
    const t = this.meta.apiTokenNamed(owner, name);
    if (!t) return undefined;
    this.meta.apiTokens.delete(t.hash);
    await this.meta.persist();
    return { ...t };
  }

  async touchApiTokens(used: ReadonlyMap<string, number>): Promise<void> {
    this.check();
    let changed = false;
    for (const [hash, at] of used) {
      const t = this.meta.apiTokens.get(hash);
      if (t && (t.lastUsedAt ?? 0) < at) {
        t.lastUsedAt = at;
        changed = true;
      }
    }
    if (changed) await this.meta.persist();
  }

  /** `expiresAt` in unix ms (unix seconds are recognised and scaled). */
  async revokeToken(jti: string, expiresAt: number): Promise<void> {
    this.check();
    const exp = expiryMs(expiresAt);
    if (exp < Date.now()) return; // an expired token is refused anyway: nothing to keep
    this.meta.revoked.set(jti, exp);
    await this.meta.persist();
  }

  async isRevoked(jti: string): Promise<boolean> {
    this.check();
    return this.meta.revoked.has(jti);
  }

  // ---- commit confirmed ----

  async confirmedVersion(): Promise<number> {
    this.check();
    return this.meta.confirmed;
  }

  async confirmVersion(version: number): Promise<boolean> {
    this.check();
    const r = this.revertClaim;
    if (r && r.version === version && r.until > Date.now()) return false;
    this.meta.confirmed = Math.max(this.meta.confirmed, version);
    await this.meta.persist();
    return true;
  }

  /** One process holds the data folder: the claim lives in memory (a restart may revert again). */
  async claimRevert(version: number, leaseMs: number): Promise<boolean> {
    this.check();
    const now = Date.now();
    if (this.meta.confirmed >= version) return false;
    const r = this.revertClaim;
    if (r && r.version === version && r.until > now) return false;
    this.revertClaim = { version, until: now + leaseMs };
    return true;
  }

  // ---- versions ----

  async runningVersion(): Promise<VersionMeta> {
    this.check();
    return { ...this.running };
  }

  async listVersions(): Promise<VersionMeta[]> {
    this.check();
    return this.metas.map((m) => ({ ...m }));
  }

  /** A fresh copy of a committed version each call (callers may mutate it). */
  async getVersion(version: number): Promise<VersionRecord | undefined> {
    this.check();
    if (!this.kept(version)) return undefined;
    let text: string;
    try {
      text = await this.versionText(version);
    } catch (e) {
      if (!this.kept(version)) return undefined; // pruned while it was being read: as if not found
      throw e;
    }
    return JSON.parse(text) as VersionRecord;
  }

  /** Whether `version` is one of the kept versions (not pruned, not above running). */
  private kept(version: number): boolean {
    return Number.isSafeInteger(version) && version >= this.metas[0].version && version <= this.running.version;
  }

  /** The JSON of a version file, from a small LRU cache (the running version always stays). */
  private versionText(n: number): Promise<string> {
    let text = this.versionCache.get(n);
    if (!text) {
      text = fsp.readFile(this.paths.version(n), 'utf8');
      text.catch(() => this.versionCache.delete(n));
      text = text.catch((e: unknown) => {
        throw new FwError('ERR_SYS_4002', `version ${n} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
      });
      this.versionCache.set(n, text);
    }
    return text;
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

  async claimCommit(sessionId: string, journalLength: number, leaseMs: number): Promise<void> {
    const claimer = `${sessionId}:${journalLength}`;
    this.check();
    const s = this.session;
    if (!s || s.record.id !== sessionId) throw new StoreConflict(`session ${sessionId} is not active`, 'session');
    if (claimHeld(s) && s.claim?.by !== claimer) throw new StoreConflict(`session ${sessionId} is being committed`, 'committing');
    if (s.journal.length !== journalLength) {
      throw new StoreConflict(`session ${sessionId} has ${s.journal.length} changes, not ${journalLength}`, 'length');
    }
    s.claim = { by: claimer, until: Date.now() + leaseMs };
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
    const s = this.session;
    if (!s || s.record.id !== sessionId) throw new StoreConflict(`session ${sessionId} is not active`, 'session');
    if (claimHeld(s)) throw new StoreConflict(`session ${sessionId} is being committed`, 'committing');
    if (entry.seq !== s.journal.length) {
      throw new StoreConflict(`session ${sessionId} has ${s.journal.length} changes; cannot append change ${entry.seq}`, 'length');
    }
    const e: JournalEntry = { seq: entry.seq, at: entry.at, user: entry.user, change: entry.change };
    const line = JSON.stringify(e) + '\n'; // may throw: then nothing was accepted
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

  async commit(sessionId: string, journalLength: number, version: VersionRecord): Promise<void> {
    this.check();
    const s = this.session;
    if (!s || s.record.id !== sessionId) throw new StoreConflict(`session ${sessionId} is not active`, 'session');
    if (s.committing) throw new StoreConflict(`session ${sessionId} is already being committed`, 'committing');
    if (s.journal.length !== journalLength) {
      throw new StoreConflict(`session ${sessionId} has ${s.journal.length} changes, not ${journalLength}`, 'length');
    }
    const n = version.version;
    if (n !== this.running.version + 1) {
      throw new StoreConflict(`version ${n} does not follow the running version ${this.running.version}`, 'session');
    }
    const text = JSON.stringify(version); // a snapshot: the caller may reuse its objects
    const meta = metaOf(version);
    s.committing = true;
    try {
      await this.sessionOp(async () => {
        await s.log.close(); // every accepted change is durable before the commit point
        await atomicWriteFile(this.paths.version(n), text);
        await this.history.append(JSON.stringify(meta) + '\n');
        this.meta.running = n;
        this.meta.lastEndedSession = sessionId;
        await this.meta.persist(); // the commit point: the rename of meta.json
        this.running = meta;
        this.metas.push(meta);
        this.historyLines++;
        this.versionCache.set(n, Promise.resolve(text)); // evicts the previous running version's text when it is not recent
        this.forgetPrunedVersions();
        this.session = null;
        // not needed for correctness: open() removes a log whose session the commit ended
        await fsp.unlink(this.paths.session).catch((e: unknown) => {
          if (errCode(e) !== 'ENOENT') this.log.warn({ err: String(e) }, 'could not remove the session log');
        });
      });
    } catch (e) {
      throw this.fail(e);
    }
    // after the answer: the files of the versions no longer kept
    this.sessionOp(() => this.deletePrunedFiles()).catch((e: unknown) => this.fail(e));
  }

  /**
   * Retention, in memory (synchronously at the commit point's switch): the versions older than
   * the newest `versionsKeep` stop being listed and read (getVersion answers undefined, 404)
   * before any of their files is deleted, so no reader ever sees half a version.
   */
  private forgetPrunedVersions(): void {
    if (this.versionsKeep === 0 || this.metas.length <= this.versionsKeep) return;
    this.metas = this.metas.slice(-this.versionsKeep);
    const oldest = this.metas[0].version;
    this.versionCache.deleteWhere((n) => n < oldest);
  }

  /**
   * Retention, on disk (a session file operation of its own, after the commit): the files of
   * pruned versions, oldest first (a crash leaves the kept versions contiguous), and
   * history.log rewritten with the kept versions once it holds twice as many lines. A file
   * that cannot be deleted is tried again after the next commit.
   */
  private async deletePrunedFiles(): Promise<void> {
    const oldest = this.metas[0].version;
    if (this.lowestFile >= oldest) return;
    for (; this.lowestFile < oldest; this.lowestFile++) {
      try {
        await fsp.rm(this.paths.version(this.lowestFile), { force: true });
      } catch (e) {
        this.log.warn({ err: String(e), version: this.lowestFile }, 'could not delete a pruned version file');
        return;
      }
    }
    await fsyncDir(this.paths.versions);
    if (this.historyLines < 2 * this.metas.length) return;
    const { appender, done } = replaceAppendLog(this.history, this.paths.history, () => historyText(this.metas), (e) => this.fail(e));
    this.history = appender;
    await done;
    this.historyLines = this.metas.length;
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
