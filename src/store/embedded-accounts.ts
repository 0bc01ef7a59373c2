// The embedded store's accounts and confirmations: what meta.json holds besides the running
// version (the JWT secret, users, API tokens, revoked tokens, the confirmed version). Reads
// are served from memory; each change resolves once meta.json holds it (MetaState.persist).
import { expiryMs } from './records';
import type { MetaState } from './meta-state';
import {
  sortApiTokens,
  userOf,
  ADMIN_ROLE,
  refusedReplacing,
  replacingRefusal,
  type ApiTokenRecord,
  type Replacing,
  type StoredUser,
  type UserRecord,
} from './types';

export class EmbeddedAccounts {
  private secretWrite: Promise<string> | null = null;
  /** the automatic revert of an unconfirmed commit in progress (claimRevert) */
  private revertClaim: { version: number; until: number } | null = null;

  constructor(
    private readonly meta: MetaState,
    /** Throws unless the store can serve a call. */
    private readonly check: () => void,
  ) {}

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
}
