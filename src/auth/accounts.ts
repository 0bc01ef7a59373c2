// The account service: users, API tokens, login and logout, with the rules they keep and the
// audit entries they make. Routes check the shape of a request and call here; each audit
// action of an account is written in one place, by the method that made the change.
//
// Rules: the last admin can be neither deleted nor demoted; a new password raises the
// account's credential epoch, which ends its login tokens and API tokens; a deletion ends
// them too (a new account of the name gets a new id) and the account's configuration session;
// a token's role is at most its creator's and, made with an API token, it expires no later
// than that token. Cached credentials are forgotten here, and on the other instances through
// the store's events.
import { FwError } from '../errors';
import { checkName, checkRange } from '../config/validate';
import { newUser, refusedReplacing, type ApiTokenRecord, type Store, type UserRecord } from '../store/types';
import { dummyHash, hashPassword, passwordProblem, verifyPassword } from './passwords';
import { mintApiToken, roleOf } from './api-tokens';
import { ROLES, can, isRole, within, type Role } from './roles';
import { forbidden, type AuthUser } from './user';
import type { TokenService } from './tokens';
import type { LoginLimiter } from './login-limiter';

/** Who asks: a request's id, client address and user (absent before a login). */
export interface Caller {
  id: string;
  ip: string;
  user: AuthUser;
}

/** The audit trail as the account service writes it (src/api/audit.ts). */
export interface AccountAudit {
  record(caller: { id: string; user?: AuthUser }, action: string, details: string, payload?: unknown, actor?: { username: string; role?: Role }): Promise<void>;
  failedLogin(caller: Pick<Caller, 'id' | 'ip'>, username: string): Promise<void>;
}

/** What the service tells the daemon's metrics and log about logins. */
export interface LoginObserver {
  throttled(): void;
  failed(caller: Pick<Caller, 'id' | 'ip'>, username: string): void;
  succeeded(caller: Pick<Caller, 'id' | 'ip'>, username: string): void;
}

export interface AccountDeps {
  store: Store;
  tokens: TokenService;
  limiter: LoginLimiter;
  audit: AccountAudit;
  logins: LoginObserver;
  /** Ends `owner`'s configuration session when there is one (a deleted account's), for `caller`. */
  endSessionOf: (owner: string, caller: Caller) => Promise<void>;
}

/** The longest lifetime a token may be given: ten years (absent: no expiry). */
export const MAX_TOKEN_LIFETIME_SEC = 10 * 365 * 86400;

/** A password field: 400 ERR_NET_1004 naming what is wrong with it. */
export function checkPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem !== null) throw new FwError('ERR_NET_1004', `field "password": ${problem}`);
  return password;
}

/** A role field: one of ROLES, else 400 ERR_NET_1005. */
export function checkRole(value: string): Role {
  if (!isRole(value)) throw new FwError('ERR_NET_1005', `field "role": "${value.slice(0, 64)}" is not one of ${ROLES.join(', ')}`);
  return value;
}

function lastAdmin(name: string): FwError {
  return new FwError('ERR_NET_2007', `"${name}" is the last admin: make another account admin first`);
}

export class AccountService {
  constructor(private readonly d: AccountDeps) {}

  listUsers(): Promise<UserRecord[]> {
    return this.d.store.listUsers();
  }

  async createUser(caller: Caller, username: string, password: string, role: string | undefined): Promise<void> {
    const name = checkName('username', username);
    checkPassword(password);
    const r = role === undefined ? 'viewer' : checkRole(role);
    if (await this.d.store.getUser(name)) throw refusedReplacing('exists', name);
    await this.d.store.putUser(newUser(name, await hashPassword(password), r), null);
    await this.d.audit.record(caller, 'user.create', name, { role: r });
  }

  async updateUser(caller: Caller, name: string, change: { password?: string; role?: string }): Promise<void> {
    if (change.password === undefined && change.role === undefined) throw new FwError('ERR_NET_1004', 'give "password", "role" or both');
    const password = change.password === undefined ? undefined : checkPassword(change.password);
    const role = change.role === undefined ? undefined : checkRole(change.role);
    const old = await this.d.store.getUser(name);
    if (!old) throw new FwError('ERR_NET_1003', `user "${name}" not found`);
    const hash = password === undefined ? old.hash : await hashPassword(password);
    // a new password ends every credential of the old one (a reset after a compromise)
    const epoch = password === undefined ? old.epoch : old.epoch + 1;
    if (!(await this.d.store.putUser({ ...old, hash, role: role ?? old.role, epoch }, old))) throw lastAdmin(name);
    this.d.tokens.forgetUser(name);
    if (password !== undefined) {
      const revoked = await this.d.tokens.revokeApiTokensOf(name);
      await this.d.audit.record(caller, 'user.password', name, revoked > 0 ? { api_tokens_revoked: revoked } : undefined);
    }
    if (role !== undefined && role !== roleOf(old)) await this.d.audit.record(caller, 'user.role', `${name}: ${roleOf(old)} -> ${role}`);
  }

  async deleteUser(caller: Caller, name: string): Promise<void> {
    if (!(await this.d.store.getUser(name))) throw new FwError('ERR_NET_1003', `user "${name}" not found`);
    if (!(await this.d.store.deleteUser(name))) throw lastAdmin(name);
    this.d.tokens.forgetUser(name);
    await this.d.audit.record(caller, 'user.delete', name);
    // its session lock goes with it, not after the idle timeout
    await this.d.endSessionOf(name, caller);
  }

  /** A new API token of the caller's: its secret (answered this once) and its record. */
  async createToken(caller: Caller, name: string, role: string, expiresInSec: number | undefined): Promise<{ token: string; record: ApiTokenRecord }> {
    const tokenName = checkName('name', name);
    const r = checkRole(role);
    const user = caller.user;
    if (!within(r, user.role)) throw new FwError('ERR_SEC_5008', `a token's role cannot exceed yours: asked ${r}; your role: ${user.role}`);
    const lifetime = expiresInSec === undefined ? null : checkRange('expires_in', expiresInSec, 60, MAX_TOKEN_LIFETIME_SEC);
    // whole seconds, as JWTs and /api/me give expiry
    let expiresAt = lifetime === null ? null : (Math.floor(Date.now() / 1000) + lifetime) * 1000;
    if (user.apiToken && Number.isFinite(user.exp)) expiresAt = Math.min(expiresAt ?? Infinity, user.exp * 1000);
    const minted = mintApiToken(user, tokenName, r, expiresAt);
    if (!(await this.d.store.addApiToken(minted.record))) throw new FwError('ERR_NET_2006', `you already have a token named "${tokenName}"`);
    await this.d.audit.record(caller, 'token.create', `${minted.record.owner}/${tokenName} (${r})`);
    return minted;
  }

  /** Admins and auditors see everyone's tokens; others their own. */
  async listTokens(caller: Caller): Promise<ApiTokenRecord[]> {
    await this.d.tokens.uses.flush(); // this instance's latest uses, not ~10 s old ones
    const everyone = can(caller.user.role, 'users') || can(caller.user.role, 'audit');
    return this.d.store.listApiTokens(everyone ? undefined : caller.user.username);
  }

  /** Revokes `owner`'s token `name` at once (another user's: admins only). */
  async revokeToken(caller: Caller, owner: string, name: string): Promise<void> {
    if (owner !== caller.user.username && !can(caller.user.role, 'users')) throw forbidden('users', caller.user, 'revoking another user\'s token');
    const gone = await this.d.store.deleteApiToken(owner, name);
    if (!gone) throw new FwError('ERR_NET_1003', `${owner} has no token named "${name}"`);
    this.d.tokens.forgetToken(gone.hash);
    await this.tokenRevoked(caller, owner, gone.name);
  }

  /**
   * A login: throttled after too many failures (429 ERR_SEC_5007 with a Retry-After), 401
   * ERR_SEC_5005 for an unknown user or a wrong password (the same answer and about the same
   * time for both), else a login token.
   */
  async login(caller: Pick<Caller, 'id' | 'ip'>, username: string, password: string): Promise<{ token: string; expires_in: number }> {
    // nothing is counted, logged or recorded of a name that no account can have
    const name = checkName('username', username);
    const wait = await this.d.limiter.retryAfter(caller.ip, name);
    if (wait > 0) {
      this.d.logins.throttled();
      throw new FwError('ERR_SEC_5007', `try again in ${wait} s`, undefined, { 'Retry-After': String(wait) });
    }
    const user = await this.d.store.getUser(name);
    const ok = await verifyPassword(password, user?.hash ?? (await dummyHash()));
    if (!user || !ok) {
      await this.d.limiter.recordFailure(caller.ip, name);
      this.d.logins.failed(caller, name);
      await this.d.audit.failedLogin(caller, name);
      throw new FwError('ERR_SEC_5005', 'unknown user or wrong password');
    }
    await this.d.limiter.recordSuccess(caller.ip, name);
    this.d.logins.succeeded(caller, name);
    const role = roleOf(user);
    await this.d.audit.record({ id: caller.id }, 'auth.login', `from ${caller.ip}`, undefined, { username: name, role });
    return this.d.tokens.issue({ ...user, role });
  }

  /** Revokes the caller's credential (an API token: deleted for good). */
  async logout(caller: Caller): Promise<void> {
    await this.d.tokens.revoke(caller.user);
    const api = caller.user.apiToken;
    if (api) await this.tokenRevoked(caller, caller.user.username, api.name);
    else await this.d.audit.record(caller, 'auth.logout', '');
  }

  private tokenRevoked(caller: Caller, owner: string, name: string): Promise<void> {
    return this.d.audit.record(caller, 'token.revoke', `${owner}/${name}`);
  }
}
