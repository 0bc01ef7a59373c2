// API tokens for automation: "fwd_" and 32 random bytes (base64url). Only the SHA-256 of the
// whole token is stored, and it is also the token's id. A slow password hash (scrypt) buys
// nothing here: it protects guessable secrets, and 256 random bits are not guessable, so one
// SHA-256 (a microsecond) is as safe and keeps a first use as cheap as a JWT's verification.
import { createHash, randomBytes } from 'node:crypto';
import { FwError } from '../errors';
import type { ApiTokenRecord, Store, UserRecord } from '../store/types';
import { isRole, weakerOf, type Role } from './roles';
import type { ApiTokenUse, AuthUser } from './user';

export const API_TOKEN_PREFIX = 'fwd_';
/** How often the last uses of API tokens are written to the store (a batch, not per request). */
export const LAST_USE_FLUSH_MS = 10_000;
/** Uses remembered for the batch; a flood of distinct tokens past this starts it over. */
const USES_MAX = 100_000;

export function isApiToken(token: string): boolean {
  return token.startsWith(API_TOKEN_PREFIX);
}

export function apiTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * A new token's secret text and the record to store (the secret itself is never stored),
 * bound to the account of the request that makes it (its id and credential epoch).
 */
export function mintApiToken(owner: AuthUser, name: string, role: Role, expiresAt: number | null): { token: string; record: ApiTokenRecord } {
  const token = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const record: ApiTokenRecord = {
    hash: apiTokenHash(token), name, owner: owner.username, role, createdAt: Date.now(), expiresAt, lastUsedAt: null, ownerId: owner.accountId, epoch: owner.epoch,
  };
  return { token, record };
}

/**
 * Refuses a credential made for another account of the name (deleted and created again) or
 * in an earlier credential epoch (the password was set since): 401 ERR_SEC_5003.
 */
export function checkBinding(account: UserRecord, id: string | undefined, epoch: number): void {
  if (id !== account.id) throw new FwError('ERR_SEC_5003', 'the account this token was made for no longer exists');
  if (epoch !== account.epoch) throw new FwError('ERR_SEC_5003', 'the account\'s password was set since this token was made: log in again');
}

/** What a stored role (an account's, a token's) is taken as: an unknown value grants the least. */
export function roleOf(stored: { role?: unknown }): Role {
  return isRole(stored.role) ? stored.role : 'viewer';
}

/** The last use of each API token seen here, written to the store in batches. */
export class ApiTokenUses {
  private readonly uses = new Map<string, ApiTokenUse>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly store: Store) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), LAST_USE_FLUSH_MS);
    this.timer.unref();
  }

  /** The one use record of a token (the same object across re-verifications). */
  of(hash: string, name: string): ApiTokenUse {
    let u = this.uses.get(hash);
    if (u === undefined) {
      if (this.uses.size >= USES_MAX) this.uses.clear();
      this.uses.set(hash, (u = { hash, name, at: 0, flushed: 0 }));
    }
    return u;
  }

  forget(hash: string): void {
    this.uses.delete(hash);
  }

  /** Writes the uses since the last flush (one store call); the next flush waits for this one. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = new Map<string, number>();
      for (const u of this.uses.values()) if (u.at > u.flushed) batch.set(u.hash, u.at);
      if (batch.size === 0) return;
      await this.store.touchApiTokens(batch);
      for (const u of this.uses.values()) if (batch.get(u.hash) === u.at) u.flushed = u.at;
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => undefined);
  }
}

/**
 * The user of an API token: the token must exist and not have expired, its owner's account
 * must be the one it was made for, in the same credential epoch, and the request may do what both the token's role and its owner's role allow now.
 */
export async function apiTokenUser(store: Store, uses: ApiTokenUses, token: string): Promise<AuthUser> {
  const hash = apiTokenHash(token);
  const rec = await store.getApiToken(hash);
  if (!rec) throw new FwError('ERR_SEC_5003', 'API token unknown or revoked');
  if (rec.expiresAt !== null && rec.expiresAt <= Date.now()) throw new FwError('ERR_SEC_5003', 'token expired');
  const owner = await store.getUser(rec.owner);
  if (!owner) throw new FwError('ERR_SEC_5003', 'account no longer exists');
  // a token made before ids existed is its owner's (deleting an account deletes its tokens)
  checkBinding(owner, rec.ownerId ?? owner.id, rec.epoch ?? 0);
  const role = weakerOf(roleOf(rec), roleOf(owner));
  if (role === null) throw new FwError('ERR_SEC_5003', "the token's role and its owner's role have nothing in common");
  const exp = rec.expiresAt === null ? Infinity : rec.expiresAt / 1000;
  return { username: rec.owner, role, jti: hash, exp, accountId: owner.id, epoch: owner.epoch, apiToken: uses.of(hash, rec.name) };
}
