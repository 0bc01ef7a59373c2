// /api/address-groups and /api/service-groups: lists are arrays of {name, members,
// description} sorted by name (groups.ts, resources/group.ts).
import type { AppContext } from '../context';
import { crudRoutes, namedReads } from '../crud';
import { GroupModel, renderGroup } from '../../config/render/objects';

export function addressGroupRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'address-group',
    path: '/api/address-groups',
    param: 'name',
    noun: 'address group',
    messages: {
      create: 'address group created in candidate',
      update: 'address group updated in candidate',
      remove: 'address group deleted from candidate',
    },
    ...namedReads((doc) => doc.addressGroups, (_doc, o) => renderGroup(o), GroupModel),
  });
}

export function serviceGroupRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'service-group',
    path: '/api/service-groups',
    param: 'name',
    noun: 'service group',
    messages: {
      create: 'service group created in candidate',
      update: 'service group updated in candidate',
      remove: 'service group deleted from candidate',
    },
    ...namedReads((doc) => doc.serviceGroups, (_doc, o) => renderGroup(o), GroupModel),
  });
}
