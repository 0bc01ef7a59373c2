// Which rules a change alters the analysis of: each policy's status (shadowed, redundant,
// partially shadowed, undecided, or none) before and after, grouped by the new status and the
// rules that cause it, so that "2,000 policies become shadowed by policy 2001" is one line.
// Both sides are the commit's quick pass (the candidate has no deep one), so a policy left
// undecided on either side is not reported as a change. NAT rules: unreachable or not.
import type { Analysis } from '../eval/analysis-types';

export type RuleStatus = 'shadowed' | 'redundant' | 'partially-shadowed' | 'undecided' | 'unreachable' | 'ok';

export interface AnalysisChange {
  kind: 'policy' | 'nat';
  /** the status the rules now have, and the rules that cause it (empty for ok) */
  status: RuleStatus;
  by: number[];
  /** the rules, ascending, and what each was before */
  rules: Array<{ id: number; was: RuleStatus }>;
}

function policyStatus(a: Analysis): Map<number, { status: RuleStatus; by: number[] }> {
  const out = new Map<number, { status: RuleStatus; by: number[] }>();
  for (const p of a.partiallyShadowed) out.set(p.id, { status: 'partially-shadowed', by: [p.by] });
  for (const r of a.redundant) out.set(r.id, { status: 'redundant', by: r.coveredBy });
  for (const s of a.shadowed) out.set(s.id, { status: 'shadowed', by: s.coveredBy });
  for (const id of a.undecided) out.set(id, { status: 'undecided', by: [] });
  return out;
}

function natStatus(a: Analysis): Map<number, { status: RuleStatus; by: number[] }> {
  return new Map(a.unreachableNat.map((u) => [u.id, { status: 'unreachable' as const, by: u.coveredBy }]));
}

/** The rules present on both sides whose status (or covering rules) differ, grouped. */
export function analysisChanges(before: Analysis, after: Analysis, ids: { policy: number[]; nat: number[] }): AnalysisChange[] {
  const groups = new Map<string, AnalysisChange>();
  const compare = (kind: 'policy' | 'nat', old: ReturnType<typeof policyStatus>, neu: ReturnType<typeof policyStatus>, present: number[]) => {
    for (const id of present) {
      const a = old.get(id) ?? { status: 'ok' as const, by: [] };
      const b = neu.get(id) ?? { status: 'ok' as const, by: [] };
      if (a.status === 'undecided' || b.status === 'undecided') continue;
      if (a.status === b.status && a.by.join() === b.by.join()) continue;
      const key = `${kind} ${b.status} ${b.by.join()}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { kind, status: b.status, by: b.by, rules: [] }));
      g.rules.push({ id, was: a.status });
    }
  };
  compare('policy', policyStatus(before), policyStatus(after), ids.policy);
  compare('nat', natStatus(before), natStatus(after), ids.nat);
  for (const g of groups.values()) g.rules.sort((x, y) => x.id - y.id);
  return [...groups.values()].sort((x, y) => y.rules.length - x.rules.length);
}
