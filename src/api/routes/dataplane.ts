// GET /api/dataplane/render: what the data plane would apply for the running configuration
// (or ?config=candidate): the nft script, the ip commands (from nothing) and the dnsmasq
// configuration, for operators to review before a commit. Nothing is run.
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context';
import { configQueryDoc } from '../schemas';
import { oneOf } from '../../config/render/objects';
import { configQuery, readSource } from '../crud';
import type { RouteDef } from '../http';
import { renderPlan } from '../../dataplane';
import { leasesByPool } from '../../dataplane/leases';

const LeasesReply = Type.Array(Type.Object({
  interface: Type.String({ description: 'the pool: its interface or VLAN' }),
  leases: Type.Array(Type.Object({
    address: Type.String(),
    mac: Type.String(),
    hostname: Type.Union([Type.String(), Type.Null()], { description: 'the name the client sent; null: none' }),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null: never' }),
  }, { additionalProperties: false })),
}, { additionalProperties: false }), { description: 'every pool of the running configuration, by interface, with the leases in its range by address' });

const RenderReply = Type.Object({
  config: oneOf(['running', 'candidate'] as const),
  version: Type.Integer({ minimum: 0, description: 'the running version (the candidate\'s base with ?config=candidate)' }),
  dataplane: oneOf(['none', 'linux'] as const),
  nft: Type.String({ description: 'the nft script: one table, replaced atomically' }),
  ip: Type.Array(Type.String(), { description: 'the ip commands that build links, addresses and routes from nothing' }),
  dnsmasq: Type.String({ description: 'the dnsmasq configuration of the DHCP pools' }),
}, { additionalProperties: false });

export function dataPlaneRoutes(ctx: AppContext): RouteDef[] {
  const netns = ctx.settings.netns;
  return [
    { method: 'GET', pattern: '/api/dataplane/render', body: 'none', permission: 'read', doc: { tag: 'dataplane', summary: 'What the data plane would apply', response: RenderReply, query: configQueryDoc, errors: [409] }, handler: async (req) => {
      const which = configQuery(req);
      const { doc } = await readSource(ctx, req);
      const version = ctx.config.current().meta.version;
      // a candidate is rendered as the version its commit would make (the marks carry it)
      const plan = renderPlan(doc, { version: which === 'candidate' ? version + 1 : version, rematch: ctx.settings.sessionRematch,
        log: ctx.settings.trafficLogRules });
      return { body: {
        config: which,
        version,
        dataplane: ctx.dataPlane.mode,
        nft: plan.nft,
        ip: plan.ip.map((args) => ['ip', ...(netns ? ['-n', netns] : []), ...args].join(' ')),
        dnsmasq: plan.dnsmasq,
      } };
    } },
    { method: 'GET', pattern: '/api/dhcp/leases', body: 'none', permission: 'read', doc: { tag: 'dataplane', summary: 'The DHCP leases handed out, per pool (from dnsmasq\'s lease file; none with FW_DATAPLANE=none)', response: LeasesReply, errors: [] }, handler: async () => {
      const leases = await ctx.dataPlane.leases();
      return { body: leasesByPool(ctx.config.current().doc, leases) };
    } },
  ];
}
