// /api/vlans: the list is an array of VLAN read models sorted by name.
import type { AppContext } from '../context';
import { crudRoutes, namedReads } from '../crud';
import { VlanModel, renderVlan } from '../../config/render/objects';

export function vlanRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'vlan',
    path: '/api/vlans',
    param: 'name',
    noun: 'vlan',
    messages: {
      create: 'vlan created in candidate',
      update: 'vlan updated in candidate',
      remove: 'vlan deleted from candidate',
    },
    ...namedReads((doc) => doc.vlans, (_doc, o) => renderVlan(o), VlanModel),
  });
}
