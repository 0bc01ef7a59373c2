// /api/tokens: API tokens for automation. A token's secret is answered once, at creation; the
// store keeps its SHA-256. Its role is at most its creator's (and its owner's role now caps it
// at every request: src/auth/api-tokens.ts). Made with an API token, it expires no later than
// that token: a leaked short-lived token cannot mint a lasting one.
import { Type } from '@sinclair/typebox';
import { checked, shapeChecker } from '../../config/validate';
import { ROLES } from '../../auth/roles';
import { MAX_TOKEN_LIFETIME_SEC } from '../../auth/accounts';
import type { ApiTokenRecord } from '../../store/types';
import type { AppContext } from '../context';
import { message, NO_STORE, type RouteDef } from '../http';
import { IsoTime, MessageReply } from '../schemas';
import { RoleSchema } from './users';

const CreateBody = Type.Object({
  name: Type.String({ description: 'unique among the caller\'s tokens' }),
  role: Type.String({ description: 'at most the caller\'s role', ...checked({ enum: ROLES }) }),
  expires_in: Type.Optional(Type.Integer({ description: `seconds, 60 to ${MAX_TOKEN_LIFETIME_SEC}; absent: no expiry`, ...checked({ minimum: 60, maximum: MAX_TOKEN_LIFETIME_SEC }) })),
}, { additionalProperties: false });
const createShape = shapeChecker(CreateBody);
const Expiry = Type.Union([IsoTime, Type.Null()]);
export const Created = Type.Object({
  name: Type.String(),
  role: RoleSchema,
  token: Type.String({ description: 'the secret, shown this once: send it as Authorization: Bearer <token>' }),
  expires_at: Expiry,
}, { additionalProperties: false });
export const TokenModel = Type.Object({
  name: Type.String(),
  owner: Type.String(),
  role: RoleSchema,
  created_at: IsoTime,
  expires_at: Expiry,
  last_used_at: Type.Union([IsoTime, Type.Null()], { description: 'recorded in batches: up to ~10 s behind' }),
}, { additionalProperties: false });
const ownerQuery = { owner: { schema: Type.String(), description: 'whose token (admins; default: the caller\'s own)' } };

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function modelOf(t: ApiTokenRecord) {
  return { name: t.name, owner: t.owner, role: t.role, created_at: iso(t.createdAt), expires_at: iso(t.expiresAt), last_used_at: iso(t.lastUsedAt) };
}

export function tokenRoutes(ctx: AppContext): RouteDef[] {
  const tag = 'tokens';
  return [
    {
      method: 'POST', pattern: '/api/tokens', permission: 'tokens', answersSecret: true, noStore: true,
      doc: { tag, summary: 'Create an API token: its secret is answered this once', body: CreateBody, response: Created, errors: [409] },
      handler: async (req) => {
        const b = createShape(req.body);
        const { token, record } = await ctx.accounts.createToken(req, b.name, b.role, b.expires_in);
        return { body: { name: record.name, role: record.role, token, expires_at: iso(record.expiresAt) }, headers: NO_STORE };
      },
    },
    {
      method: 'GET', pattern: '/api/tokens', body: 'none', permission: ['tokens', 'audit'], noStore: true,
      doc: { tag, summary: 'List API tokens (admins and auditors: everyone\'s; others: their own), never their secrets', response: Type.Array(TokenModel) },
      handler: async (req) => {
        return { body: (await ctx.accounts.listTokens(req)).map(modelOf) };
      },
    },
    {
      method: 'DELETE', pattern: '/api/tokens/:name', body: 'none', permission: 'tokens',
      doc: { tag, summary: 'Revoke an API token at once (?owner= : another user\'s, admins)', response: MessageReply, query: ownerQuery },
      handler: async (req) => {
        await ctx.accounts.revokeToken(req, req.query.get('owner') ?? req.user.username, req.params.name);
        return message('token revoked');
      },
    },
  ];
}
