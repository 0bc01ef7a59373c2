// /api/addresses: the list is an object keyed by address name.
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { renderAddress } from '../../config/render/objects';

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
    list: (doc) => {
      const out: Record<string, unknown> = {};
      for (const name of [...doc.addresses.keys()].sort()) out[name] = renderAddress(doc.addresses.get(name)!);
      return out;
    },
    one: (doc, key) => {
      const a = doc.addresses.get(key);
      return a && renderAddress(a);
    },
  });
}
