// GET /api/status: what is running, who changed it last, and the session.
import type { AppContext } from '../context';
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../http';
import { IsoTime, SessionModel } from '../schemas';

const StatusReply = Type.Object({
  version: Type.Integer({ minimum: 0 }),
  lastCommit: Type.Object(
    { version: Type.Integer({ minimum: 0 }), time: IsoTime, author: Type.String(), description: Type.String() },
    { additionalProperties: false },
  ),
  session: SessionModel,
  store: Type.Union([Type.Literal('embedded'), Type.Literal('redis')]),
  uptime: Type.Integer({ minimum: 0, description: 'seconds' }),
}, { additionalProperties: false });

export function statusRoutes(ctx: AppContext): RouteDef[] {
  return [
    { method: 'GET', pattern: '/api/status', body: 'none', doc: { tag: 'status', summary: 'The running version and the session', response: StatusReply }, handler: async () => {
      const running = ctx.config.current().meta;
      return { body: {
        version: running.version,
        lastCommit: { version: running.version, time: new Date(running.time).toISOString(), author: running.author, description: running.description },
        session: await ctx.config.info(),
        store: ctx.store.kind,
        uptime: Math.round((Date.now() - ctx.startedAt) / 1000),
      } };
    } },
  ];
}
