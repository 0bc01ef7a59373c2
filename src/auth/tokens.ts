// Bearer tokens: HS256 JWTs of a login (sub, role, jti, uid, ep, iat, exp) and API tokens ("fwd_...",
// src/auth/api-tokens.ts). The JWT secret is a KeyObject (a string secret costs ~30x more per
// verify with jsonwebtoken 9), and verified tokens of both kinds are cached until they expire,
// are revoked, or their user is changed or deleted: on the hot path an API token costs what a
// JWT costs, a comparison with a recent header.
import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { FwError } from '../errors';
import type { Store, UserRecord } from '../store/types';
import type { Role } from './roles';
import type { AuthUser } from './user';
import { ApiTokenUses, apiTokenUser, checkBinding, isApiToken, roleOf } from './api-tokens';

/** RFC 7235 2.1: the scheme is case-insensitive, and one or more spaces separate it from the token. */
const BEARER = /^bearer +([A-Za-z0-9._~+/-]+=*)$/i;
const CACHE_MAX = 100_000;
const RECENT = 4;

export class TokenService {
  private readonly key: KeyObject;
  /** verified tokens by the Authorization header that carries them */
  private readonly cache = new Map<string, AuthUser>();
  /** the last RECENT headers and their users, as (header, user) pairs: see recentUser */
  private readonly recent: Array<string | AuthUser | undefined> = new Array(RECENT * 2).fill(undefined);
  private recentNext = 0;
  /**
   * Counts the forgets: a verification that read the store before a forget (a role change, a
   * revocation told by another instance) and finishes after it does not cache its stale user.
   */
  private epoch = 0;
  /** the last uses of API tokens, written in batches */
  readonly uses: ApiTokenUses;
  /** told after every forget: holders of long-lived requests (event streams) check theirs again */
  private readonly forgetListeners: Array<() => void> = [];

  constructor(secret: string, private readonly ttlSec: number, private readonly store: Store) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
    this.uses = new ApiTokenUses(store);
  }

  /**
   * A login's JWT. Its role claim says what the account had at login; requests get the
   * account's role at the time (a role change applies to tokens already issued). It names the
   * account (uid) and its credential epoch (ep): the account deleted, or its password set, the
   * token is refused.
   */
  issue(user: Pick<UserRecord, 'username' | 'id' | 'epoch'> & { role: Role }): { token: string; expires_in: number } {
    try {
      const token = jwt.sign({ sub: user.username, role: user.role, jti: randomUUID(), uid: user.id, ep: user.epoch }, this.key, {
        algorithm: 'HS256',
        expiresIn: this.ttlSec,
      });
      return { token, expires_in: this.ttlSec };
    } catch (e) {
      throw new FwError('ERR_SEC_5006', (e as Error).message);
    }
  }

  /**
   * The user of a bearer header: at once for a token verified before (the cache holds only
   * tokens that passed the format check, so a hit needs no other), else after the signature
   * (JWT) or the stored hash (API token), revocation and account checks.
   */
  authenticate(header: string): AuthUser | Promise<AuthUser> {
    const cached = this.recentUser(header) ?? this.rememberFound(header);
    if (cached) {
      const now = Date.now();
      if (cached.exp > now / 1000) {
        if (cached.apiToken !== undefined) cached.apiToken.at = now; // batched: ApiTokenUses
        return cached;
      }
      this.cache.delete(header);
      this.forgetRecent();
      throw new FwError('ERR_SEC_5003', 'token expired');
    }
    if (!header) throw new FwError('ERR_SEC_5001', 'send Authorization: Bearer <token>');
    const m = BEARER.exec(header);
    if (!m) throw new FwError('ERR_SEC_5002', 'expected Authorization: Bearer <token>');
    return this.check(header, m[1]);
  }

  /**
   * The user of a header seen in the last few requests. A token is ~200 characters, and the
   * string uWS gives is new each request: hashing it for the Map costs more than the rest of
   * a cached read, comparing it with a few recent headers (equal length, then memcmp) far less.
   */
  private recentUser(header: string): AuthUser | undefined {
    const r = this.recent;
    for (let i = 0; i < r.length; i += 2) if (r[i] === header) return r[i + 1] as AuthUser;
    return undefined;
  }

  /** The cached user of a header not seen lately, now put among the recent ones. */
  private rememberFound(header: string): AuthUser | undefined {
    const user = this.cache.get(header);
    if (user) {
      this.recent[this.recentNext] = header;
      this.recent[this.recentNext + 1] = user;
      this.recentNext = (this.recentNext + 2) % this.recent.length;
    }
    return user;
  }

  /**
   * The user of a bearer header verified afresh against the store (signature, revocation,
   * account), not from the cache: what an event stream is checked with now and then, in case
   * a revocation was never told (a cluster message lost). The cache is refreshed with it.
   */
  async reverify(header: string): Promise<AuthUser> {
    this.cache.delete(header);
    this.forgetRecent();
    return this.authenticate(header);
  }

  /** Calls `listener` after each forget (a revocation, a changed or deleted account, an outage). */
  onForget(listener: () => void): void {
    this.forgetListeners.push(listener);
  }

  private async check(header: string, token: string): Promise<AuthUser> {
    const epoch = this.epoch;
    const user = isApiToken(token) ? await apiTokenUser(this.store, this.uses, token) : await this.jwtUser(token);
    if (user.apiToken) user.apiToken.at = Date.now();
    if (epoch !== this.epoch) return user; // answered, not cached: something was forgotten meanwhile
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(header, user);
    return user;
  }

  /** A login's user: a valid signature, not revoked, the account it was issued for still
   * there in the same credential epoch (with its role now). */
  private async jwtUser(token: string): Promise<AuthUser> {
    const claims = this.verify(token);
    if (await this.store.isRevoked(claims.jti)) throw new FwError('ERR_SEC_5003', 'token revoked');
    const account = await this.store.getUser(claims.sub);
    if (!account) throw new FwError('ERR_SEC_5003', 'account no longer exists');
    // a token of a daemon before ids (no uid) is refused: its user logs in again
    checkBinding(account, claims.uid, claims.ep);
    return { username: claims.sub, role: roleOf(account), jti: claims.jti, exp: claims.exp, accountId: account.id, epoch: account.epoch };
  }

  private verify(token: string): { sub: string; jti: string; exp: number; uid?: string; ep: number } {
    let claims: jwt.JwtPayload;
    try {
      claims = jwt.verify(token, this.key, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    } catch (e) {
      const expired = (e as Error).name === 'TokenExpiredError';
      throw new FwError('ERR_SEC_5003', expired ? 'token expired' : 'token signature or format is invalid');
    }
    if (typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.exp !== 'number') {
      throw new FwError('ERR_SEC_5003', 'token claims are incomplete');
    }
    const uid = typeof claims.uid === 'string' ? claims.uid : undefined;
    return { sub: claims.sub, jti: claims.jti, exp: claims.exp, uid, ep: typeof claims.ep === 'number' ? claims.ep : -1 };
  }

  /** Revokes the token of a request: a login's JWT until it expires, an API token for good. */
  async revoke(user: AuthUser): Promise<void> {
    if (user.apiToken) await this.store.deleteApiToken(user.username, user.apiToken.name);
    else await this.store.revokeToken(user.jti, user.exp * 1000);
    this.forgetToken(user.jti);
  }

  /**
   * Deletes every API token of an account whose credentials were reset (its password set):
   * they are refused already (their epoch is older), and this takes them out of the lists.
   * The number deleted.
   */
  async revokeApiTokensOf(username: string): Promise<number> {
    let n = 0;
    for (const t of await this.store.listApiTokens(username)) {
      const gone = await this.store.deleteApiToken(username, t.name);
      if (gone) {
        this.forgetToken(gone.hash);
        n++;
      }
    }
    return n;
  }

  /** Drops a revoked token from the cache (here, or told by another instance): a JWT's jti
   * or an API token's hash. */
  forgetToken(jti: string): void {
    this.epoch++;
    for (const [token, u] of this.cache) if (u.jti === jti) this.cache.delete(token);
    this.uses.forget(jti);
    this.forgotten();
  }

  /** After a forget: the recent headers dropped, the listeners told. */
  private forgotten(): void {
    this.forgetRecent();
    for (const l of this.forgetListeners) l();
  }

  private forgetRecent(): void {
    this.recent.fill(undefined);
  }

  /** Forgets every verified token: after an outage, revocations may have been missed. */
  forgetAll(): void {
    this.epoch++;
    this.cache.clear();
    this.forgotten();
  }

  /** Drops the cached tokens of a changed or deleted account: its next request is verified
   * again, with its role now (or refused: no account). */
  forgetUser(username: string): void {
    this.epoch++;
    for (const [token, u] of this.cache) if (u.username === username) this.cache.delete(token);
    this.forgotten();
  }

  async close(): Promise<void> {
    await this.uses.close();
  }
}
