// /api/addresses: the list is an object keyed by address name.
import type { AppContext } from '../context';
import type { ConfigDoc } from '../../config/types';
import { crudRoutes, namedReads } from '../crud';
import { AddressModel, renderAddress } from '../../config/render/objects';

export function addressRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'address',
    path: '/api/addresses',
    param: 'name',
    noun: 'address',
    messages: {
      create: 'address created in candidate',
      update: 'address updated in candidate',
      remove: 'address deleted from candidate',
    },
    // FQDN addresses show their current resolution (the running version's only)
    // and external lists their last fetch (issue 40)
    ...namedReads((doc) => doc.addresses, (doc, o) => {
      const running = doc === ctx.config.current().doc;
      return renderAddress(o, running ? ctx.dynamic?.fqdn?.state(o.name) : undefined, running ? ctx.dynamic?.lists?.state(o.name) : undefined);
    }, AddressModel, 'object'),
    runtimeTag: (doc) => runtimeTag(ctx, doc),
  });
}

/** A tag of what the read model shows at run time: FQDN resolutions and list fetches (null: none in this version). */
function runtimeTag(ctx: AppContext, doc: ConfigDoc): string | null {
  const dyn = ctx.dynamic;
  if (!dyn) return null;
  const fqdn = dyn.fqdn && dyn.usesFqdn(doc) ? String(dyn.fqdn.generation) : null;
  const lists = dyn.lists && dyn.usesLists(doc) ? `l${dyn.lists.generation}.${dyn.lists.shown}` : null;
  return fqdn === null && lists === null ? null : `${fqdn ?? ''}${lists ?? ''}`;
}
