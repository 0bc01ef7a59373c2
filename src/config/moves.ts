// Tables of id-keyed rules (routes, security policies, NAT rules): id assignment, lookup by
// the path's id, delete, and moving a rule inside an ordered table (policies and NAT rules
// share the one implementation, and the whole set of operations of orderedRuleOps). A move only reorders: it never changes an id, and a failed move
// changes nothing (the new order is computed into a fresh array that replaces the old one).
import { Type, type TObject } from '@sinclair/typebox';
import { FwError } from '../errors';
import type { ConfigDoc, Counters } from './types';
import type { ResourceOps, RuleTable } from './resource';
import { checkEnum, checkSameKey, checkText, notFound, parseRuleId, shapeChecker, checked } from './validate';
import { checkNameFree } from './rule-meta';
import { isPlainObject } from './json';

/**
 * Hands out the next id of a kind: the counter holds the last id given, so ids start at 1
 * and are never reused, whatever was deleted. The counters object is replaced, not mutated.
 */
export function nextId(doc: ConfigDoc, kind: keyof Counters): number {
  const id = (doc.counters[kind] ?? 0) + 1;
  doc.counters = { ...doc.counters, [kind]: id };
  return id;
}

export const MAX_DESCRIPTION = 256;

/** A rule's free-text description: at most MAX_DESCRIPTION characters. */
export function checkDescription(value: string): string {
  return checkText('description', value, MAX_DESCRIPTION);
}

/** The index of the rule the path's id names: 400 ERR_NET_1002 for a bad id, 404 ERR_NET_1003 if absent. */
export function ruleIndex<T extends { id: number }>(rules: readonly T[], key: string, what: string): number {
  const id = parseRuleId(key);
  const i = rules.findIndex((r) => r.id === id);
  if (i < 0) throw notFound(what, key);
  return i;
}

/** A copy of `rules` without the rule the path's id names (errors as ruleIndex). */
export function withoutRule<T extends { id: number }>(rules: readonly T[], key: string, what: string): T[] {
  const i = ruleIndex(rules, key, what);
  return rules.filter((_, j) => j !== i);
}

/** A copy of `rules` with the rule at index `i` replaced by `rule`. */
export function replacedAt<T>(rules: readonly T[], i: number, rule: T): T[] {
  const out = [...rules];
  out[i] = rule;
  return out;
}

export const POSITIONS = ['top', 'bottom', 'before', 'after'] as const;
export type Position = (typeof POSITIONS)[number];

export const MoveBody = Type.Object(
  { position: Type.String(checked({ enum: POSITIONS })), reference_id: Type.Optional(Type.Integer()) },
  { additionalProperties: false },
);
const moveShape = shapeChecker(MoveBody);

/**
 * The table after moving the rule `key` as `body` asks; `rules` itself is not modified.
 * Checks, in order: the payload shape (400 ERR_NET_1004), the position (400 ERR_NET_1005),
 * the moved rule (404 ERR_NET_1003), and for before/after the reference_id (missing: 400
 * ERR_NET_1004; itself or an unknown rule: 400 ERR_NET_2003). For top and bottom a
 * reference_id is ignored.
 */
export function movedRules<T extends { id: number }>(rules: readonly T[], key: string, body: unknown, what: string): T[] {
  const id = parseRuleId(key);
  const b = moveShape(body);
  const position = checkEnum<Position>('position', b.position, POSITIONS);
  const from = ruleIndex(rules, key, what);
  const rule = rules[from];
  const rest = rules.filter((_, i) => i !== from);
  if (b.reference_id === id && (position === 'before' || position === 'after')) {
    throw new FwError('ERR_NET_2003', `field "reference_id": ${what} ${id} cannot be moved relative to itself`);
  }
  return placed(rest, rule, position, b.reference_id, what);
}

/**
 * `rules` with `rule` (not among them) put where `position` says: top, bottom, or before or
 * after the rule `referenceId` (required for those two: 400 ERR_NET_1004; unknown: 400
 * ERR_NET_2003). For top and bottom a reference_id is ignored, as in a move.
 */
function placed<T extends { id: number }>(rules: readonly T[], rule: T, position: Position, referenceId: number | undefined, what: string): T[] {
  if (position === 'top') return [rule, ...rules];
  if (position === 'bottom') return [...rules, rule];
  if (referenceId === undefined) {
    throw new FwError('ERR_NET_1004', `field "reference_id": required when position is "${position}"`);
  }
  const at = rules.findIndex((r) => r.id === referenceId);
  if (at < 0) throw new FwError('ERR_NET_2003', `field "reference_id": ${what} ${referenceId} does not exist`);
  const insertAt = position === 'before' ? at : at + 1;
  return [...rules.slice(0, insertAt), rule, ...rules.slice(insertAt)];
}

/** The placement fields a create of a policy or NAT rule may carry besides the rule's own. */
const placementFields = {
  position: Type.Optional(Type.String({ description: 'where the new rule goes: top, bottom (default), before, after (as a move)', ...checked({ enum: POSITIONS }) })),
  reference_id: Type.Optional(Type.Integer({ description: 'the rule it goes before or after' })),
};

/** A create body split into the rule's own fields and its placement (absent: bottom, as before). */
function placementOf(body: unknown): { rule: unknown; position: Position; referenceId: number | undefined } {
  if (!isPlainObject(body) || (body.position === undefined && body.reference_id === undefined)) return { rule: body, position: 'bottom', referenceId: undefined };
  const { position, reference_id: referenceId, ...rule } = body;
  if (position === undefined) throw new FwError('ERR_NET_1004', 'field "position": required with "reference_id"');
  if (typeof position !== 'string') throw new FwError('ERR_NET_1004', 'field "position": must be a string');
  if (referenceId !== undefined && !Number.isSafeInteger(referenceId)) throw new FwError('ERR_NET_1004', 'field "reference_id": must be an integer');
  return { rule, position: checkEnum<Position>('position', position, POSITIONS), referenceId: referenceId as number | undefined };
}

/** The ordered rule tables of a document, and the type of one rule of table K. */
type OrderedTableKey = 'policies' | 'nat' | 'localPolicies';
type RuleOf<K extends OrderedTableKey> = ConfigDoc[K][number];

/** What orderedRuleOps needs to know of one ordered rule table. */
export interface OrderedTable<K extends OrderedTableKey, B extends { id?: number }> {
  table: K;
  counter: keyof Counters;
  /** "policy", "NAT rule": in not-found and move errors */
  what: string;
  /** what a create starts from (its id is replaced) */
  defaults: RuleOf<K>;
  /** the schemas createShape and updateShape are compiled from */
  bodies: { create: TObject; update: TObject };
  createShape(body: unknown): B;
  updateShape(body: unknown): B;
  /** The rule that results from `b` over `old`, checked. */
  merge(doc: ConfigDoc, old: RuleOf<K>, b: B): RuleOf<K>;
}

/**
 * The operations of an ordered rule table (security policies, NAT rules): a create goes to
 * the bottom with the next id, or where its `position` and `reference_id` say (as a move); an update merges into the rule in place and may repeat its id
 * but not change it; delete; move. The table is replaced, never mutated.
 */
export function orderedRuleOps<K extends OrderedTableKey, B extends { id?: number }>(t: OrderedTable<K, B>): ResourceOps {
  const get = (doc: ConfigDoc): readonly RuleOf<K>[] => doc[t.table];
  const set = (doc: ConfigDoc, rules: RuleOf<K>[]): void => {
    (doc as Record<K, RuleOf<K>[]>)[t.table] = rules;
  };
  const build = (doc: ConfigDoc, body: unknown, old?: RuleOf<K>): RuleOf<K> =>
    (old ? t.merge(doc, old, t.updateShape(body)) : t.merge(doc, t.defaults, t.createShape(body)));
  const create = Type.Object({ ...t.bodies.create.properties, ...placementFields }, { additionalProperties: false });
  return {
    bodies: { ...t.bodies, create, move: MoveBody },
    rules: { table: t.table, counter: t.counter, build: build as RuleTable['build'] },
    create(doc: ConfigDoc, body: unknown) {
      const p = placementOf(body);
      const rule = build(doc, p.rule);
      checkNameFree(get(doc), rule, 0, t.what);
      const rules = placed(get(doc), { ...rule, id: (doc.counters[t.counter] ?? 0) + 1 }, p.position, p.referenceId, t.what);
      nextId(doc, t.counter); // only once every check passed: a refused create hands out no id
      set(doc, rules);
      return { id: doc.counters[t.counter] };
    },
    update(doc: ConfigDoc, key: string, body: unknown) {
      const b = t.updateShape(body);
      const rules = get(doc);
      const i = ruleIndex(rules, key, t.what);
      checkSameKey('id', b.id, key);
      const rule = t.merge(doc, rules[i], b);
      checkNameFree(rules, rule, rule.id, t.what);
      set(doc, replacedAt(rules, i, rule));
      return {};
    },
    remove(doc: ConfigDoc, key: string) {
      set(doc, withoutRule(get(doc), key, t.what));
      return {};
    },
    move(doc: ConfigDoc, key: string, body: unknown) {
      set(doc, movedRules(get(doc), key, body, t.what));
      return {};
    },
  };
}
