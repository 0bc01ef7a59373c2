// The Redis store: the same guarantees as the embedded store, shared by every instance of a
// cluster. Each write that must be atomic is one Lua script (scripts.ts); every key of one
// firewall sits under the hash-tagged prefix fw:{NAME}: so the layout also works on Redis
// Cluster. Instances learn of new versions, revoked tokens and deleted users through the
// firewall's pub/sub channel (bus.ts, the ClusterBus port).
import type Redis from 'ioredis';
import type { SerializedDoc } from '../../config/document';
import {
  StoreConflict, auditRecordOf, isLoginFailure, sortApiTokens, sortUsers, userOf, type ApiTokenRecord, type AuditEntry,
  type AuditEvent, type AuditQuery, type AppendReach, type IdempotencyRecord, type JournalEntry, type StoredAnswer,
  type SessionHead, type SessionRecord, type SessionState, type Store, refusedReplacing, type Replacing, type StoredUser,
  type UserRecord, type VersionMeta, type VersionRecord,
} from '../types';
import { RETENTION_DEFAULTS, expiryMs, initialVersion, metaOf } from '../records';
import { connect, failFastOptions, patientOptions, unreachable, whenReady, type RedisTarget } from './connection';
import { DurableWrites } from './durable-writes';
import { scripted, type Scripted } from './scripts';
import { BULK_BYTES, headSince } from './bulk-lane';
import { keysOf } from './keys';
import { RedisBus } from './bus';
import { RedisFailureLog } from './failure-log';
import { RedisNodeStreams } from './node-streams';
import { RedisSharedWork } from './shared-work';
import type { FailureLog } from '../../auth/login-limiter';
import { conflictReason, entriesOf, journalLine, sessionOf, withLastUse } from './decode';
import { lineDigestSliced } from '../journal-digest';
import { auditCursor, type RedisCall } from './audit-stream';
import { TickBatch } from './tick-batch';
import { RedisVersions } from './redis-versions';
import type { VersionChange, VersionDeltaRecord } from '../version-deltas';
import { mergeAudit } from '../audit-merge';
import { FwError, isFwError } from '../../errors';
import type { ClusterBus, Registry, StoreEvent } from '../cluster-bus';
import { RecordSeal, unsealed, type IgnoredRecord } from './record-seal';

export type { StoreEvent };

/** KEYS a hash; ARGV field, the text read, its replacement: replaced only if still that text. */
const REPLACE_IF_SAME = `if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1`;

export interface RedisStoreOptions {
  /** One server (REDIS_URL) ... */
  url?: string;
  /** ... or wherever settings.redis points (sentinels, password, TLS). */
  target?: RedisTarget;
  /** FW_REDIS_MIN_REPLICAS: replicas that must hold a write before it resolves (0: none; all: every replica the sentinels know). */
  minReplicas?: number | 'all';
  /** FW_CLUSTER_NAME: the firewall's name; its keys are fw:{name}:... */
  clusterName: string;
  /** The idle lease of a session (FW_SESSION_TIMEOUT), kept by Redis. */
  sessionLeaseMs: number;
  /** How long open() waits for Redis at start-up. */
  connectWaitMs?: number;
  /** FW_VERSIONS_KEEP: committed versions kept, the newest (default 100; 0: all). */
  versionsKeep?: number;
  /** Deltas after which a keyframe is written (default version-deltas.ts KEYFRAME_EVERY). */
  keyframeEvery?: number;
  /** FW_AUDIT_KEEP: audit entries kept, the newest, failed logins apart (default 100,000; 0: all). */
  auditKeep?: number;
  /** FW_AUDIT_LOGIN_FAILURES_KEEP: failed-login audit entries kept, the newest (default 10,000; 0: all). */
  auditLoginFailuresKeep?: number;
  /** FW_JWT_SECRET: account and API-token records are sealed with a key derived from it (record-seal.ts). */
  secret: string;
  /** Told what releaseStaleClaim found: 'dropped:<job>' (a claim no job could act on), or why it kept it. */
  onStaleClaim?: (outcome: string) => void;
  /** Told once of each account or token record ignored (no MAC, or a wrong one). */
  onIgnoredRecord?: (r: IgnoredRecord) => void;
}

export class RedisStore implements Store, ClusterBus {
  readonly kind = 'redis' as const;
  /** every instance sharing the server writes the journal */
  readonly soleWriter = false;
  readonly keys: ReturnType<typeof keysOf>;
  /** Commands (fail fast during an outage). */
  readonly redis: Scripted;
  /** acknowledged writes: their connection, the WAIT for replicas, the bulk lane (durable-writes.ts) */
  private readonly writes: DurableWrites;
  /** The firewall's channel, on a connection of its own (a subscriber cannot send commands). */
  private readonly sub: Redis;
  /** the ClusterBus this store answers through */
  private readonly bus: RedisBus;
  /** the committed versions, whole or as deltas (redis-versions.ts) */
  private readonly versions: RedisVersions;
  private readonly auditKeep: number;
  private readonly auditLoginFailuresKeep: number;
  private closed = false;
  /** MACs of account and API-token records (issue 38: Redis writers cannot mint accounts) */
  private readonly seal: RecordSeal;
  readonly trafficStreams: RedisNodeStreams;
  readonly sharedWork: RedisSharedWork;
  /** audit entries recorded in one turn of the event loop go in one script call: [kind, JSON] each */
  private readonly audits = new TickBatch<[string, string]>((entries) => this.call(() => this.redis.fwAudit(
    this.keys.audit, this.keys.auditLoginFailures, this.keys.auditSeq, this.auditKeep, this.auditLoginFailuresKeep, ...entries.flat(),
  )));

  constructor(private readonly opts: RedisStoreOptions) {
    this.keys = keysOf(opts.clusterName);
    this.seal = new RecordSeal(opts.secret, opts.onIgnoredRecord);
    const target = opts.target ?? { url: opts.url };
    this.redis = scripted(connect(failFastOptions(target)));
    this.writes = new DurableWrites(target, opts.minReplicas ?? 0, this.redis, (fn) => this.call(fn));
    this.sub = connect(patientOptions(target));
    this.trafficStreams = new RedisNodeStreams(this.redis, this.keys.traffic, (fn) => this.call(fn));
    this.versions = new RedisVersions(this.redis, this.writes, this.keys, (fn) => this.call(fn), {
      versionsKeep: opts.versionsKeep ?? RETENTION_DEFAULTS.versionsKeep, keyframeEvery: opts.keyframeEvery,
    });
    this.sharedWork = new RedisSharedWork(this.redis, `${this.keys.prefix}shared:`, this.keys.channel, (fn) => this.call(fn));
    this.auditKeep = opts.auditKeep ?? RETENTION_DEFAULTS.auditKeep;
    this.auditLoginFailuresKeep = opts.auditLoginFailuresKeep ?? RETENTION_DEFAULTS.auditLoginFailuresKeep;
    // connection errors are reported where a call fails; without listeners ioredis would print them
    this.redis.on('error', () => undefined);
    this.sub.on('error', () => undefined);
    this.bus = new RedisBus(this.keys, this.redis, this.writes.writer, this.sub, (fn) => this.call(fn));
  }

  /** True while every connection of the store is up (each reconnects on its own). */
  reachable(): boolean {
    return this.redis.status === 'ready' && this.writes.connected();
  }

  // ---- the ClusterBus port: RedisBus ----

  onEvent(listener: (e: StoreEvent) => void): void {
    this.bus.onEvent(listener);
  }

  /** Called after Redis came back from an outage (pub/sub messages may have been missed). */
  onReconnect(listener: () => void): void {
    this.bus.onReconnect(listener);
  }

  publishEvent(body: Record<string, unknown>, keep: number): Promise<number> {
    return this.bus.publishEvent(body, keep);
  }

  eventsAfter(afterId: number, count: number): Promise<{ events: Array<{ id: number } & Record<string, unknown>>; lastId: number }> {
    return this.bus.eventsAfter(afterId, count);
  }

  register(registry: Registry, id: string, registration: string): Promise<void> {
    return this.bus.register(registry, id, registration);
  }

  registrations(registry: Registry): Promise<Record<string, string>> {
    return this.bus.registrations(registry);
  }

  forget(registry: Registry, ids: string[]): Promise<void> {
    return this.bus.forget(registry, ids);
  }

  claimOnce(what: string, by: string, ttlMs: number): Promise<boolean> {
    return this.bus.claimOnce(what, by, ttlMs);
  }

  /** A write the API acknowledges, made durable (durable-writes.ts); every new write method of this store uses it. */
  private durable<T>(write: (r: Scripted) => Promise<T>): Promise<T> {
    return this.writes.durable(write);
  }

  /** A read on the command connection, for the modules that read through the store. */
  private readonly redisCall: RedisCall = (fn) => this.call(() => fn(this.redis));

  /** Runs one Redis call; connection trouble becomes 503 ERR_SYS_4002. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new FwError('ERR_SYS_4002', 'the store is closed');
    try {
      return await fn();
    } catch (e) {
      if (isFwError(e) || (e instanceof Error && e.name === 'StoreConflict')) throw e;
      throw unreachable(e);
    }
  }

  async open(initialDoc: () => SerializedDoc): Promise<void> {
    const wait = this.opts.connectWaitMs ?? 30_000;
    await Promise.all([whenReady(this.redis, wait), whenReady(this.sub, wait)]);
    await this.writes.open(wait);
    await this.bus.subscribe();
    if (await this.redis.exists(this.keys.running)) return;
    const record = initialVersion(initialDoc());
    const k = this.keys;
    await this.redis.fwInit(k.running, k.history, k.version(0), JSON.stringify(record), JSON.stringify(metaOf(record)));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.writes.close();
    this.sub.disconnect();
    this.redis.disconnect();
  }

  // ---- users, secret, revocations ----

  async getOrCreateSecret(generate: () => string): Promise<string> {
    // read first: a restart while no replica is up must not wait for one
    const existing = await this.call(() => this.redis.get(this.keys.secret));
    if (existing) return existing;
    await this.durable((r) => r.set(this.keys.secret, generate(), 'NX'));
    return (await this.call(() => this.redis.get(this.keys.secret)))!;
  }

  /**
   * The JWT secret an older version generated into Redis (`secret`), if still there. No longer
   * used: a cluster's secret comes from FW_JWT_SECRET; anyone who could read Redis knew that one.
   */
  async legacySecret(): Promise<string | null> {
    return this.call(() => this.redis.get(this.keys.secret));
  }

  /** Deletes the secret an older version kept in Redis (npm run adopt-records). */
  async dropLegacySecret(): Promise<void> {
    await this.durable((w) => w.del(this.keys.secret));
  }

  async listUsers(): Promise<UserRecord[]> {
    const all = await this.call(() => this.redis.hgetall(this.keys.users));
    return sortUsers(Object.entries(all).flatMap(([name, t]) => this.openUser(name, t)));
  }

  async getUser(username: string): Promise<UserRecord | undefined> {
    const t = await this.call(() => this.redis.hget(this.keys.users, username));
    return t ? this.openUser(username, t)[0] : undefined;
  }

  /** The account a record holds if this cluster sealed it (else none: ignored and reported). */
  private openUser(name: string, text: string): UserRecord[] {
    const stored = this.seal.open<StoredUser>('user', name, text);
    return stored ? [userOf(stored)] : [];
  }

  /**
   * What the account and API-token hashes hold that this cluster did not seal: records of an
   * older version (`unsealed`: `npm run adopt-records` seals them) and records written by
   * anything without the secret (`forged`). Read at start, to say what to do.
   */
  async recordCheck(): Promise<{ users: number; unsealed: IgnoredRecord[]; forged: IgnoredRecord[] }> {
    const [users, tokens] = await this.call(() => Promise.all([this.redis.hgetall(this.keys.users), this.redis.hgetall(this.keys.apiTokens)]));
    const out = { users: Object.keys(users).length, unsealed: [] as IgnoredRecord[], forged: [] as IgnoredRecord[] };
    const look = (kind: IgnoredRecord['kind'], all: Record<string, string>) => {
      for (const [field, text] of Object.entries(all)) {
        const r = this.seal.check(kind, field, text);
        if ('reason' in r) out[r.reason].push({ kind, field: kind === 'api-token' ? `${field.slice(0, 8)}...` : field, reason: r.reason });
      }
    };
    look('user', users);
    look('api-token', tokens);
    return out;
  }

  /** The records adoptRecords() would seal, with what an admin needs to recognise them. */
  async unsealedRecords(): Promise<Array<{ kind: 'user' | 'api-token'; name: string; role?: string; owner?: string }>> {
    const [users, tokens] = await this.call(() => Promise.all([this.redis.hgetall(this.keys.users), this.redis.hgetall(this.keys.apiTokens)]));
    const out: Array<{ kind: 'user' | 'api-token'; name: string; role?: string; owner?: string }> = [];
    for (const [field, text] of Object.entries(users)) {
      const r = this.seal.check('user', field, text);
      if ('reason' in r && r.reason === 'unsealed') out.push({ kind: 'user', name: field, role: (JSON.parse(text) as StoredUser).role });
    }
    for (const [field, text] of Object.entries(tokens)) {
      const r = this.seal.check('api-token', field, text);
      if (!('reason' in r) || r.reason !== 'unsealed') continue;
      const t = JSON.parse(text) as ApiTokenRecord;
      out.push({ kind: 'api-token', name: String(t.name), role: t.role, owner: t.owner });
    }
    return out;
  }

  /**
   * Seals every account and API-token record that has no MAC (written by a version before
   * issue 38), in place, each only if it is still the text read (a concurrent change wins). Records with a wrong MAC are left alone. Answers how many were sealed.
   */
  async adoptRecords(): Promise<{ users: number; apiTokens: number }> {
    const sealed = { users: 0, apiTokens: 0 };
    for (const [kind, key, count] of [['user', this.keys.users, 'users'], ['api-token', this.keys.apiTokens, 'apiTokens']] as const) {
      const all = await this.call(() => this.redis.hgetall(key));
      for (const [field, text] of Object.entries(all)) {
        const r = this.seal.check(kind, field, text);
        if (!('reason' in r) || r.reason !== 'unsealed') continue;
        const record = JSON.parse(text) as object;
        const replaced = await this.durable((w) => w.eval(REPLACE_IF_SAME, 1, key, field, text, this.seal.seal(kind, field, record)));
        if (replaced === 1) sealed[count]++;
      }
    }
    return sealed;
  }

  async putUser(user: StoredUser, replacing?: Replacing): Promise<boolean> {
    const rec = userOf(user);
    const event: StoreEvent = { type: 'user-changed', username: user.username };
    // what the script checks the stored account against (PUT_USER): nothing, a free name, or an account
    const expect = replacing === undefined ? ['any', '', ''] : replacing === null ? ['new', '', ''] : ['same', replacing.id, String(replacing.createdAt)];
    const r = await this.durable((w) => w.fwPutUser(this.keys.users, user.username, this.seal.seal('user', user.username, rec), rec.role, this.keys.channel, JSON.stringify(event), ...expect));
    if (r === 'exists' || r === 'changed') throw refusedReplacing(r, user.username);
    return r === 1;
  }

  async deleteUser(username: string): Promise<boolean> {
    const k = this.keys;
    const event: StoreEvent = { type: 'user-deleted', username };
    const r = await this.durable((w) => w.fwDeleteUser(k.users, k.apiTokens, k.apiTokenNames, k.apiTokenUsed, username, k.channel, JSON.stringify(event)));
    return r === 1;
  }

  // ---- API tokens ----

  async addApiToken(token: ApiTokenRecord): Promise<boolean> {
    const k = this.keys;
    const rec: ApiTokenRecord = { ...token, lastUsedAt: null }; // last use lives in apiTokenUsed
    const r = await this.durable((w) => w.fwAddApiToken(k.apiTokens, k.apiTokenNames, token.hash, `${token.owner}/${token.name}`, this.seal.seal('api-token', token.hash, rec)));
    return r === 1;
  }

  async getApiToken(hash: string): Promise<ApiTokenRecord | undefined> {
    const [json, used] = await this.call(() => Promise.all([this.redis.hget(this.keys.apiTokens, hash), this.redis.hget(this.keys.apiTokenUsed, hash)]));
    return json ? this.openApiToken(hash, json, used)[0] : undefined;
  }

  /** The token a record holds if this cluster sealed it (else none: ignored and reported). */
  private openApiToken(hash: string, json: string, used: string | null | undefined): ApiTokenRecord[] {
    const record = this.seal.open<ApiTokenRecord>('api-token', hash, json);
    return record ? [withLastUse(JSON.stringify(record), used)] : [];
  }

  async listApiTokens(owner?: string): Promise<ApiTokenRecord[]> {
    const [all, used] = await this.call(() => Promise.all([this.redis.hgetall(this.keys.apiTokens), this.redis.hgetall(this.keys.apiTokenUsed)]));
    const tokens = Object.entries(all).flatMap(([hash, json]) => this.openApiToken(hash, json, used[hash]));
    return sortApiTokens(tokens.filter((t) => owner === undefined || t.owner === owner));
  }

  async deleteApiToken(owner: string, name: string): Promise<ApiTokenRecord | undefined> {
    const k = this.keys;
    const json = await this.durable((w) => w.fwDeleteApiToken(k.apiTokens, k.apiTokenNames, k.apiTokenUsed, `${owner}/${name}`, k.channel));
    return typeof json === 'string' ? withLastUse(unsealed(json), null) : undefined;
  }

  async touchApiTokens(used: ReadonlyMap<string, number>): Promise<void> {
    if (used.size === 0) return;
    const args = [...used].flatMap(([hash, at]) => [hash, at]);
    await this.call(() => this.redis.fwTouchApiTokens(this.keys.apiTokens, this.keys.apiTokenUsed, ...args));
  }

  /** `expiresAt` in unix ms (unix seconds are recognised and scaled); the key expires with the token. */
  async revokeToken(jti: string, expiresAt: number): Promise<void> {
    const exp = expiryMs(expiresAt);
    const ttl = Math.ceil(exp - Date.now());
    if (ttl <= 0) return; // an expired token is refused anyway
    const event: StoreEvent = { type: 'revoked', jti };
    await this.durable((r) => r.fwRevoke(this.keys.revoked(jti), ttl, this.keys.channel, JSON.stringify(event)));
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.call(() => this.redis.exists(this.keys.revoked(jti)))) === 1;
  }

  // ---- versions ----

  /** The newest entry of the history: a commit pushes it and moves the running pointer in one step. */
  async runningVersion(): Promise<VersionMeta> {
    const meta = await this.call(() => this.redis.lindex(this.keys.history, -1));
    if (!meta) throw new FwError('ERR_SYS_4002', 'the Redis store holds no running version');
    return JSON.parse(meta) as VersionMeta;
  }

  getVersion(version: number): Promise<VersionRecord | undefined> {
    return this.versions.get(version);
  }

  versionDelta(version: number): Promise<VersionDeltaRecord | undefined> {
    return this.versions.delta(version);
  }

  async listVersions(): Promise<VersionMeta[]> {
    const all = await this.call(() => this.redis.lrange(this.keys.history, 0, -1));
    return all.map((t) => JSON.parse(t) as VersionMeta);
  }

  /** The version a commit of (sessionId, journalLength) made, if it already happened. */
  async committedVersion(sessionId: string, journalLength: number): Promise<number | undefined> {
    const t = await this.call(() => this.redis.get(this.keys.lastCommit));
    const prefix = `${sessionId}:${journalLength}=`;
    return t?.startsWith(prefix) ? Number(t.slice(prefix.length)) : undefined;
  }

  // ---- the session and its journal ----

  async getSession(): Promise<SessionState | null> {
    const head = await this.sessionHead();
    if (!head) return null;
    const journal = await this.journalSince(head.session.id, 0);
    return journal && { session: head.session, journal };
  }

  async sessionHead(): Promise<SessionHead | null> {
    const k = this.keys;
    const [flat, length] = (await this.call(() => this.redis.fwHead(k.session, k.journal))) as [string[], number];
    const session = sessionOf(flat);
    return session && { session, length };
  }

  async sessionSince(from: number): Promise<{ head: SessionHead; entries: JournalEntry[] } | null> {
    const read = await this.call(() => headSince(this.redis, this.writes.bulk, this.keys, from));
    return read && { head: { session: read.session, length: read.length }, entries: entriesOf(read.lines, from) };
  }

  async journalSince(sessionId: string, from: number): Promise<JournalEntry[] | null> {
    const since = await this.sessionSince(from);
    return since?.head.session.id === sessionId ? since.entries : null;
  }

  async beginSession(session: SessionRecord): Promise<SessionRecord | null> {
    const k = this.keys;
    const r = await this.durable((w) => w.fwBegin(
      k.session, k.journal, k.running, session.id, session.owner, session.startedAt, session.lastChangeAt, session.baseVersion, this.opts.sessionLeaseMs,
    ));
    if (r === 'stale') throw new StoreConflict(`version ${session.baseVersion} is no longer running`, 'session');
    return r === 0 ? null : sessionOf(r as string[]);
  }

  async appendChange(sessionId: string, entry: JournalEntry): Promise<void> {
    await this.appendChanges(sessionId, [entry]);
  }

  async appendChanges(sessionId: string, entries: JournalEntry[], reach?: AppendReach): Promise<number> {
    const k = this.keys;
    // the position is the list's: the stored line has no seq (a group may land past `first`)
    const lines = entries.map(journalLine);
    await markDigests(entries, lines);
    const first = entries[0].seq;
    const at = entries[entries.length - 1].at;
    const keys = reach?.keys ?? null;
    const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
    const append = (w: Scripted) => w.fwAppend(
      k.session, k.journal, k.claim, k.journalWriters, sessionId, first, at, this.opts.sessionLeaseMs,
      reach?.unknownFrom ?? first, reach?.tag ?? '', keys ? keys.length : -1, ...(keys ?? []), ...lines,
    );
    const once = () => (bytes > BULK_BYTES ? this.writes.durableBulk(bytes, append) : this.durable(append));
    let r = await once();
    if (r === 'committing' && (await this.releaseStaleClaim())) r = await once();
    if (typeof r !== 'number') throw new StoreConflict(`cannot append changes ${first}-${first + entries.length - 1} to session ${sessionId}: ${r}`, conflictReason(String(r)));
    return r;
  }

  async endSession(sessionId: string): Promise<boolean> {
    const k = this.keys;
    return (await this.durable((w) => w.fwEnd(k.session, k.journal, k.claim, sessionId))) === 1;
  }

  async claimCommit(sessionId: string, journalLength: number, leaseMs: number): Promise<string> {
    const k = this.keys;
    const claim = () => this.call(() => this.redis.fwClaim(k.session, k.journal, k.claim, sessionId, journalLength, `${sessionId}:${journalLength}`, leaseMs)) as Promise<string | [string, string]>;
    let r = await claim();
    if (r === 'committing' && (await this.releaseStaleClaim())) r = await claim();
    if (typeof r === 'string') throw new StoreConflict(`cannot claim session ${sessionId} for a commit: ${r}`, conflictReason(r));
    return r[1];
  }

  /**
   * Drops the session's commit claim when no commit job can still act on it (scripts.ts
   * RELEASE_STALE): asked when a change or a commit finds the session claimed. True when it
   * was dropped (the caller tries once more).
   */
  async releaseStaleClaim(): Promise<boolean> {
    const k = this.keys;
    const q = k.commitQueue;
    // no WAIT: a drop lost in a failover only brings the stale claim back
    const r = await this.call(() => this.redis.fwReleaseStale(k.claim, `${q}wait`, `${q}paused`, `${q}prioritized`, `${q}delayed`, q));
    this.opts.onStaleClaim?.(String(r));
    return String(r).startsWith('dropped:');
  }

  async releaseCommit(sessionId: string, journalLength: number): Promise<void> {
    await this.call(() => this.redis.fwRelease(this.keys.claim, `${sessionId}:${journalLength}`));
  }

  commit(sessionId: string, journalLength: number, version: VersionRecord, change?: VersionChange): Promise<void> {
    return this.versions.commit(sessionId, journalLength, version, change);
  }

  // ---- commit confirmed ----

  async confirmedVersion(): Promise<number> {
    return Number((await this.call(() => this.redis.get(this.keys.confirmed))) ?? 0);
  }

  async confirmVersion(version: number): Promise<boolean> {
    return (await this.durable((w) => w.fwConfirm(this.keys.confirmed, this.keys.revertClaim, version))) === 'ok';
  }

  async claimRevert(version: number, leaseMs: number): Promise<boolean> {
    return (await this.durable((w) => w.fwClaimRevert(this.keys.confirmed, this.keys.revertClaim, version, leaseMs))) === 'ok';
  }

  async audit(event: AuditEvent): Promise<void> {
    const entry = auditRecordOf(event);
    await this.audits.add([isLoginFailure(entry) ? 'login-failure' : '', JSON.stringify(entry)]);
  }

  /** Both streams (ids "<id>-1") merged, newest first. */
  async listAudit(query: AuditQuery): Promise<AuditEntry[]> {
    return mergeAudit(query, auditCursor(this.redisCall, this.keys.audit, query.before), auditCursor(this.redisCall, this.keys.auditLoginFailures, query.before));
  }

  /**
   * Readiness: the command connection answers and the write connections are up. After Redis
   * came back, the command connection could be ready while the write connection still
   * reconnected, and a login sent to that ready instance answered 503 ("Stream isn't
   * writeable").
   */
  async ping(): Promise<void> {
    await this.call(() => this.redis.ping());
    if (!this.writes.connected()) throw new FwError('ERR_SYS_4002', 'the Redis store is unreachable: a write connection is reconnecting');
  }

  // ---- idempotency keys ----

  async claimIdempotencyKey(scope: string, fingerprint: string, leaseMs: number): Promise<IdempotencyRecord | null> {
    const claim: IdempotencyRecord = { fingerprint, answer: null };
    const held = (await this.call(() => this.redis.fwIdemClaim(this.keys.idempotency(scope), JSON.stringify(claim), leaseMs))) as string | null;
    return held ? (JSON.parse(held) as IdempotencyRecord) : null;
  }

  async saveIdempotentAnswer(scope: string, fingerprint: string, answer: StoredAnswer, ttlMs: number): Promise<void> {
    const rec: IdempotencyRecord = { fingerprint, answer };
    await this.call(() => this.redis.set(this.keys.idempotency(scope), JSON.stringify(rec), 'PX', ttlMs));
  }

  async releaseIdempotencyKey(scope: string, fingerprint: string): Promise<void> {
    const claim: IdempotencyRecord = { fingerprint, answer: null };
    await this.call(() => this.redis.fwIdemRelease(this.keys.idempotency(scope), JSON.stringify(claim)));
  }

  /** The login limiter's failures, kept in Redis and so shared by every instance. */
  failureLog(): FailureLog {
    return new RedisFailureLog(this.redisCall, this.keys);
  }
}

/**
 * Marks entries to append with their lines' digests, for the candidate that holds them once
 * they land (candidate.ts; also after ERR_SYS_4006, which lands them). Refused ones are
 * taken back and never recorded.
 */
async function markDigests(entries: JournalEntry[], lines: string[]): Promise<void> {
  for (let i = 0; i < entries.length; i++) entries[i].digest = await lineDigestSliced(lines[i]);
}
