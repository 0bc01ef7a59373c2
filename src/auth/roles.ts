// The management plane's roles and what each may do: fixed, few, and enforced in one place
// (the HTTP server checks a route's declared permission before its handler runs). The table
// below is the single source: the router, the OpenAPI document (x-roles), the console and the
// CLI all read it, so a role's rights cannot differ between them.

export const ROLES = ['admin', 'operator', 'auditor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a route needs. Each route names exactly one.
 * - read: configuration (running and candidate), diff, versions, status, nodes, analysis,
 *   packet eval (changes nothing), one's own identity and logout
 * - configure: begin, changes, validate, commit, discard of one's own session, rollback
 * - force: break another user's session
 * - audit: the audit trail and metrics
 * - tokens: one's own API tokens
 * - users: accounts and every user's tokens
 */
export const PERMISSIONS = ['read', 'configure', 'force', 'audit', 'tokens', 'users'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const GRANTS: Readonly<Record<Role, readonly Permission[]>> = Object.freeze({
  admin: PERMISSIONS,
  operator: ['read', 'configure', 'tokens'],
  auditor: ['read', 'audit'],
  viewer: ['read'],
});

/** Whether `role` may do what `permission` names. */
export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** The roles that hold `permission`, strongest first (the OpenAPI document's x-roles). */
export function rolesWith(permission: Permission): Role[] {
  return ROLES.filter((r) => can(r, permission));
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
