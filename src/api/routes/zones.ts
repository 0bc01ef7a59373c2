// /api/zones: the list is an array of zone read models sorted by name.
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { renderZone } from '../../config/render/objects';

export function zoneRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'zone',
    path: '/api/zones',
    param: 'name',
    noun: 'zone',
    messages: {
      create: 'zone created in candidate',
      update: 'zone updated in candidate',
      remove: 'zone deleted from candidate',
    },
    list: (doc) => [...doc.zones.keys()].sort().map((name) => renderZone(doc, doc.zones.get(name)!)),
    one: (doc, key) => {
      const z = doc.zones.get(key);
      return z && renderZone(doc, z);
    },
  });
}
