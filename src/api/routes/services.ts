// /api/services: the list is an object keyed by service name.
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { renderService } from '../../config/render/objects';

export function serviceRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'service',
    path: '/api/services',
    param: 'name',
    noun: 'service',
    messages: {
      create: 'service created in candidate',
      update: 'service updated in candidate',
      remove: 'service deleted from candidate',
    },
    list: (doc) => {
      const out: Record<string, unknown> = {};
      for (const name of [...doc.services.keys()].sort()) out[name] = renderService(doc.services.get(name)!);
      return out;
    },
    one: (doc, key) => {
      const s = doc.services.get(key);
      return s && renderService(s);
    },
  });
}
