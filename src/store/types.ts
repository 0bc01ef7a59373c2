// The store: one interface, two implementations (embedded files in FW_DATA_DIR; Redis).
// It keeps what must survive a crash: users, the JWT secret, revoked tokens, the committed
// versions with the running pointer, and the active session with its journal of changes.
// It knows nothing of HTTP and nothing of what a change means (src/config does).
import { createHash, randomUUID } from 'node:crypto';
import { FwError } from '../errors';
import type { SerializedDoc } from '../config/document';
import type { Change } from '../config/changes';
import { plainText, plainValue } from './plain-text';
import type { VersionChange, VersionDeltaRecord } from './version-deltas';

/** The role that may do everything: the store keeps at least one account of it. */
export const ADMIN_ROLE = 'admin';

export interface UserRecord {
  username: string;
  hash: string; // "scrypt$N$r$p$saltB64$hashB64"
  createdAt: number; // unix ms
  /** one of src/auth/roles.ts's ROLES (the store only knows ADMIN_ROLE); an account stored
   * before roles existed reads as ADMIN_ROLE (userOf) */
  role: string;
  /**
   * The account's id: new at each creation and never reused, so that a credential of a
   * deleted account is refused by an account created again with its name. Tokens carry it.
   */
  id: string;
  /**
   * The credential epoch: raised when the password is set, which ends every credential the
   * account had (login tokens and API tokens carry the epoch they were made in).
   */
  epoch: number;
}

/** A user as stored by an older daemon: before roles (no role), before ids and epochs. */
export type StoredUser = Omit<UserRecord, 'role' | 'id' | 'epoch'> & { role?: string; id?: string; epoch?: number };

/** A user as stored read as one now: every account stored before roles was an admin; one
 * stored before ids gets one from its name and creation time (the same on every instance and
 * at every start, so its tokens keep working), at epoch 0. */
export function userOf(stored: StoredUser): UserRecord {
  return {
    username: stored.username, hash: stored.hash, createdAt: stored.createdAt, role: stored.role ?? ADMIN_ROLE,
    id: stored.id ?? legacyAccountId(stored), epoch: stored.epoch ?? 0,
  };
}

/** The id of an account created before ids existed: no account created since has one of this form. */
function legacyAccountId(u: { username: string; createdAt: number }): string {
  return `legacy-${createHash('sha256').update(`${u.createdAt}\n${u.username}`).digest('base64url').slice(0, 22)}`;
}

/** Which account a write may replace: the one read before (its id, or for a record of an older
 * daemon its creation time), or none (null: the name must be free). */
export type Replacing = Pick<UserRecord, 'id' | 'createdAt'> | null;

/** Why a user write is refused: the name was taken meanwhile, or the account read before is
 * gone (deleted, perhaps created again): an old account's id must never come back over a new one's. */
export type ReplacingRefusal = 'exists' | 'changed';

/** Whether `stored` (what the name holds now) is what a write `replacing` expects. */
export function replacingRefusal(stored: StoredUser | undefined, replacing: Replacing): ReplacingRefusal | null {
  if (replacing === null) return stored ? 'exists' : null;
  if (!stored) return 'changed';
  const same = stored.id !== undefined ? stored.id === replacing.id : stored.createdAt === replacing.createdAt;
  return same ? null : 'changed';
}

/** The refusal as the API answers it: 409 ERR_NET_2006, or 404 ERR_NET_1003. */
export function refusedReplacing(why: ReplacingRefusal, username: string): FwError {
  return why === 'exists'
    ? new FwError('ERR_NET_2006', `user "${username}" already exists`)
    : new FwError('ERR_NET_1003', `user "${username}" was deleted or created again meanwhile`);
}

/** A new account: a new id, epoch 0. */
export function newUser(username: string, hash: string, role: string): UserRecord {
  return { username, hash, createdAt: Date.now(), role, id: randomUUID(), epoch: 0 };
}

/**
 * An API token as stored: never its secret, only the secret's SHA-256 (hex), which is also its
 * id. Names are unique per owner.
 */
export interface ApiTokenRecord {
  hash: string;
  name: string;
  owner: string;
  /** what it may do at most (one of ROLES); its owner's role caps it when lower */
  role: string;
  createdAt: number; // unix ms
  expiresAt: number | null; // unix ms; null: no expiry
  /** unix ms, recorded in batches (TokenService): up to a flush interval behind */
  lastUsedAt: number | null;
  /** the id of the owner's account it was made for (absent: made before ids, bound to the
   * owner's account at the upgrade, which its deletion deletes it with) */
  ownerId?: string;
  /** the owner's credential epoch it was made in (absent: 0) */
  epoch?: number;
}

export interface VersionMeta {
  version: number; // 0 = the initial configuration of a new store
  author: string;
  time: number; // unix ms
  description: string;
  summary: string; // change summary, e.g. "2 added, 1 changed, 0 deleted"
  /**
   * A commit confirmed: the time (unix ms) by which POST /api/config/confirm (or a later
   * commit) must keep this version, else the daemon restores the version before it.
   */
  confirmBy?: number;
}

export interface VersionRecord extends VersionMeta {
  doc: SerializedDoc;
}

export interface SessionRecord {
  id: string; // random, unique per session
  owner: string;
  startedAt: number; // unix ms
  lastChangeAt: number; // unix ms; idle expiry counts from here
  baseVersion: number; // running version the candidate starts from
}

/**
 * What a group of changes depends on, for an append that need not wait for other instances'
 * entries (src/config/footprint.ts): the footprint keys of the group (null: anything), the
 * first journal position the instance may lack, and the instance's tag (its own entries past
 * that position are not unseen).
 */
export interface AppendReach {
  keys: string[] | null;
  unknownFrom: number;
  tag: string;
}

export interface JournalEntry {
  seq: number; // 0, 1, 2, ... within the session: the entry's position in the journal
  at: number; // unix ms
  user: string;
  change: Change;
  /**
   * A shared store's digest of the stored line (journal-digest.ts): set on entries it reads
   * and on entries it appended. Never stored, never part of an answer.
   */
  digest?: string;
}

export interface AuditEvent {
  at: number;
  /** the account that acted (or that a failed login named) */
  user: string;
  /** the role the request had; absent where no account acted (failed login, session expiry) */
  role?: string;
  /** the name of the API token the request presented, if it did */
  token?: string;
  action: string; // e.g. "session.force-discard", "user.delete"
  details: string;
  /** the X-Request-Id of the request that did it; "" for the daemon's own (session expiry) */
  reqId?: string;
  /** the request body of a change, when there was one (never a password) */
  payload?: unknown;
}

/** A recorded event with its number: 1, 2, 3, ... in the order recorded. */
export interface AuditEntry extends AuditEvent {
  id: number;
}

export interface AuditQuery {
  /** at most this many entries */
  limit: number;
  /** only entries with a smaller id (the next page after a page ending at that id) */
  before?: number;
  /** only this user's entries */
  user?: string;
  /** only this action, or the actions under it: "session" matches "session.begin" */
  action?: string;
}

/** The answer of a request made with an Idempotency-Key, as it is replayed. */
export interface StoredAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/**
 * What the store holds for one Idempotency-Key of one user: the fingerprint of the request
 * that used it first, and its answer once it has one (null while that request runs).
 */
export interface IdempotencyRecord {
  fingerprint: string;
  answer: StoredAnswer | null;
}

export interface SessionState {
  session: SessionRecord;
  journal: JournalEntry[];
}

/** The active session and how many changes its journal holds: all a writer checks against. */
export interface SessionHead {
  session: SessionRecord;
  length: number;
}

/**
 * Why a compare-and-set failed: the session is gone or another one is active ('session'), a
 * commit has claimed it ('committing'), or its journal has another length ('length': someone
 * else appended first; rebuild the candidate and try again).
 */
export type ConflictReason = 'session' | 'committing' | 'length';

/** Thrown (by name, not instanceof) when a compare-and-set on the session fails. */
export class StoreConflict extends Error {
  constructor(message: string, readonly reason: ConflictReason = 'session') {
    super(message);
    this.name = 'StoreConflict';
  }
}

/**
 * The session's journal (the candidate is the base version plus its changes): begun, appended
 * to with a compare-and-set on its length, ended, claimed for a commit and committed. Both
 * stores implement all of it; what differs is said by `soleWriter`, not by which store it is.
 */
export interface SessionJournal {
  /**
   * True when this process is the journal's only writer (the embedded store holds its data
   * folder's lock): a candidate built from what this process appended is never behind the
   * journal, and no other process can begin a session. False when other processes share it.
   */
  readonly soleWriter: boolean;

  /** The active session and its whole journal, or null. */
  getSession(): Promise<SessionState | null>;
  /** The active session and its journal length, or null: one cheap read. */
  sessionHead(): Promise<SessionHead | null>;
  /**
   * The head and the journal entries from `from` on, read together (one round trip on a
   * shared store); the entries belong to the session of the head.
   */
  sessionSince(from: number): Promise<{ head: SessionHead; entries: JournalEntry[] } | null>;
  /** The journal entries of `sessionId` from index `from` on; null unless it is active. */
  journalSince(sessionId: string, from: number): Promise<JournalEntry[] | null>;
  /**
   * Starts a session if none is active. Returns null on success, or the active session
   * (nothing changed) when one already exists. Throws StoreConflict when
   * `session.baseVersion` is no longer the running version.
   */
  beginSession(session: SessionRecord): Promise<SessionRecord | null>;
  /**
   * Appends one change, durably, before resolving. Throws StoreConflict unless the session
   * `sessionId` is active and its journal has exactly `entry.seq` entries. Also moves the
   * session's lastChangeAt to entry.at.
   */
  appendChange(sessionId: string, entry: JournalEntry): Promise<void>;
  /**
   * Appends consecutive changes of one instance in one step, all or none: a shared store's
   * group append. Without `reach`, exactly as appendChange checks them (the journal has
   * `entries[0].seq` entries); with it, they may land after entries the instance has not
   * seen when none of those touched `reach.keys` (see AppendReach). Resolves to the position
   * of the first. Throws StoreConflict when refused (nothing appended); any other error
   * leaves it unknown whether they were appended (ERR_SYS_4006: they were, but not confirmed
   * by enough replicas; the error's `written` is the position).
   */
  appendChanges(sessionId: string, entries: JournalEntry[], reach?: AppendReach): Promise<number>;
  /**
   * Ends the session (discard or expiry). False when that session is not the active one or a
   * commit has claimed it.
   */
  endSession(sessionId: string): Promise<boolean>;
  /**
   * Claims the session for the commit of its first `journalLength` changes: from here until
   * commit() or releaseCommit(), appends and endSession are refused in every process that
   * shares the store. Throws StoreConflict unless `sessionId` is active with exactly
   * `journalLength` entries and not claimed by another commit (the same session and length
   * may claim again: a commit job retried after its worker died takes its claim over). A claim
   * neither committed nor released lapses after `leaseMs`.
   *
   * Resolves to the digest of the claimed journal (journal-digest.ts) on a shared store, where
   * a commit compares it with its cached candidate's; null on a sole writer's (its cache is
   * the journal).
   */
  claimCommit(sessionId: string, journalLength: number, leaseMs: number): Promise<string | null>;
  /** Drops that commit's claim (its checks failed); no-op when it does not hold one. */
  releaseCommit(sessionId: string, journalLength: number): Promise<void>;
  /**
   * Atomically: records `version` (its number must be running + 1), makes it running and
   * ends the session. Throws StoreConflict unless `sessionId` is active, its journal has
   * exactly `journalLength` entries and the running version is `version.version - 1`.
   * A crash at any moment leaves either the old state or the new one.
   *
   * With `change` (the delta from the running version, made on it: version-deltas.ts), the
   * store records the delta instead of the whole document when `change.base` is the running
   * commit, and writes a keyframe (the whole document) after the answer when one is due; the
   * version reads back whole all the same. `version.doc` must then stay unmutated (the
   * pipeline's documents are immutable once committed): the keyframe serializes it later.
   */
  commit(sessionId: string, journalLength: number, version: VersionRecord, change?: VersionChange): Promise<void>;
}

export interface Store extends SessionJournal {
  readonly kind: 'embedded' | 'redis';

  /** Opens the store; on a new one, writes version 0 from `initialDoc`. */
  open(initialDoc: () => SerializedDoc): Promise<void>;
  close(): Promise<void>;
  /** Whether the store can serve calls now (false during a Redis outage or after a failed write). */
  reachable(): boolean;

  /** The JWT secret kept in the store; `generate` makes one on first use. */
  getOrCreateSecret(generate: () => string): Promise<string>;

  /** The accounts, each with an id and epoch (userOf: the records of older daemons too). */
  listUsers(): Promise<UserRecord[]>;
  getUser(username: string): Promise<UserRecord | undefined>;
  /**
   * Creates or replaces a user, atomically unless that would leave no account of ADMIN_ROLE
   * (the last admin demoted): false then, and nothing changed. With `replacing`, only if the
   * name still holds that account (null: only if the name is free); else refusedReplacing's
   * FwError, nothing changed. Every instance sharing the store
   * is told (the Redis store's 'user-changed' event), so a new role applies to the user's next
   * request anywhere.
   */
  putUser(user: StoredUser, replacing?: Replacing): Promise<boolean>;
  /**
   * Deletes a user and every API token it owns, atomically, unless it is the last account of
   * ADMIN_ROLE: false then (nothing changed). True when deleted or when there is no such user.
   * Every instance is told, as for putUser.
   */
  deleteUser(username: string): Promise<boolean>;

  /** Records a new API token; false (nothing changed) when its owner has one of that name. */
  addApiToken(token: ApiTokenRecord): Promise<boolean>;
  /** The token whose secret has this SHA-256 (hex). */
  getApiToken(hash: string): Promise<ApiTokenRecord | undefined>;
  /** Every API token, or one owner's; by owner, then name. */
  listApiTokens(owner?: string): Promise<ApiTokenRecord[]>;
  /**
   * Deletes an owner's token by name and tells every instance (a revocation of its hash);
   * the deleted record, or undefined when there was none.
   */
  deleteApiToken(owner: string, name: string): Promise<ApiTokenRecord | undefined>;
  /** Records when tokens were last used (hash -> unix ms), one write for the batch; tokens
   * deleted meanwhile are skipped. */
  touchApiTokens(used: ReadonlyMap<string, number>): Promise<void>;

  revokeToken(jti: string, expiresAt: number): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;

  runningVersion(): Promise<VersionMeta>;
  getVersion(version: number): Promise<VersionRecord | undefined>;
  /**
   * A version as the delta it was committed as (undefined: stored whole, or not kept): what
   * an instance holding the version before it applies instead of reading the whole document.
   */
  versionDelta(version: number): Promise<VersionDeltaRecord | undefined>;
  listVersions(): Promise<VersionMeta[]>;


  /** The last version recorded as confirmed (confirmVersion); 0 when none ever was. */
  confirmedVersion(): Promise<number>;
  /**
   * Records that the commit confirmed of `version` is confirmed, durably. False (nothing
   * recorded) when its automatic revert has been claimed (claimRevert) and may be under way.
   */
  confirmVersion(version: number): Promise<boolean>;
  /**
   * Claims the automatic revert of the unconfirmed `version` for `leaseMs`, in every process
   * that shares the store. False when it was confirmed, or another live claim holds it (an
   * instance that dies mid-revert lets its claim lapse, and another takes it over).
   */
  claimRevert(version: number, leaseMs: number): Promise<boolean>;

  /** Records an event durably before resolving; it gets the next id. */
  audit(event: AuditEvent): Promise<void>;
  /** The recorded events that match `query`, newest (highest id) first. */
  listAudit(query: AuditQuery): Promise<AuditEntry[]>;

  /**
   * Claims the idempotency key `scope` (user and key) for a request with `fingerprint`: null
   * when this call claimed it (the claim lapses after `leaseMs` unless an answer is saved),
   * else what the key already holds (nothing changed). Atomic across every instance.
   */
  claimIdempotencyKey(scope: string, fingerprint: string, leaseMs: number): Promise<IdempotencyRecord | null>;
  /** Stores the answer of the claim's request, kept `ttlMs`. */
  saveIdempotentAnswer(scope: string, fingerprint: string, answer: StoredAnswer, ttlMs: number): Promise<void>;
  /** Drops a claim without an answer (the request failed in a way a retry may fix). */
  releaseIdempotencyKey(scope: string, fingerprint: string): Promise<void>;

  /** Resolves when the store can serve calls; rejects (FwError ERR_SYS_4002) when it cannot. Cheap: /readyz calls it. */
  ping(): Promise<void>;
}

/** Whether an entry matches the user and action filters of a query (one rule for every store). */
export function auditMatches(e: Pick<AuditEvent, 'user' | 'action'>, q: AuditQuery): boolean {
  if (q.user !== undefined && e.user !== q.user) return false;
  return actionMatches(e.action, q);
}

/** Whether the action filter of a query lets `action` through. */
export function actionMatches(action: string, q: AuditQuery): boolean {
  return q.action === undefined || action === q.action || action.startsWith(`${q.action}.`);
}

/** The action of every failed-login entry, the aggregated ones too (src/api/failed-logins.ts). */
export const LOGIN_FAILED_ACTION = 'auth.login-failed';

/** Whether an event is a failed login: those are kept within a budget of their own
 * (FW_AUDIT_LOGIN_FAILURES_KEEP) and never count against FW_AUDIT_KEEP, so that no flood of
 * them can push configuration and account changes out of the trail. */
export function isLoginFailure(e: AuditEvent): boolean {
  return e.action === LOGIN_FAILED_ACTION;
}

/** An event as both stores record it: its fields in one order, the optional ones only when
 * set, every text without control and bidi formatting characters (plainText). */
export function auditRecordOf(event: AuditEvent): AuditEvent {
  const entry: AuditEvent = { at: event.at, user: plainText(event.user), action: event.action, details: plainText(event.details), reqId: plainText(event.reqId ?? '') };
  if (event.role !== undefined) entry.role = event.role;
  if (event.token !== undefined) entry.token = plainText(event.token);
  if (event.payload !== undefined) entry.payload = plainValue(event.payload);
  return entry;
}

/** Users in the order every store lists them: by name, in code unit order (never the
 * locale's: two instances with other locales, or the two stores, must list alike). */
export function sortUsers(users: UserRecord[]): UserRecord[] {
  return users.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
}

/** API tokens in the order every store lists them: by owner, then name. */
export function sortApiTokens(tokens: ApiTokenRecord[]): ApiTokenRecord[] {
  return tokens.sort((a, b) => (a.owner === b.owner ? (a.name < b.name ? -1 : 1) : a.owner < b.owner ? -1 : 1));
}
