// /api/routes: static routes, listed by id.
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { Type } from '@sinclair/typebox';
import { RouteModel, renderRoute } from '../../config/render/rules';
import { parseRuleId } from '../../config/validate';

export function routeRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'route',
    path: '/api/routes',
    param: 'id',
    noun: 'route',
    checkKey: parseRuleId,
    messages: {
      create: 'route created in candidate',
      update: 'route updated in candidate',
      remove: 'route deleted from candidate',
    },
    model: RouteModel,
    listModel: Type.Array(RouteModel),
    list: (doc) => [...doc.routes].sort((a, b) => a.id - b.id).map(renderRoute),
    one: (doc, key) => {
      const id = parseRuleId(key);
      const r = doc.routes.find((x) => x.id === id);
      return r && renderRoute(r);
    },
  });
}
