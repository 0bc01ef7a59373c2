// /api/users: administrator accounts. Every account is an administrator.
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { checkName, checkSameKey, shapeChecker } from '../../config/validate';
import { hashPassword } from '../../auth/passwords';
import type { TokenService } from '../../auth/tokens';
import type { AppContext } from '../context';
import { message, type RouteDef } from '../http';
import { IsoTime, MessageReply } from '../schemas';

const MIN_PASSWORD = 12;
const CreateBody = Type.Object({ username: Type.String(), password: Type.String() }, { additionalProperties: false });
const UpdateBody = Type.Object({ username: Type.Optional(Type.String()), password: Type.String() }, { additionalProperties: false });
const createShape = shapeChecker(CreateBody);
const updateShape = shapeChecker(UpdateBody);
export const UserModel = Type.Object({ username: Type.String(), created_at: IsoTime }, { additionalProperties: false });

function checkPassword(password: string): string {
  if (password.length < MIN_PASSWORD || password.length > 1024) {
    throw new FwError('ERR_NET_1004', `field "password": ${MIN_PASSWORD} to 1024 characters`);
  }
  return password;
}

export function userRoutes(ctx: AppContext, tokens: TokenService): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/api/users',
      body: 'none',
      doc: { tag: 'users', summary: 'List the administrator accounts', response: Type.Array(UserModel) },
      handler: async () => ({
        body: (await ctx.store.listUsers())
          .map((u) => ({ username: u.username, created_at: new Date(u.createdAt).toISOString() }))
          .sort((a, b) => (a.username < b.username ? -1 : 1)),
      }),
    },
    {
      method: 'POST',
      pattern: '/api/users',
      doc: { tag: 'users', summary: 'Create an administrator account', body: CreateBody, response: MessageReply, errors: [409] },
      handler: async (req) => {
        const b = createShape(req.body);
        const username = checkName('username', b.username);
        const password = checkPassword(b.password);
        if (await ctx.store.getUser(username)) throw new FwError('ERR_NET_2006', `user "${username}" already exists`);
        await ctx.store.putUser({ username, hash: await hashPassword(password), createdAt: Date.now() });
        await ctx.audit.record(req, 'user.create', username);
        return message('user created');
      },
    },
    {
      method: 'PUT',
      pattern: '/api/users/:name',
      doc: { tag: 'users', summary: 'Set an account\'s password', body: UpdateBody, response: MessageReply },
      handler: async (req) => {
        const name = req.params.name;
        const b = updateShape(req.body);
        checkSameKey('username', b.username, name);
        const password = checkPassword(b.password);
        const old = await ctx.store.getUser(name);
        if (!old) throw new FwError('ERR_NET_1003', `user "${name}" not found`);
        await ctx.store.putUser({ ...old, hash: await hashPassword(password) });
        await ctx.audit.record(req, 'user.password', name);
        return message('user updated');
      },
    },
    {
      method: 'DELETE',
      pattern: '/api/users/:name',
      body: 'none',
      doc: { tag: 'users', summary: 'Delete an account (not the last one)', response: MessageReply, errors: [409] },
      handler: async (req) => {
        const name = req.params.name;
        if (!(await ctx.store.getUser(name))) throw new FwError('ERR_NET_1003', `user "${name}" not found`);
        if (!(await ctx.store.deleteUser(name))) {
          throw new FwError('ERR_NET_2007', 'the last administrator account cannot be deleted');
        }
        tokens.forgetUser(name);
        await ctx.audit.record(req, 'user.delete', name);
        return message('user deleted');
      },
    },
  ];
}
