// GET /api/status: what is running, who changed it last, the session, and whether the store
// answers. During a store outage it still answers from memory (session: null).
import type { AppContext } from '../context';
import type { RouteDef } from '../http';

export function statusRoutes(ctx: AppContext): RouteDef[] {
  return [
    { method: 'GET', pattern: '/api/status', body: 'none', handler: async () => {
      const running = ctx.config.current().meta;
      return { body: {
        version: running.version,
        lastCommit: { version: running.version, time: new Date(running.time).toISOString(), author: running.author, description: running.description },
        session: await ctx.config.info().catch(() => null),
        store: ctx.store.kind,
        store_reachable: ctx.store.reachable(),
        node: ctx.nodes.id,
        uptime: Math.round((Date.now() - ctx.startedAt) / 1000),
      } };
    } },
  ];
}
