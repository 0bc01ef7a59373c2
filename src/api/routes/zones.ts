// /api/zones: the list is an array of zone read models sorted by name.
import type { AppContext } from '../context';
import { crudRoutes, namedReads } from '../crud';
import { ZoneModel, renderZone } from '../../config/render/objects';

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
    ...namedReads((doc) => doc.zones, renderZone, ZoneModel),
  });
}
