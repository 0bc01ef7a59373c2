// /api/tokens: API tokens for automation. A token's secret is answered once, at creation; the
// store keeps its SHA-256. Its role is at most its creator's (and its owner's role now caps it
// at every request: src/auth/api-tokens.ts). Made with an API token, it expires no later than
// that token: a leaked short-lived token cannot mint a lasting one.
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { checkName, checkRange, shapeChecker } from '../../config/validate';
import { mintApiToken } from '../../auth/api-tokens';
import { can, within } from '../../auth/roles';
import { forbidden } from '../../auth/user';
import type { TokenService } from '../../auth/tokens';
import type { ApiTokenRecord } from '../../store/types';
import type { AppContext } from '../context';
import { message, NO_STORE, type RouteDef } from '../http';
import { IsoTime, MessageReply } from '../schemas';
import { checkRole, RoleSchema } from './users';

/** The longest lifetime a token may be given: ten years (absent expires_in: no expiry). */
const MAX_LIFETIME_SEC = 10 * 365 * 86400;

const CreateBody = Type.Object({
  name: Type.String({ description: 'unique among the caller\'s tokens' }),
  role: Type.String({ description: 'admin, operator, auditor or viewer: at most the caller\'s role' }),
  expires_in: Type.Optional(Type.Integer({ description: `seconds, 60 to ${MAX_LIFETIME_SEC}; absent: no expiry` })),
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

export function tokenRoutes(ctx: AppContext, tokens: TokenService): RouteDef[] {
  const tag = 'tokens';
  return [
    {
      method: 'POST', pattern: '/api/tokens', permission: 'tokens', answersSecret: true,
      doc: { tag, summary: 'Create an API token: its secret is answered this once', body: CreateBody, response: Created, errors: [409] },
      handler: async (req) => {
        const b = createShape(req.body);
        const name = checkName('name', b.name);
        const role = checkRole(b.role);
        if (!within(role, req.user.role)) throw new FwError('ERR_SEC_5008', `a token's role cannot exceed yours: asked ${role}; your role: ${req.user.role}`);
        const lifetime = b.expires_in === undefined ? null : checkRange('expires_in', b.expires_in, 60, MAX_LIFETIME_SEC);
        // whole seconds, as JWTs and /api/me give expiry
        let expiresAt = lifetime === null ? null : (Math.floor(Date.now() / 1000) + lifetime) * 1000;
        if (req.user.apiToken && Number.isFinite(req.user.exp)) expiresAt = Math.min(expiresAt ?? Infinity, req.user.exp * 1000);
        const { token, record } = mintApiToken(req.user, name, role, expiresAt);
        if (!(await ctx.store.addApiToken(record))) throw new FwError('ERR_NET_2006', `you already have a token named "${name}"`);
        await ctx.audit.record(req, 'token.create', `${record.owner}/${name} (${role})`);
        return { body: { name, role, token, expires_at: iso(expiresAt) }, headers: NO_STORE };
      },
    },
    {
      method: 'GET', pattern: '/api/tokens', body: 'none', permission: ['tokens', 'audit'],
      doc: { tag, summary: 'List API tokens (admins and auditors: everyone\'s; others: their own), never their secrets', response: Type.Array(TokenModel) },
      handler: async (req) => {
        await tokens.uses.flush(); // this instance's latest uses, not ~10 s old ones
        const everyone = can(req.user.role, 'users') || can(req.user.role, 'audit');
        return { body: (await ctx.store.listApiTokens(everyone ? undefined : req.user.username)).map(modelOf) };
      },
    },
    {
      method: 'DELETE', pattern: '/api/tokens/:name', body: 'none', permission: 'tokens',
      doc: { tag, summary: 'Revoke an API token at once (?owner= : another user\'s, admins)', response: MessageReply, query: ownerQuery },
      handler: async (req) => {
        const owner = req.query.get('owner') ?? req.user.username;
        if (owner !== req.user.username && !can(req.user.role, 'users')) throw forbidden('users', req.user, 'revoking another user\'s token');
        const gone = await ctx.store.deleteApiToken(owner, req.params.name);
        if (!gone) throw new FwError('ERR_NET_1003', `${owner} has no token named "${req.params.name}"`);
        tokens.forgetToken(gone.hash);
        await ctx.audit.record(req, 'token.revoke', `${owner}/${gone.name}`);
        return message('token revoked');
      },
    },
  ];
}
