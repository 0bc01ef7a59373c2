// What an operator writes about a policy or a NAT rule beside its match: a `name` (unique in
// its table), a `description`, `tags`, and `disabled` (the rule keeps its place and its
// counter but never matches). All four are optional and stored only when set, so a
// configuration written with the seed's fields alone is stored, read and exported exactly as
// before (src/config/types.ts: absent means "", [] and false).
import { Type } from '@sinclair/typebox';
import { FwError } from '../errors';
import type { RuleMeta } from './types';
import { checkName, checkText, checked } from './validate';

export const MAX_RULE_DESCRIPTION = 1024;
export const MAX_RULE_TAGS = 32;

/** The request fields of the metadata (policies and NAT rules; NAT has its own description). */
export const ruleMetaFields = {
  name: Type.Optional(Type.String({ description: 'identifier, unique in the table; "" clears it' })),
  tags: Type.Optional(Type.Array(Type.String(), { description: `at most ${MAX_RULE_TAGS} tag names (identifiers)` })),
  disabled: Type.Optional(Type.Boolean({ description: 'true: the rule keeps its place and counter but never matches' })),
};
export const ruleDescriptionField = {
  description: Type.Optional(Type.String({ description: `at most ${MAX_RULE_DESCRIPTION} characters`, ...checked({ maxLength: MAX_RULE_DESCRIPTION }) })),
};

/** The read-model fields: present only when set. */
export const ruleMetaModelFields = {
  name: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String())),
  disabled: Type.Optional(Type.Boolean({ description: 'present (true) only when the rule is disabled' })),
};

type MetaBody = { name?: string; description?: string; tags?: string[]; disabled?: boolean };

/** A rule's description: at most MAX_RULE_DESCRIPTION characters. */
export function checkRuleDescription(value: string): string {
  return checkText('description', value, MAX_RULE_DESCRIPTION);
}

/** Tags: identifiers, at most MAX_RULE_TAGS, a repeated tag kept once (order kept). */
export function checkTags(values: string[]): string[] {
  if (values.length > MAX_RULE_TAGS) throw new FwError('ERR_NET_1008', `field "tags": at most ${MAX_RULE_TAGS} tags`);
  const out: string[] = [];
  values.forEach((t, i) => {
    checkName(`tags[${i}]`, t);
    if (!out.includes(t)) out.push(t);
  });
  return out;
}

/**
 * The metadata of `b` over `old`, as stored: only the fields that are set. `withDescription`:
 * the description is part of it (policies); NAT rules keep theirs as a field of their own.
 */
export function mergedMeta(old: RuleMeta, b: MetaBody, withDescription: boolean): RuleMeta {
  const name = b.name === undefined ? old.name ?? '' : b.name === '' ? '' : checkName('name', b.name);
  const description = !withDescription ? '' : b.description === undefined ? old.description ?? '' : checkRuleDescription(b.description);
  const tags = b.tags === undefined ? old.tags ?? [] : checkTags(b.tags);
  const disabled = b.disabled ?? old.disabled ?? false;
  const out: RuleMeta = {};
  if (name !== '') out.name = name;
  if (description !== '') out.description = description;
  if (tags.length) out.tags = tags;
  if (disabled) out.disabled = true;
  return out;
}

/** The metadata fields a rule has set (read model and export: the same spelling). */
export function metaOf(r: RuleMeta, withDescription: boolean): RuleMeta {
  const out: RuleMeta = {};
  if (r.name) out.name = r.name;
  if (withDescription && r.description) out.description = r.description;
  if (r.tags?.length) out.tags = [...r.tags];
  if (r.disabled) out.disabled = true;
  return out;
}

/** 409 ERR_NET_2006 when another rule of the table (not `selfId`) already has this name. */
export function checkNameFree(rules: ReadonlyArray<RuleMeta & { id: number }>, rule: RuleMeta, selfId: number, what: string): void {
  if (!rule.name) return;
  const other = rules.find((r) => r.name === rule.name && r.id !== selfId);
  if (other) throw new FwError('ERR_NET_2006', `field "name": ${what} ${other.id} is already named "${rule.name}"`);
}

/** Names used by more than one rule of a table, each with the ids of its rules (a load's check). */
export function repeatedNames(rules: ReadonlyArray<RuleMeta & { id: number }>): Array<{ name: string; ids: number[] }> {
  const byName = new Map<string, number[]>();
  for (const r of rules) if (r.name) byName.set(r.name, [...(byName.get(r.name) ?? []), r.id]);
  return [...byName].filter(([, ids]) => ids.length > 1).map(([name, ids]) => ({ name, ids }));
}
