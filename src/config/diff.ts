// What a candidate adds, changes and deletes against the running configuration. Used by
// GET /api/config/diff and for the change summary recorded with each version.
import { naturalCompare } from './natural-order';
import type { ConfigDoc } from './types';

export interface DiffItem {
  kind: string; // address, service, address-group, service-group, zone, interface, vlan, dhcp, route, policy, nat, ha
  key: string; // name, interface or id
  /** a rule's name, when it has one: "policy 12" alone does not say which rule it is (issue 43) */
  name?: string;
}

/** A rule as a diff names it: its id, and its name when it has one. */
export function ruleItem(kind: string, r: { id: number; name?: string }): DiffItem {
  return r.name ? { kind, key: String(r.id), name: r.name } : { kind, key: String(r.id) };
}

export interface ConfigDiff {
  added: DiffItem[];
  changed: DiffItem[];
  deleted: DiffItem[];
  /** rule tables whose order changed: "policies", "nat" */
  reordered: string[];
}

/** The named collections and the rule tables, in the order a diff lists them. */
const NAMED = [
  ['address', 'addresses'], ['service', 'services'], ['address-group', 'addressGroups'], ['service-group', 'serviceGroups'], ['dynamic-set', 'dynamicSets'], ['schedule', 'schedules'], ['zone', 'zones'], ['interface', 'interfaces'], ['vlan', 'vlans'], ['dhcp', 'dhcp']] as const;
const RULES = [['route', 'routes'], ['policy', 'policies'], ['nat', 'nat'], ['local-policy', 'localPolicies']] as const;

/** Same object, or the same JSON (a field set to undefined is no field), compared field by
 * field. A candidate shares the objects it did not change with its base (session/service.ts); a
 * loaded one does not (two JSON.stringify a policy were ~0.3 s of a commit at 100,000 policies). */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => same(x, (b as unknown[])[i]));
  const x = a as Record<string, unknown>, y = b as Record<string, unknown>;
  const kx = Object.keys(x).filter((k) => x[k] !== undefined);
  const ky = Object.keys(y).filter((k) => y[k] !== undefined);
  return kx.length === ky.length && kx.every((k, i) => k === ky[i] && same(x[k], y[k]));
}

const byName = naturalCompare; // h-ext-12 before h-ext-102, as the lists

export function diffDocs(running: ConfigDoc, candidate: ConfigDoc): ConfigDiff {
  const out: ConfigDiff = { added: [], changed: [], deleted: [], reordered: [] };
  for (const [kind, field] of NAMED) {
    const old: ReadonlyMap<string, unknown> = running[field], neu: ReadonlyMap<string, unknown> = candidate[field];
    const added: string[] = [], changed: string[] = [], deleted: string[] = [];
    for (const [key, value] of neu) {
      const was = old.get(key);
      if (was === undefined) added.push(key);
      else if (!same(was, value)) changed.push(key);
    }
    for (const key of old.keys()) if (!neu.has(key)) deleted.push(key);
    // by name: a map's order is the order its objects were made in on the instance that made
    // them, but name order once a version is read back from the store, so the same two
    // versions compared on two instances listed their objects in two orders
    for (const [list, keys] of [[out.added, added], [out.changed, changed], [out.deleted, deleted]] as const) {
      for (const key of keys.sort(byName)) list.push({ kind, key });
    }
  }
  // the HA pair is one document (PUT /api/ha)
  if (!same(running.ha, candidate.ha)) (running.ha === undefined ? out.added : candidate.ha === undefined ? out.deleted : out.changed).push({ kind: 'ha', key: 'ha' });
  for (const [kind, field] of RULES) {
    const reordered = diffRules(kind, running[field], candidate[field], out);
    if (reordered && kind !== 'route') out.reordered.push(field);
  }
  return out;
}

type Rule = { id: number; name?: string };

/**
 * One rule table's added, changed and deleted rules (in `out`); true when the rules present in
 * both are not in the same relative order. The same ids at the same positions (a commit that
 * edits rules) are compared in place, without maps of 100,000 ids (~0.2 s a commit at that
 * size).
 */
function diffRules(kind: string, old: ReadonlyArray<Rule>, neu: ReadonlyArray<Rule>, out: ConfigDiff): boolean {
  if (old.length === neu.length && old.every((r, i) => r.id === neu[i].id)) {
    neu.forEach((r, i) => {
      if (!same(old[i], r)) out.changed.push(ruleItem(kind, r));
    });
    return false;
  }
  const oldById = new Map(old.map((r) => [r.id, r]));
  const neuAt = new Map(neu.map((r, i) => [r.id, i]));
  for (const r of neu) {
    const was = oldById.get(r.id);
    if (was === undefined) out.added.push(ruleItem(kind, r));
    else if (!same(was, r)) out.changed.push(ruleItem(kind, r));
  }
  for (const r of old) if (!neuAt.has(r.id)) out.deleted.push(ruleItem(kind, r));
  // the rules of both in the same relative order: their new positions ascend along the old table
  let last = -1;
  for (const r of old) {
    const at = neuAt.get(r.id);
    if (at === undefined) continue;
    if (at < last) return true;
    last = at;
  }
  return false;
}

export function diffSummary(d: ConfigDiff): string {
  const parts = [`${d.added.length} added`, `${d.changed.length} changed`, `${d.deleted.length} deleted`];
  if (d.reordered.length) parts.push(`reordered ${d.reordered.join(' and ')}`);
  return parts.join(', ');
}
