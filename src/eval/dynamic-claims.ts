// The analysis and dynamic address sets (issue 40): a set's contents change at run time, so
// the analysis sees each set as everything of its family (GroupFlattener) and then keeps only
// the claims that hold whatever the set holds. A rule naming a set is never reported as
// shadowed, redundant or partially shadowed, and a claim that needs such a rule as its cover
// is dropped: with the set empty the cover would not be there. A claim whose covers are all
// static rules holds for any contents (a set taken as everything only widens the rules between).
import type { Analysis } from './analysis-types';
import type { ConfigDoc } from '../config/types';
import { hasFqdn, hasList, isRuntimeAddress } from '../config/groups';

/** The ids of the policies that name a dynamic set or an FQDN address (src-addr or dst-addr). */
export function dynamicPolicyIds(doc: ConfigDoc): Set<number> {
  const out = new Set<number>();
  // FQDN addresses (issue 40) are run-time objects too: what a name resolves to is not known
  const moving = (n: string) => (doc.dynamicSets?.has(n) ?? false) || isRuntimeAddress(doc.addresses.get(n));
  if (!doc.dynamicSets?.size && !hasFqdn(doc) && !hasList(doc)) return out;
  for (const p of doc.policies) if (moving(p.srcAddr) || moving(p.dstAddr)) out.add(p.id);
  return out;
}

/** `a` without the claims that depend on what a dynamic set holds (a new object; `a` is left as it is). */
export function withoutDynamicClaims(doc: ConfigDoc, a: Analysis): Analysis {
  const dyn = dynamicPolicyIds(doc);
  if (dyn.size === 0) return a;
  const keep = (c: { id: number; coveredBy: number[] }) => !dyn.has(c.id) && !c.coveredBy.some((id) => dyn.has(id));
  return {
    ...a,
    shadowed: a.shadowed.filter(keep),
    redundant: a.redundant.filter(keep),
    partiallyShadowed: a.partiallyShadowed.filter((p) => !dyn.has(p.id) && !dyn.has(p.by)),
  };
}
