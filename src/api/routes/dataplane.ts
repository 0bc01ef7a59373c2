// GET /api/dataplane/render: what the data plane would apply for the running configuration
// (or ?config=candidate): the nft script, the ip commands (from nothing) and the dnsmasq
// configuration, for operators to review before a commit. Nothing is run.
import type { AppContext } from '../context';
import { configQuery, readSource } from '../crud';
import type { RouteDef } from '../http';
import { renderPlan } from '../../dataplane';

export function dataPlaneRoutes(ctx: AppContext): RouteDef[] {
  const netns = ctx.settings.netns;
  return [
    { method: 'GET', pattern: '/api/dataplane/render', body: 'none', handler: async (req) => {
      const which = configQuery(req);
      const { doc } = await readSource(ctx, req);
      const plan = renderPlan(doc);
      return { body: {
        config: which,
        version: ctx.config.current().meta.version,
        dataplane: ctx.dataPlane.mode,
        nft: plan.nft,
        ip: plan.ip.map((args) => ['ip', ...(netns ? ['-n', netns] : []), ...args].join(' ')),
        dnsmasq: plan.dnsmasq,
      } };
    } },
  ];
}
