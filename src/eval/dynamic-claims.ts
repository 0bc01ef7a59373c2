// The analysis and dynamic address sets (issue 40): a set's contents change at run time, so
// the analysis sees each set as everything of its family (GroupFlattener) and then keeps only
// the claims that hold whatever the set holds. A rule naming a set is never reported as
// shadowed, redundant or partially shadowed, and a claim that needs such a rule as its cover
// is dropped: with the set empty the cover would not be there. A claim whose covers are all
// static rules holds for any contents (a set taken as everything only widens the rules between).
import type { Analysis } from './analysis-types';
import type { ConfigDoc } from '../config/types';
import { hasFqdn, hasList, isRuntimeAddress } from '../config/groups';
import { isTimed } from '../config/schedule-gate';

/** The ids of the policies that name a dynamic set or an FQDN address (src-addr or dst-addr). */
export function dynamicPolicyIds(doc: ConfigDoc): Set<number> {
  const out = new Set<number>();
  // FQDN addresses (issue 40) are run-time objects too: what a name resolves to is not known
  const moving = (n: string) => (doc.dynamicSets?.has(n) ?? false) || isRuntimeAddress(doc.addresses.get(n));
  if (!doc.dynamicSets?.size && !hasFqdn(doc) && !hasList(doc)) return out;
  for (const p of doc.policies) if (moving(p.srcAddr) || moving(p.dstAddr)) out.add(p.id);
  return out;
}

/**
 * The ids of the policies with a schedule or an expiry (issue 40 item 4): they do not always
 * match, so they never cover another (a claim "shadowed by" one holds only while it is on).
 * A timed policy covered by others is still reported: whenever it is on, they take its packets.
 */
export function timedPolicyIds(doc: ConfigDoc): Set<number> {
  return new Set(doc.policies.filter(isTimed).map((p) => p.id));
}

/** `a` without the claims that depend on what a dynamic set holds or on the time (a new object; `a` is left as it is). */
export function withoutDynamicClaims(doc: ConfigDoc, a: Analysis): Analysis {
  const dyn = dynamicPolicyIds(doc);
  const timed = timedPolicyIds(doc);
  if (dyn.size === 0 && timed.size === 0) return a;
  const cover = (id: number) => dyn.has(id) || timed.has(id);
  const keep = (c: { id: number; coveredBy: number[] }) => !dyn.has(c.id) && !c.coveredBy.some(cover);
  return {
    ...a,
    shadowed: a.shadowed.filter(keep),
    redundant: a.redundant.filter(keep),
    partiallyShadowed: a.partiallyShadowed.filter((p) => !dyn.has(p.id) && !cover(p.by)),
  };
}
