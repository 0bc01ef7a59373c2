// /api/policies: security policies in evaluation order, with /move.
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { Type } from '@sinclair/typebox';
import { PolicyModel, renderPolicy } from '../../config/render/rules';
import { parseRuleId } from '../../config/validate';

export function policyRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'policy',
    path: '/api/policies',
    param: 'id',
    noun: 'policy',
    checkKey: parseRuleId,
    messages: {
      create: 'policy created in candidate',
      update: 'policy updated in candidate',
      remove: 'policy deleted from candidate',
      move: 'policy moved successfully',
    },
    model: PolicyModel,
    listModel: Type.Array(PolicyModel),
    list: (doc) => doc.policies.map((p) => renderPolicy(doc, p)),
    one: (doc, key) => {
      const id = parseRuleId(key);
      const p = doc.policies.find((x) => x.id === id);
      return p && renderPolicy(doc, p);
    },
  });
}
