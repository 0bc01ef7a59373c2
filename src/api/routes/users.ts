// /api/users: the accounts and their roles. The last admin can be neither deleted nor demoted;
// a role change or deletion applies to the account's next request (its cached tokens are
// forgotten here, and on the other instances through the store's event). Setting a password
// raises the account's credential epoch: its login tokens and API tokens end (src/auth); a
// deletion ends them too (a new account of the name has a new id), and its session.
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { checkName, checkSameKey, shapeChecker } from '../../config/validate';
import { hashPassword, passwordProblem } from '../../auth/passwords';
import { roleOf } from '../../auth/api-tokens';
import { ROLES, isRole, type Role } from '../../auth/roles';
import type { TokenService } from '../../auth/tokens';
import type { AppContext } from '../context';
import { message, type RouteDef } from '../http';
import { IsoTime, MessageReply } from '../schemas';
import { newUser, refusedReplacing } from '../../store/types';
import { oneOf } from '../../config/render/objects';

export const RoleSchema = oneOf(ROLES);
const CreateBody = Type.Object({
  username: Type.String(), password: Type.String(),
  role: Type.Optional(Type.String({ description: `one of ${ROLES.join(', ')}; default viewer (least privilege)` })),
}, { additionalProperties: false });
const UpdateBody = Type.Object({
  username: Type.Optional(Type.String()), password: Type.Optional(Type.String()),
  role: Type.Optional(Type.String({ description: `one of ${ROLES.join(', ')}` })),
}, { additionalProperties: false });
const createShape = shapeChecker(CreateBody);
const updateShape = shapeChecker(UpdateBody);
export const UserModel = Type.Object({ username: Type.String(), role: RoleSchema, created_at: IsoTime }, { additionalProperties: false });

function checkPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem !== null) throw new FwError('ERR_NET_1004', `field "password": ${problem}`);
  return password;
}

/** A role field: one of ROLES, else 400 ERR_NET_1005. */
export function checkRole(value: string): Role {
  if (!isRole(value)) throw new FwError('ERR_NET_1005', `field "role": "${value.slice(0, 64)}" is not one of ${ROLES.join(', ')}`);
  return value;
}

export function userRoutes(ctx: AppContext, tokens: TokenService): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/api/users',
      body: 'none',
      permission: 'audit',
      doc: { tag: 'users', summary: 'List the accounts and their roles', response: Type.Array(UserModel) },
      // in the order every store lists them (sortUsers, checked by the store contract)
      handler: async () => ({
        body: (await ctx.store.listUsers()).map((u) => ({ username: u.username, role: roleOf(u), created_at: new Date(u.createdAt).toISOString() })),
      }),
    },
    {
      method: 'POST',
      pattern: '/api/users',
      permission: 'users',
      doc: { tag: 'users', summary: 'Create an account (role default viewer)', body: CreateBody, response: MessageReply, errors: [409] },
      handler: async (req) => {
        const b = createShape(req.body);
        const username = checkName('username', b.username);
        const password = checkPassword(b.password);
        const role = b.role === undefined ? 'viewer' : checkRole(b.role);
        if (await ctx.store.getUser(username)) throw refusedReplacing('exists', username);
        await ctx.store.putUser(newUser(username, await hashPassword(password), role), null);
        await ctx.audit.record(req, 'user.create', username, { role });
        return message('user created');
      },
    },
    {
      method: 'PUT',
      pattern: '/api/users/:name',
      permission: 'users',
      doc: { tag: 'users', summary: 'Set an account\'s password or role (not the last admin\'s role)', body: UpdateBody, response: MessageReply, errors: [409] },
      handler: async (req) => {
        const name = req.params.name;
        const b = updateShape(req.body);
        checkSameKey('username', b.username, name);
        if (b.password === undefined && b.role === undefined) throw new FwError('ERR_NET_1004', 'give "password", "role" or both');
        const password = b.password === undefined ? undefined : checkPassword(b.password);
        const role = b.role === undefined ? undefined : checkRole(b.role);
        const old = await ctx.store.getUser(name);
        if (!old) throw new FwError('ERR_NET_1003', `user "${name}" not found`);
        const hash = password === undefined ? old.hash : await hashPassword(password);
        // a new password ends every credential of the old one (a reset after a compromise)
        const epoch = password === undefined ? old.epoch : old.epoch + 1;
        if (!(await ctx.store.putUser({ ...old, hash, role: role ?? old.role, epoch }, old))) {
          throw new FwError('ERR_NET_2007', `"${name}" is the last admin: make another account admin first`);
        }
        tokens.forgetUser(name);
        if (password !== undefined) {
          const revoked = await tokens.revokeApiTokensOf(name);
          await ctx.audit.record(req, 'user.password', name, revoked > 0 ? { api_tokens_revoked: revoked } : undefined);
        }
        if (role !== undefined && role !== roleOf(old)) await ctx.audit.record(req, 'user.role', `${name}: ${roleOf(old)} -> ${role}`);
        return message('user updated');
      },
    },
    {
      method: 'DELETE',
      pattern: '/api/users/:name',
      body: 'none',
      permission: 'users',
      doc: { tag: 'users', summary: 'Delete an account and its API tokens (not the last admin)', response: MessageReply, errors: [409] },
      handler: async (req) => {
        const name = req.params.name;
        if (!(await ctx.store.getUser(name))) throw new FwError('ERR_NET_1003', `user "${name}" not found`);
        if (!(await ctx.store.deleteUser(name))) {
          throw new FwError('ERR_NET_2007', `"${name}" is the last admin: make another account admin first`);
        }
        tokens.forgetUser(name);
        await ctx.audit.record(req, 'user.delete', name);
        // its session lock goes with it, not after the idle timeout
        if (await ctx.config.endSessionOf(name, req.user.username)) await ctx.audit.record(req, 'session.force-discard', `owner: ${name} (account deleted)`);
        return message('user deleted');
      },
    },
  ];
}
