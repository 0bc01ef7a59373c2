// The management plane's roles and what each may do: fixed, few, and enforced in one place
// (the HTTP server checks a route's declared permission before its handler runs). The table
// below is the single source: the router, the OpenAPI document (x-roles), the console and the
// CLI all read it, so a role's rights cannot differ between them.

// feeder (issue 40): an automation's role (a fail2ban action's API token) that may only change
// dynamic set entries; last, so that weakerOf's search meets viewer before it
export const ROLES = ['admin', 'operator', 'auditor', 'viewer', 'feeder'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a route needs. Each route names exactly one (or, for a read several roles share for
 * different reasons, a list of which any one suffices: GET /api/tokens).
 * - read: configuration (running and candidate), diff, versions, status, nodes, analysis,
 *   packet eval (changes nothing), one's own identity and logout
 * - configure: begin, changes, validate, commit, discard of one's own session, rollback
 * - force: break another user's session
 * - audit: the audit trail, metrics, the list of accounts and of every user's API tokens
 * - tokens: one's own API tokens
 * - users: accounts and every user's tokens
 * - feed: the entries of dynamic address sets, without a session (issue 40)
 */
export const PERMISSIONS = ['read', 'configure', 'force', 'audit', 'tokens', 'users', 'feed'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What a route declares: one permission, or several of which any one lets the caller in. */
export type PermissionNeed = Permission | readonly Permission[];

export const GRANTS: Readonly<Record<Role, readonly Permission[]>> = Object.freeze({
  admin: PERMISSIONS,
  operator: ['read', 'configure', 'tokens', 'feed'],
  auditor: ['read', 'audit'],
  viewer: ['read'],
  feeder: ['feed'],
});

/** Whether `role` may do what `permission` names. */
export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** Whether `role` meets a route's need (any one of a list). */
export function allows(role: Role, need: PermissionNeed): boolean {
  return typeof need === 'string' ? can(role, need) : need.some((p) => can(role, p));
}

/** The roles that hold `permission`, strongest first (the OpenAPI document's x-roles). */
export function rolesWith(permission: Permission): Role[] {
  return ROLES.filter((r) => can(r, permission));
}

/** The roles that meet a route's need, strongest first. */
export function rolesFor(need: PermissionNeed): Role[] {
  return ROLES.filter((r) => allows(r, need));
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether everything `lower` may do, `upper` may do too (a token's role against its owner's). */
export function within(lower: Role, upper: Role): boolean {
  return GRANTS[lower].every((p) => can(upper, p));
}

/**
 * The strongest role that may do nothing beyond either of two: what an API token may do when
 * its owner's role has changed since it was made (operator and auditor meet at viewer).
 */
export function weakerOf(a: Role, b: Role): Role | null {
  if (within(a, b)) return a;
  if (within(b, a)) return b;
  // viewer at worst when both read; null when they share nothing (a feeder's token whose owner
  // is now a viewer or an auditor: the token may do nothing)
  return ROLES.find((r) => within(r, a) && within(r, b)) ?? null;
}
