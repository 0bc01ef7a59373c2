// GET /api/audit: the audit trail, newest first, in pages: ?limit= (1-1000, default 100),
// ?before=<id> (the `next` of the previous page), ?user= and ?action= ("session" matches
// session.begin, session.discard, ...).
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import type { AppContext } from '../context';
import type { RouteDef } from '../http';
import { IsoTime } from '../schemas';

const MAX_LIMIT = 1000;

const AuditEntryModel = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  time: IsoTime,
  user: Type.String({ description: 'the account that acted (for a failed login: the name it tried)' }),
  role: Type.Optional(Type.String({ description: 'the role the request had; absent where no account acted (failed login, session expiry)' })),
  token: Type.Optional(Type.String({ description: 'the name of the API token the request presented' })),
  action: Type.String({ description: 'auth.login, auth.login-failed, auth.logout, auth.forbidden (a 403, at most once a second per actor and route), session.begin, session.discard, session.force-discard, session.expire, change.create/update/delete/move, config.commit, config.rollback, user.create/password/role/delete, token.create/revoke, sessions.end, hits.reset' }),
  details: Type.String(),
  requestId: Type.String({ description: 'the X-Request-Id of the request; "" for the daemon\'s own (session expiry)' }),
  payload: Type.Optional(Type.Unknown({ description: 'the request body of a change' })),
}, { additionalProperties: false });
export const AuditPage = Type.Object({
  entries: Type.Array(AuditEntryModel),
  next: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'pass as ?before= for the next page; null on the last page' }),
}, { additionalProperties: false });

function intQuery(name: string, text: string | null, min: number, max: number): number | undefined {
  if (text === null) return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new FwError('ERR_NET_1005', `query "${name}": "${text.slice(0, 64)}" is not a whole number`);
  const n = Number(text);
  if (n < min || n > max) throw new FwError('ERR_NET_1008', `query "${name}": ${n} is not within ${min}-${max}`);
  return n;
}

export function auditRoutes(ctx: AppContext): RouteDef[] {
  return [
    { method: 'GET', pattern: '/api/audit', body: 'none', permission: 'audit', noStore: true,
      doc: {
        tag: 'audit', summary: 'The audit trail, newest first', response: AuditPage,
        query: {
          limit: { schema: Type.Integer({ minimum: 1, maximum: MAX_LIMIT }), description: `entries per page, 1-${MAX_LIMIT} (default 100)` },
          before: { schema: Type.Integer({ minimum: 1 }), description: 'only entries older than this id: the previous page\'s next' },
          user: { schema: Type.String(), description: 'only this user\'s entries' },
          action: { schema: Type.String(), description: 'only this action, or those under it ("session")' },
        },
      },
      handler: async (req) => {
        const q = req.query;
        const limit = intQuery('limit', q.get('limit'), 1, MAX_LIMIT) ?? 100;
        const before = intQuery('before', q.get('before'), 1, Number.MAX_SAFE_INTEGER);
        // one more than asked: whether there is a next page
        const found = await ctx.audit.list({ limit: limit + 1, before, user: q.get('user') ?? undefined, action: q.get('action') ?? undefined });
        const entries = found.slice(0, limit).map((e) => {
          const out: Record<string, unknown> = {
            id: e.id, time: new Date(e.at).toISOString(), user: e.user, action: e.action, details: e.details, requestId: e.reqId ?? '',
          };
          if (e.role !== undefined) out.role = e.role;
          if (e.token !== undefined) out.token = e.token;
          if (e.payload !== undefined) out.payload = e.payload;
          return out;
        });
        return { body: { entries, next: found.length > limit ? entries[entries.length - 1].id : null } };
      } },
  ];
}
