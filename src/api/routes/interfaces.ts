// /api/interfaces: the physical interfaces (a fixed inventory: edit only, so POST and DELETE
// are 405). ?layer=3 lists those with an IP address, ?layer=2 those without.
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { Type } from '@sinclair/typebox';
import { InterfaceModel, oneOf, renderInterface } from '../../config/render/objects';
import { FwError } from '../../errors';

export function interfaceRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'interface',
    path: '/api/interfaces',
    param: 'name',
    noun: 'interface',
    messages: { update: 'interface updated in candidate' },
    model: InterfaceModel,
    listModel: Type.Array(InterfaceModel),
    listQuery: { layer: { schema: oneOf(['2', '3'] as const), description: '3: interfaces with an IP address; 2: those without' } },
    listVariant: (query) => {
      const layer = query.get('layer');
      if (layer === null) return 'all';
      if (layer === '2' || layer === '3') return layer;
      throw new FwError('ERR_NET_1005', `query "layer": "${layer}" is not one of 2, 3`);
    },
    list: (doc, variant) =>
      [...doc.interfaces.keys()]
        .sort()
        .map((name) => doc.interfaces.get(name)!)
        .filter((i) => variant === 'all' || (variant === '3') === (i.ip !== ''))
        .map(renderInterface),
    one: (doc, key) => {
      const i = doc.interfaces.get(key);
      return i && renderInterface(i);
    },
  });
}
