// GET /api/cluster/nodes: the instances serving this firewall, with the version each serves.
import type { AppContext } from '../context';
import type { RouteDef } from '../http';

export function clusterRoutes(ctx: AppContext): RouteDef[] {
  return [
    { method: 'GET', pattern: '/api/cluster/nodes', body: 'none', handler: async () => ({ body: await ctx.nodes.nodes() }) },
  ];
}
