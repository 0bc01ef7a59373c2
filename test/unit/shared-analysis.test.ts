// The deep analysis shared in a cluster (src/cluster/shared-analysis.ts): after a failover the
// winning side gives a version number to another commit than the losing side's, so a result
// published for the losing side's commit must not be taken for the winner's commit of the
// same number (issue 31's stale-version defect, for the shared analysis).
import pino from 'pino';
import { SharedDeepPasses } from '../../src/cluster/shared-analysis';
import type { Analysis } from '../../src/eval/analysis-types';
import type { SharedWork } from '../../src/store/cluster-bus';

/** SharedWork in memory, as Redis keeps it (a lease and a result per piece of work). */
function memoryWork(): SharedWork & { results: Map<string, string> } {
  const leases = new Map<string, string>();
  const results = new Map<string, string>();
  return {
    results,
    claim: async (what, by) => {
      const holder = leases.get(what);
      if (holder !== undefined && holder !== by) return false;
      leases.set(what, by);
      return true;
    },
    release: async (what, by) => {
      if (leases.get(what) === by) leases.delete(what);
    },
    put: async (what, value) => {
      results.set(what, value);
    },
    get: async (what) => results.get(what) ?? null,
  };
}

const analysis = (shadowed: number[]) => ({ complete: true, shadowed: shadowed.map((id) => ({ id })) }) as unknown as Analysis;

test('a published deep analysis is taken for its own commit only, not for another commit under the same number', async () => {
  const work = memoryWork();
  const log = pino({ level: 'silent' });
  const losing = new SharedDeepPasses(work, () => undefined, 'a', log);
  const winning = new SharedDeepPasses(work, () => undefined, 'b', log);
  const lost = { version: 3, time: 1_000, author: 'alice' };
  const won = { version: 3, time: 2_000, author: 'bob' };

  expect(await losing.claim(3)).toBe(true);
  await losing.publish(lost, analysis([7]));
  expect(await losing.published(lost)).toEqual(analysis([7]));
  // the winner's version 3 is another commit: no result yet, so it claims and runs its own pass
  expect(await winning.published(won)).toBeNull();
  expect(await winning.published({ ...lost, author: 'bob' })).toBeNull();
  expect(await winning.claim(3)).toBe(true);
  await winning.publish(won, analysis([9]));
  expect(await losing.published(won)).toEqual(analysis([9]));
  expect(await losing.published(lost)).toBeNull();
});
