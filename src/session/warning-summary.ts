// Commit and validate warnings in proportion to the change (issue 43): at 20,000 policies a
// one-field change answered ~100 lines of "shadowed by" warnings that were all there before.
// The answer now leads with the findings this change alters (the analysis changes GET
// /api/config/diff?detail=true&analysis=true computes: a policy newly shadowed or redundant,
// or covered by other rules than before), in the same grouped lines as before, then one
// counted line for the findings that were already there; GET /api/analysis keeps the full
// list. Findings a change resolves are not warnings and are not listed (the diff's
// analysis_changes has them). Other warnings (links down) are kept as they are.
import type { Analysis } from '../eval/analysis-types';
import { warningLines } from '../eval/analysis';
import { analysisChanges } from '../config/analysis-changes';

const FLAGGED = new Set(['shadowed', 'redundant']);

/**
 * `all`: the warnings as the pipeline gave them for `after`; `before`: the running version's
 * analysis the change is measured against; `policyIds`: the policies of `after` (added ones
 * included: a new policy that is shadowed is part of the change).
 */
export function warningsInProportion(all: string[], before: Analysis, after: Analysis, policyIds: number[]): string[] {
  const analysisLines = new Set(warningLines(after));
  const others = all.filter((l) => !analysisLines.has(l));
  const changed = new Set<number>();
  for (const g of analysisChanges(before, after, { policy: policyIds, nat: [] })) {
    if (g.kind === 'policy' && FLAGGED.has(g.status)) for (const r of g.rules) changed.add(r.id);
  }
  const ofChange: Analysis = {
    ...after,
    shadowed: after.shadowed.filter((c) => changed.has(c.id)),
    redundant: after.redundant.filter((c) => changed.has(c.id)),
  };
  const already = after.shadowed.length + after.redundant.length - ofChange.shadowed.length - ofChange.redundant.length;
  const count = already === 0 ? [] : [`${already} ${already === 1 ? 'policy was' : 'policies were'} already shadowed or redundant before this change (GET /api/analysis lists them all)`];
  return [...others, ...warningLines(ofChange), ...count];
}
