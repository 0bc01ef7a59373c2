// /api/addresses: the list is an object keyed by address name.
import type { AppContext } from '../context';
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
    ...namedReads((doc) => doc.addresses, (doc, o) => renderAddress(o, doc === ctx.config.current().doc ? ctx.dynamic?.fqdn?.state(o.name) : undefined), AddressModel, 'object'),
    runtimeTag: (doc) => (ctx.dynamic?.fqdn && ctx.dynamic.usesFqdn(doc) ? String(ctx.dynamic.fqdn.generation) : null),
  });
}
