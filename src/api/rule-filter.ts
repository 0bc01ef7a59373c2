// The list filters of the rule tables (GET /api/policies, GET /api/nat): ?tag= (rules with
// that tag), ?disabled=true|false, ?q= (text in the name, description or tags, ignoring case)
// and ?name= (the rule of that name). Given together, a rule must pass them all.
import { QueryBool } from './schemas';
import { Type } from '@sinclair/typebox';
import type { RuleMeta } from '../config/types';
import { FwError } from '../errors';
import type { QueryDoc } from './http';

export interface RuleFilter {
  tag?: string;
  disabled?: boolean;
  q?: string;
  name?: string;
}

export const ruleFilterQuery: Record<string, QueryDoc> = {
  tag: { schema: Type.String(), description: 'only rules with this tag' },
  disabled: { schema: QueryBool, description: 'only disabled (true) or enabled (false) rules' },
  q: { schema: Type.String(), description: 'only rules whose name, description or a tag holds this text (case ignored)' },
  name: { schema: Type.String(), description: 'only the rule of this name' },
};

/** The filters of a list query; null when none is given. A bad `disabled` is 400 ERR_NET_1005. */
export function ruleFilterOf(query: URLSearchParams): RuleFilter | null {
  const f: RuleFilter = {};
  const tag = query.get('tag');
  const q = query.get('q');
  const name = query.get('name');
  const disabled = query.get('disabled');
  if (tag !== null) f.tag = tag;
  if (q !== null) f.q = q.toLowerCase();
  if (name !== null) f.name = name;
  if (disabled !== null) {
    if (disabled !== 'true' && disabled !== 'false') throw new FwError('ERR_NET_1005', `query "disabled": "${disabled}" is not one of true, false`);
    f.disabled = disabled === 'true';
  }
  return Object.keys(f).length ? f : null;
}

/** True when the rule passes every filter of `f`. */
export function passesFilter(r: RuleMeta, f: RuleFilter): boolean {
  const tags = r.tags ?? [];
  if (f.tag !== undefined && !tags.includes(f.tag)) return false;
  if (f.disabled !== undefined && (r.disabled ?? false) !== f.disabled) return false;
  if (f.name !== undefined && (r.name ?? '') !== f.name) return false;
  if (f.q !== undefined) {
    const texts = [r.name ?? '', r.description ?? '', ...tags];
    if (!texts.some((t) => t.toLowerCase().includes(f.q!))) return false;
  }
  return true;
}

/** The rules of `rules` that pass `f` (all of them without a filter). */
export function filtered<T extends RuleMeta>(rules: readonly T[], f: RuleFilter | null): readonly T[] {
  return f ? rules.filter((r) => passesFilter(r, f)) : rules;
}
