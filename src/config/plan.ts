// A plan: what loading a document would change against a configuration, computed on a
// working copy that is thrown away (POST /api/config/plan, fwctl plan, CI jobs). No session,
// nothing stored: the same load (load.ts) as PUT /api/config/candidate, so a plan and the
// apply that follows it agree, field for field and move for move.
import { workingCopy } from './document';
import { detailedDiff, type FullDetailedDiff } from './diff-detail';
import { checkExpansion, expansionOf } from './expansion';
import { prepareLoad, type LoadMode } from './load';
import type { ConfigDoc } from './types';

export type Plan = FullDetailedDiff;

/**
 * The diff, with its details, from `base` (version `version`) to `base` loaded with `input`;
 * the load made in slices as a PUT's (a plan of a 15 MB document held the HTTP thread for the
 * whole load; issue 38). `base` is a running version's: it never changes meanwhile.
 */
export async function planDocument(base: ConfigDoc, version: number, input: unknown, mode: LoadMode, maxExpansion?: number): Promise<Plan> {
  const work = workingCopy(base);
  Object.assign(work, await prepareLoad(work, input, mode));
  // the load it plans would be refused over the expansion budget: so is the plan (400 ERR_NET_1008)
  if (maxExpansion !== undefined) checkExpansion(work, maxExpansion, expansionOf(base).total);
  return detailedDiff(base, work, version);
}
