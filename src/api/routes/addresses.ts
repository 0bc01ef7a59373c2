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
    ...namedReads((doc) => doc.addresses, (_doc, o) => renderAddress(o), AddressModel, 'object'),
  });
}
