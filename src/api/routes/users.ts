// /api/users: the accounts and their roles, over the account service (src/auth/accounts.ts),
// which keeps the rules (the last admin, a new password ending every credential, a deleted
// account's session ended) and writes the audit entries.
import { Type } from '@sinclair/typebox';
import { checkSameKey, shapeChecker } from '../../config/validate';
import { roleOf } from '../../auth/api-tokens';
import { ROLES } from '../../auth/roles';
import { checked } from '../../config/validate';
import type { AppContext } from '../context';
import { message, type RouteDef } from '../http';
import { IsoTime, MessageReply } from '../schemas';
import { oneOf } from '../../config/render/objects';

export const RoleSchema = oneOf(ROLES);
const CreateBody = Type.Object({
  username: Type.String(), password: Type.String(),
  role: Type.Optional(Type.String({ description: `one of ${ROLES.join(', ')}; default viewer (least privilege)`, ...checked({ enum: ROLES }) })),
}, { additionalProperties: false });
const UpdateBody = Type.Object({
  username: Type.Optional(Type.String()), password: Type.Optional(Type.String()),
  role: Type.Optional(Type.String({ description: `one of ${ROLES.join(', ')}`, ...checked({ enum: ROLES }) })),
}, { additionalProperties: false });
const createShape = shapeChecker(CreateBody);
const updateShape = shapeChecker(UpdateBody);
export const UserModel = Type.Object({ username: Type.String(), role: RoleSchema, created_at: IsoTime }, { additionalProperties: false });

export function userRoutes(ctx: AppContext): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/api/users',
      body: 'none',
      permission: 'audit',
      noStore: true,
      doc: { tag: 'users', summary: 'List the accounts and their roles', response: Type.Array(UserModel) },
      // in the order every store lists them (sortUsers, checked by the store contract)
      handler: async () => ({
        body: (await ctx.accounts.listUsers()).map((u) => ({ username: u.username, role: roleOf(u), created_at: new Date(u.createdAt).toISOString() })),
      }),
    },
    {
      method: 'POST',
      pattern: '/api/users',
      permission: 'users',
      doc: { tag: 'users', summary: 'Create an account (role default viewer)', body: CreateBody, response: MessageReply, errors: [409] },
      handler: async (req) => {
        const b = createShape(req.body);
        await ctx.accounts.createUser(req, b.username, b.password, b.role);
        return message('user created');
      },
    },
    {
      method: 'PUT',
      pattern: '/api/users/:name',
      permission: 'users',
      doc: { tag: 'users', summary: 'Set an account\'s password or role (not the last admin\'s role)', body: UpdateBody, response: MessageReply, errors: [409] },
      handler: async (req) => {
        const b = updateShape(req.body);
        checkSameKey('username', b.username, req.params.name);
        await ctx.accounts.updateUser(req, req.params.name, b);
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
        await ctx.accounts.deleteUser(req, req.params.name);
        return message('user deleted');
      },
    },
  ];
}
