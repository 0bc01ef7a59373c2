// /api/dhcp: the list is an array of pool read models sorted by interface. Note the spec's
// delete message says "deleted in candidate".
import type { AppContext } from '../context';
import { crudRoutes, namedReads } from '../crud';
import { DhcpModel, renderDhcp } from '../../config/render/objects';

export function dhcpRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'dhcp',
    path: '/api/dhcp',
    param: 'interface',
    noun: 'dhcp pool',
    messages: {
      create: 'dhcp pool created in candidate',
      update: 'dhcp pool updated in candidate',
      remove: 'dhcp pool deleted in candidate',
    },
    ...namedReads((doc) => doc.dhcp, renderDhcp, DhcpModel),
  });
}
