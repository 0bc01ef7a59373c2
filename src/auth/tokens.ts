// Bearer tokens: HS256 JWTs with sub, role, jti, iat, exp. The secret is a KeyObject (a
// string secret costs ~30x more per verify with jsonwebtoken 9), and verified tokens are
// cached until they expire, are revoked, or their user is deleted.
import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { FwError } from '../errors';
import type { Store } from '../store/types';
import type { AuthUser } from '../api/http';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;
const CACHE_MAX = 100_000;
const RECENT = 4;

export class TokenService {
  private readonly key: KeyObject;
  /** verified tokens by the Authorization header that carries them */
  private readonly cache = new Map<string, AuthUser>();
  /** the last RECENT headers and their users, as (header, user) pairs: see recentUser */
  private readonly recent: Array<string | AuthUser | undefined> = new Array(RECENT * 2).fill(undefined);
  private recentNext = 0;

  constructor(secret: string, private readonly ttlSec: number, private readonly store: Store) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  issue(username: string): { token: string; expires_in: number } {
    try {
      const token = jwt.sign({ sub: username, role: 'admin', jti: randomUUID() }, this.key, {
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
   * tokens that passed the format check, so a hit needs no other), else after the signature,
   * revocation and account checks.
   */
  authenticate(header: string): AuthUser | Promise<AuthUser> {
    const cached = this.recentUser(header) ?? this.rememberFound(header);
    if (cached) {
      if (cached.exp > Date.now() / 1000) return cached;
      this.cache.delete(header);
      this.forgetRecent();
      throw new FwError('ERR_SEC_5003', 'token expired');
    }
    if (!header) throw new FwError('ERR_SEC_5001', 'send Authorization: Bearer <token>');
    const m = BEARER.exec(header);
    if (!m) throw new FwError('ERR_SEC_5002', 'expected Authorization: Bearer <token>');
    return this.check(m[1]);
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

  private async check(token: string): Promise<AuthUser> {
    const user = this.verify(token);
    if (await this.store.isRevoked(user.jti)) throw new FwError('ERR_SEC_5003', 'token revoked');
    if (!(await this.store.getUser(user.username))) throw new FwError('ERR_SEC_5003', 'account no longer exists');
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(`Bearer ${token}`, user); // the header a valid token arrives in (BEARER)
    return user;
  }

  private verify(token: string): AuthUser {
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
    return { username: claims.sub, role: 'admin', jti: claims.jti, exp: claims.exp };
  }

  async revoke(user: AuthUser): Promise<void> {
    await this.store.revokeToken(user.jti, user.exp * 1000);
    this.forgetToken(user.jti);
  }

  /** Drops a revoked token from the cache (here, or told by another instance). */
  forgetToken(jti: string): void {
    for (const [token, u] of this.cache) if (u.jti === jti) this.cache.delete(token);
    this.forgetRecent();
  }

  private forgetRecent(): void {
    this.recent.fill(undefined);
  }

  /** Forgets every verified token: after an outage, revocations may have been missed. */
  forgetAll(): void {
    this.cache.clear();
    this.forgetRecent();
  }

  /** Drops the cached tokens of a deleted account; its tokens then fail the user check. */
  forgetUser(username: string): void {
    for (const [token, u] of this.cache) if (u.username === username) this.cache.delete(token);
    this.forgetRecent();
  }
}
