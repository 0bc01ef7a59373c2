// /api/nat: NAT rules in evaluation order, with /move and the ?type= filter
// (snat, dnat-ip, dnat-port exactly; dnat for both DNAT types).
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { FwError } from '../../errors';
import { Type } from '@sinclair/typebox';
import { NatModel, renderNat } from '../../config/render/rules';
import { oneOf } from '../../config/render/objects';
import { parseRuleId } from '../../config/validate';
import type { NatType } from '../../config/types';

const FILTERS: Record<string, readonly NatType[]> = {
  snat: ['snat'],
  'dnat-ip': ['dnat-ip'],
  'dnat-port': ['dnat-port'],
  dnat: ['dnat-ip', 'dnat-port'],
};

export function natRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'nat',
    path: '/api/nat',
    param: 'id',
    noun: 'NAT rule',
    checkKey: parseRuleId,
    messages: {
      create: 'NAT rule added in candidate',
      update: 'NAT rule updated in candidate',
      remove: 'NAT rule deleted in candidate',
      move: 'NAT rule moved successfully',
    },
    model: NatModel,
    listModel: Type.Array(NatModel),
    listQuery: { type: { schema: oneOf(Object.keys(FILTERS)), description: 'only rules of this type (dnat: both DNAT types)' } },
    listVariant: (query) => {
      const type = query.get('type');
      if (type === null) return '';
      if (!Object.hasOwn(FILTERS, type)) {
        throw new FwError('ERR_SEC_1001', `query "type": "${type}" is not one of ${Object.keys(FILTERS).join(', ')}`);
      }
      return type;
    },
    list: (doc, variant) => {
      const types = variant === '' ? null : FILTERS[variant];
      return doc.nat.filter((n) => !types || types.includes(n.type)).map((n) => renderNat(doc, n));
    },
    one: (doc, key) => {
      const id = parseRuleId(key);
      const n = doc.nat.find((x) => x.id === id);
      return n && renderNat(doc, n);
    },
  });
}
