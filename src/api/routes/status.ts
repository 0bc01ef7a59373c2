// GET /api/status: what is running, who changed it last, the session, and whether the store
// answers. During a store outage it still answers from memory (session: null).
import type { AppContext } from '../context';
import { Type, type Static } from '@sinclair/typebox';
import type { RouteDef } from '../http';
import { StoreHealth } from '../store-health';
import { DataPlaneStatusModel, IsoTime, SessionModel } from '../schemas';

export const StatusReply = Type.Object({
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
  store_warnings: Type.Array(Type.String(), { description: 'what is unsafe about the store, e.g. a Redis that accepts commands without authentication (docs/cluster.md, "Locking Redis down"); empty when nothing' }),
  uptime: Type.Integer({ minimum: 0, description: 'seconds' }),
  syslog: Type.Array(Type.Object({
    target: Type.String({ description: 'an FW_SYSLOG target, e.g. tcp://logs.example.net:514' }),
    connected: Type.Boolean({ description: 'tcp and tls: a connection is open; udp: the socket is set up' }),
    buffered: Type.Integer({ minimum: 0, description: 'messages waiting for the target (at most FW_SYSLOG_BUFFER)' }),
    sent: Type.Integer({ minimum: 0, description: 'messages handed to the kernel since the start' }),
    dropped: Type.Integer({ minimum: 0, description: 'messages lost since the start: the buffer was full, or a datagram could not be sent' }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'the last connection or send error; null once connected again' }),
  }, { additionalProperties: false }), { description: 'the syslog forwarding targets (FW_SYSLOG); empty when none' }),
}, { additionalProperties: false });

/** GET /api/status's answer (fwctl status reads it). */
export type StatusReplyModel = Static<typeof StatusReply>;

export function statusRoutes(ctx: AppContext): RouteDef[] {
  const health = new StoreHealth(ctx);
  return [
    { method: 'GET', pattern: '/api/status', body: 'none', permission: 'read', doc: { tag: 'status', summary: 'The running version and the session', response: StatusReply }, handler: async () => {
      const running = ctx.config.current().meta;
      return { body: {
        version: running.version,
        lastCommit: { version: running.version, time: new Date(running.time).toISOString(), author: running.author, description: running.description },
        session: await ctx.config.info().catch(() => null),
        store: health.kind(),
        dataplane: ctx.dataPlane.status(),
        store_reachable: health.reachable(),
        node: ctx.nodes.id,
        store_warnings: health.warnings(),
        uptime: Math.round((Date.now() - ctx.startedAt) / 1000),
        syslog: ctx.syslog.stats(),
      } };
    } },
  ];
}
