// /api/login, /api/logout, /api/me, over the account service (src/auth/accounts.ts).
import { Type } from '@sinclair/typebox';
import { shapeChecker } from '../../config/validate';
import { ROLES } from '../../auth/roles';
import type { AuthUser } from '../../auth/user';
import type { AppContext } from '../context';
import { message, NO_STORE, type Reply, type RouteDef } from '../http';
import { MessageReply } from '../schemas';

const LoginBody = Type.Object({
  username: Type.String({ description: 'a user name: 1-64 letters, digits, "_", ".", ":" or "-", starting with a letter or digit' }),
  password: Type.String(),
}, { additionalProperties: false });
const loginShape = shapeChecker(LoginBody);
/** The login body's limit whatever FW_MAX_BODY is: anyone may send it. A name of 64 and a
 * password of 1024 characters fit even with every character escaped (\uXXXX). */
const LOGIN_BODY_LIMIT = 8 * 1024;
export const TokenReply = Type.Object({ token: Type.String(), expires_in: Type.Integer({ description: 'seconds' }) }, { additionalProperties: false });
export const MeReply = Type.Object({
  username: Type.String(),
  role: Type.Union(ROLES.map((r) => Type.Literal(r)), { description: 'what this request may do: the account\'s role now (for an API token, the weaker of the token\'s and its owner\'s)' }),
  expires: Type.Union([Type.Integer(), Type.Null()], { description: 'unix seconds; null for an API token without expiry' }),
  token: Type.Optional(Type.String({ description: 'the API token\'s name, when called with one' })),
}, { additionalProperties: false });

/** The body of GET /api/me for a request's user. */
function meOf(user: AuthUser): Record<string, unknown> {
  const me: Record<string, unknown> = { username: user.username, role: user.role, expires: Number.isFinite(user.exp) ? user.exp : null };
  if (user.apiToken) me.token = user.apiToken.name;
  return me;
}

const meAnswers = new WeakMap<AuthUser, Reply>();

export function authRoutes(ctx: AppContext): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/api/login',
      auth: false,
      bodyLimit: LOGIN_BODY_LIMIT,
      doc: { tag: 'auth', summary: 'Log in: a bearer token for the other routes', body: LoginBody, response: TokenReply, errors: [401, 429] },
      handler: async (req) => {
        const b = loginShape(req.body);
        return { body: await ctx.accounts.login(req, b.username, b.password), headers: NO_STORE };
      },
    },
    {
      method: 'POST',
      pattern: '/api/logout',
      body: 'none',
      permission: 'read',
      doc: { tag: 'auth', summary: 'Revoke the token of this request (an API token: deleted for good)', response: MessageReply },
      handler: async (req) => {
        await ctx.accounts.logout(req);
        return message('logged out');
      },
    },
    {
      method: 'GET',
      pattern: '/api/me',
      body: 'none',
      permission: 'read',
      noStore: true,
      doc: { tag: 'auth', summary: 'Who the token belongs to, and its role now', response: MeReply },
      // the answer of a verified user never changes (a role change verifies the token again,
      // giving a new user): serialized once per cached user
      handler: (req) => {
        let answer = meAnswers.get(req.user);
        if (answer === undefined) {
          const json = Buffer.from(JSON.stringify(meOf(req.user)));
          answer = Object.freeze({ body: undefined, json });
          meAnswers.set(req.user, answer);
        }
        return answer;
      },
    },
  ];
}
