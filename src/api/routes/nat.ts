// /api/nat: NAT rules in evaluation order, with /move and the ?type= filter
// (snat, dnat-ip, dnat-port, static exactly; dnat for both DNAT types).
import type { AppContext } from '../context';
import { crudRoutes } from '../crud';
import { FwError } from '../../errors';
import { Type } from '@sinclair/typebox';
import { NatModel, renderNat } from '../../config/render/rules';
import { oneOf } from '../../config/render/objects';
import { parseRuleId } from '../../config/validate';
import type { NatType } from '../../config/types';
import { filtered, ruleFilterOf, ruleFilterQuery, type RuleFilter } from '../rule-filter';

const FILTERS: Record<string, readonly NatType[]> = {
  snat: ['snat'],
  'dnat-ip': ['dnat-ip'],
  'dnat-port': ['dnat-port'],
  dnat: ['dnat-ip', 'dnat-port'],
  static: ['static'],
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
    listQuery: { type: { schema: oneOf(Object.keys(FILTERS)), description: 'only rules of this type (dnat: both DNAT types)' }, ...ruleFilterQuery },
    // the variant: the type, and the other filters as JSON after a newline (cached without them)
    listVariant: (query) => {
      const type = query.get('type');
      if (type !== null && !Object.hasOwn(FILTERS, type)) {
        throw new FwError('ERR_SEC_1001', `query "type": "${type}" is not one of ${Object.keys(FILTERS).join(', ')}`);
      }
      const f = ruleFilterOf(query);
      return `${type ?? ''}${f ? `\n${JSON.stringify(f)}` : ''}`;
    },
    cachedVariant: (variant) => !variant.includes('\n'),
    list: (doc, variant) => {
      const [type, filter] = variant.split('\n');
      const types = type === '' ? null : FILTERS[type];
      const f = filter === undefined ? null : JSON.parse(filter) as RuleFilter;
      return filtered(doc.nat, f).filter((n) => !types || types.includes(n.type)).map((n) => renderNat(doc, n));
    },
    one: (doc, key) => {
      const id = parseRuleId(key);
      const n = doc.nat.find((x) => x.id === id);
      return n && renderNat(doc, n);
    },
  });
}
