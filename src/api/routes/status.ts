// GET /api/status: what is running, who changed it last, the session, and whether the store
// answers. During a store outage it still answers from memory (session: null).
import type { AppContext } from '../context';
import { Type, type Static } from '@sinclair/typebox';
import type { RouteDef } from '../http';
import { DataPlaneStatusModel, IsoTime, SessionModel } from '../schemas';

const StatusReply = Type.Object({
  version: Type.Integer({ minimum: 0 }),
  lastCommit: Type.Object(
    { version: Type.Integer({ minimum: 0 }), time: IsoTime, author: Type.String(), description: Type.String() },
    { additionalProperties: false },
  ),
  session: Type.Union([SessionModel, Type.Null()], { description: 'null while the store cannot be reached' }),
  store: Type.Union([Type.Literal('embedded'), Type.Literal('redis')]),
  dataplane: DataPlaneStatusModel,
  store_reachable: Type.Boolean(),
  node: Type.String({ description: 'this instance\'s id' }),
  uptime: Type.Integer({ minimum: 0, description: 'seconds' }),
}, { additionalProperties: false });

/** GET /api/status's answer (fwctl status reads it). */
export type StatusReplyModel = Static<typeof StatusReply>;

export function statusRoutes(ctx: AppContext): RouteDef[] {
  return [
    { method: 'GET', pattern: '/api/status', body: 'none', permission: 'read', doc: { tag: 'status', summary: 'The running version and the session', response: StatusReply }, handler: async () => {
      const running = ctx.config.current().meta;
      return { body: {
        version: running.version,
        lastCommit: { version: running.version, time: new Date(running.time).toISOString(), author: running.author, description: running.description },
        session: await ctx.config.info().catch(() => null),
        store: ctx.store.kind,
        dataplane: ctx.dataPlane.status(),
        store_reachable: ctx.store.reachable(),
        node: ctx.nodes.id,
        uptime: Math.round((Date.now() - ctx.startedAt) / 1000),
      } };
    } },
  ];
}
