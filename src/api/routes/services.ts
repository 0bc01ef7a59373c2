// /api/services: the list is an object keyed by service name.
import type { AppContext } from '../context';
import { crudRoutes, namedReads } from '../crud';
import { ServiceModel, renderService } from '../../config/render/objects';

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
    ...namedReads((doc) => doc.services, (_doc, o) => renderService(o), ServiceModel, 'object'),
  });
}
