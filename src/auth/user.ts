// Who a request is made by, as authentication establishes it: the account, its role now, and
// the credential (a login's JWT, or an API token) it presented.
import { FwError } from '../errors';
import { rolesFor, type PermissionNeed, type Role } from './roles';

export interface AuthUser {
  username: string;
  /** what the request may do: the account's role now (for an API token, the weaker of the
   * token's role and its owner's) */
  role: Role;
  /** the JWT's id, or the API token's hash: what a revocation names */
  jti: string;
  /** the id of the account the credential was made for (UserRecord.id) */
  accountId: string;
  /** the account's credential epoch the credential was made in, which is the account's now */
  epoch: number;
  /** unix seconds; Infinity for an API token without expiry */
  exp: number;
  /** set when an API token was presented */
  apiToken?: ApiTokenUse;
}

/** An API token as requests present it: its last use here (unix ms) and the last one written
 * to the store (ApiTokenUses batches them). */
export interface ApiTokenUse {
  name: string;
  hash: string;
  at: number;
  flushed: number;
}

/** 403 ERR_SEC_5008: what `need` takes (the roles that hold it) and what the caller has. */
export function forbidden(need: PermissionNeed, user: AuthUser, what = ''): FwError {
  const via = user.apiToken ? ` (API token "${user.apiToken.name}")` : '';
  const task = what ? `${what} ` : '';
  return new FwError('ERR_SEC_5008', `${task}needs role ${rolesFor(need).join(' or ')}; your role: ${user.role}${via}`);
}
