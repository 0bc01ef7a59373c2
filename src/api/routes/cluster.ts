// GET /api/cluster/nodes: the instances serving this firewall, with the version each serves.
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context';
import type { RouteDef } from '../http';
import { DataPlaneStatusModel, IsoTime } from '../schemas';

const NodeModel = Type.Object({
  id: Type.String(),
  address: Type.String(),
  version: Type.Integer({ minimum: 0, description: 'the running version this node serves' }),
  dataplane: DataPlaneStatusModel,
  last_heartbeat: IsoTime,
  started_at: IsoTime,
  live: Type.Boolean(),
  self: Type.Boolean(),
}, { additionalProperties: false });

export function clusterRoutes(ctx: AppContext): RouteDef[] {
  return [
    { method: 'GET', pattern: '/api/cluster/nodes', body: 'none', permission: 'read', doc: { tag: 'cluster', summary: 'The instances serving this firewall', response: Type.Array(NodeModel) }, handler: async () => ({ body: await ctx.nodes.nodes() }) },
  ];
}
