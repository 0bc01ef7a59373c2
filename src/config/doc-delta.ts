// A document as the changes from another one that the receiver already holds: what the
// compile pool sends a worker thread that has the running version's document, instead of the
// whole document (at 100,000 policies, serializing it for the thread was ~0.4 s of the HTTP
// thread's CPU per commit, and parsing it there as much again). A candidate shares the
// objects it did not change with its base (workingCopy), so the changed ones are found by
// identity; an object equal but not the same is sent too, which costs bytes, not correctness.
import { same } from './diff';
import { NAMED_COLLECTIONS, workingCopy } from './document';
import type { ConfigDoc } from './types';

const NAMED = NAMED_COLLECTIONS;
const RULES = ['routes', 'policies', 'nat', 'localPolicies'] as const;
type Named = (typeof NAMED)[number];
type Rules = (typeof RULES)[number];

export interface DocDelta {
  /** per collection: the objects set (added or changed) by key, the keys deleted */
  named: Partial<Record<Named, { set: Array<[string, unknown]>; del: string[] }>>;
  /** per rule table: the rules replaced at their positions (the same ids in the same order),
   * or the whole table */
  rules: Partial<Record<Rules, { at: Array<[number, unknown]> } | { all: unknown[] }>>;
  counters: ConfigDoc['counters'];
  /** the HA document when it changed (null: removed) */
  ha?: { value: ConfigDoc['ha'] | null };
}

/** Whether two rule tables hold the same ids in the same order (rules replaced in place at most). */
function sameIds(old: ReadonlyArray<{ id: number }>, neu: ReadonlyArray<{ id: number }>): boolean {
  return old.length === neu.length && old.every((r, i) => r.id === neu[i].id);
}

export function docDelta(base: ConfigDoc, doc: ConfigDoc): DocDelta {
  const delta: DocDelta = { named: {}, rules: {}, counters: { ...doc.counters } };
  if (base.ha !== doc.ha) delta.ha = { value: doc.ha ?? null };
  for (const f of NAMED) {
    const old = base[f] as ReadonlyMap<string, unknown>, neu = doc[f] as ReadonlyMap<string, unknown>;
    const set: Array<[string, unknown]> = [];
    for (const [k, v] of neu) if (old.get(k) !== v) set.push([k, v]);
    const del = [...old.keys()].filter((k) => !neu.has(k));
    if (set.length || del.length) delta.named[f] = { set, del };
  }
  for (const f of RULES) {
    const old: ReadonlyArray<{ id: number }> = base[f], neu: ReadonlyArray<{ id: number }> = doc[f];
    if (old === neu) continue;
    if (sameIds(old, neu)) {
      const at: Array<[number, unknown]> = [];
      neu.forEach((r, i) => {
        if (r !== old[i]) at.push([i, r]);
      });
      if (at.length) delta.rules[f] = { at };
    } else delta.rules[f] = { all: [...neu] };
  }
  return delta;
}

/** The document `delta` describes on top of `base` (left as it was); collections that gained
 * keys are in key order, as parseDoc makes them. */
export function applyDelta(base: ConfigDoc, delta: DocDelta): ConfigDoc {
  return applyDeltaTo(workingCopy(base), delta, true);
}

/**
 * Applies `delta` to `doc` itself (its tables replaced or changed, never its objects): for a
 * document the caller owns, as a version rebuilt from its keyframe and deltas is. With
 * `keyOrder` false the collections that gained keys keep them last: serializeDoc sorts anyway.
 */
export function applyDeltaTo(doc: ConfigDoc, delta: DocDelta, keyOrder: boolean): ConfigDoc {
  for (const f of NAMED) {
    const d = delta.named[f];
    if (!d) continue;
    const map = doc[f] as Map<string, unknown>;
    for (const k of d.del) map.delete(k);
    let added = false;
    for (const [k, v] of d.set) {
      added ||= !map.has(k);
      map.set(k, v);
    }
    if (added && keyOrder) {
      const sorted = [...map.keys()].sort().map((k): [string, unknown] => [k, map.get(k)]);
      map.clear();
      for (const [k, v] of sorted) map.set(k, v);
    }
  }
  for (const f of RULES) {
    const d = delta.rules[f];
    if (!d) continue;
    if ('all' in d) (doc[f] as unknown[]) = d.all;
    else {
      const rules = [...doc[f]] as unknown[];
      for (const [i, r] of d.at) rules[i] = r;
      (doc[f] as unknown[]) = rules;
    }
  }
  doc.counters = { ...delta.counters };
  if (delta.ha) doc.ha = delta.ha.value ?? undefined;
  return doc;
}

/**
 * Makes `doc` (parsed from the store, owned by the caller) share with `base` every object equal
 * to base's under the same key, or in a rule table with the same id: what a candidate made from
 * `base` shares by construction. An instance that loads a version committed elsewhere then
 * sends its compile thread only the changes (docDelta), as the committing instance did, rather
 * than the whole document (at 100,000 policies a full compile of every version on every other
 * instance), and holds one copy of what the two versions have in common. Both documents are
 * never mutated (running versions), so sharing is safe. Returns `doc`.
 */
export function shareUnchanged(base: ConfigDoc, doc: ConfigDoc): ConfigDoc {
  if (base.ha !== doc.ha && same(base.ha, doc.ha)) doc.ha = base.ha;
  for (const f of NAMED) {
    const old = base[f] as ReadonlyMap<string, unknown>, neu = doc[f] as Map<string, unknown>;
    for (const [k, v] of neu) {
      const was = old.get(k);
      if (was !== undefined && was !== v && same(was, v)) neu.set(k, was);
    }
  }
  for (const f of RULES) {
    const old: ReadonlyArray<{ id: number }> = base[f], neu = doc[f] as Array<{ id: number }>;
    const byId = sameIds(old, neu) ? null : new Map(old.map((r) => [r.id, r]));
    neu.forEach((r, i) => {
      const was = byId ? byId.get(r.id) : old[i];
      if (was !== undefined && was !== r && same(was, r)) neu[i] = was;
    });
  }
  return doc;
}
