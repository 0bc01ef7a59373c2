// Accounts of every role, each with a login JWT and an API token of its role, for the tests
// that try operations as each role. Users with roles below admin cannot make their own tokens
// (no tokens permission): the admin makes tokens of those roles, which act with that role.
import { ROLES, type Role } from '../../src/auth/roles';
import { Client, ok } from './daemon';

export interface RoleClients {
  /** logged in with a password: a JWT */
  jwt: Client;
  /** an API token of the role */
  api: Client;
}

export const PASSWORD = 'role-password-123';
export const userOf = (role: Role) => (role === 'admin' ? 'admin' : `${role}-user`);

/** Creates `<role>-user` accounts and answers a JWT client and an API-token client per role. */
export async function roleClients(admin: Client, url: string): Promise<Record<Role, RoleClients>> {
  const out = {} as Record<Role, RoleClients>;
  for (const role of ROLES) {
    if (role !== 'admin') await ok(admin.post('/api/users', { username: userOf(role), password: PASSWORD, role }));
    const jwt = role === 'admin' ? admin : await new Client(url).login(userOf(role), PASSWORD);
    const maker = role === 'operator' ? jwt : admin;
    const made = await ok(maker.post('/api/tokens', { name: `matrix-${role}`, role }));
    const api = new Client(url);
    api.token = made.body.token;
    out[role] = { jwt, api };
  }
  return out;
}
