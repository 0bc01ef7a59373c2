// Names beside rule ids wherever the console lists rules by id (diffs, version compare,
// search results): "policy 12" says little, "#12 web-in" says which rule (issue 43). The
// names come from the rule tables the page already reads or from a version's configuration.
import { api } from './api';

/** Rule names by "policy 12" / "nat 3". */
export type RuleNames = Map<string, string>;

type Named = { id: number; name?: string };

/** Adds the named rules of `policies` and `nat` to `out` (a later call does not replace an earlier name). */
export function addNames(out: RuleNames, policies: Named[] | undefined, nat: Named[] | undefined): RuleNames {
  for (const [kind, rules] of [['policy', policies], ['nat', nat]] as const) {
    for (const r of rules ?? []) if (r.name && !out.has(`${kind} ${r.id}`)) out.set(`${kind} ${r.id}`, r.name);
  }
  return out;
}

/** The rule names of the candidate (while a session lasts) and the running configuration. */
export async function loadRuleNames(candidate: boolean): Promise<RuleNames> {
  const q = candidate ? '?config=candidate' : '';
  const [policies, nat] = await Promise.all([api<Named[]>('GET', `/api/policies${q}`), api<Named[]>('GET', `/api/nat${q}`)]);
  const out = addNames(new Map(), policies, nat);
  if (candidate) {
    // a rule the candidate deletes has its name in the running configuration only
    const [rp, rn] = await Promise.all([api<Named[]>('GET', '/api/policies'), api<Named[]>('GET', '/api/nat')]);
    addNames(out, rp, rn);
  }
  return out;
}

/** A rule's key with its name: "#12 web-in"; other objects (names already) as they are.
 * `own`: the name the answer itself gives (a diff's items carry it), before `names`'. */
export function ruleLabel(kind: string, key: string, names: RuleNames | null | undefined, own?: string): string {
  if (kind !== 'policy' && kind !== 'nat' && kind !== 'local-policy') return key;
  const name = own ?? names?.get(`${kind} ${key}`);
  return name ? `#${key} ${name}` : `#${key}`;
}

/** Whether a diff names any rule (only then are the names worth reading). */
export const namesRules = (items: Array<{ kind: string }>) => items.some((i) => i.kind === 'policy' || i.kind === 'nat');
