// /api/vlans: the list is an array of VLAN read models sorted by name.
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { renderVlan } from '../../config/render/objects';

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
    list: (doc) => [...doc.vlans.keys()].sort().map((name) => renderVlan(doc.vlans.get(name)!)),
    one: (doc, key) => {
      const v = doc.vlans.get(key);
      return v && renderVlan(v);
    },
  });
}
