// What a change does, rule by rule: for each changed object the fields that differ (old and
// new, in the API's spelling), and for the rule tables the rules that moved, with their old
// and new positions and neighbours. diff.ts says which objects changed; this says how.
//
// Moved rules are the fewest that explain the new order: the rules present in both tables
// that keep their relative order (a longest increasing subsequence of their old positions)
// stay; every other one moved. A catch-all moved from the bottom to the top is one move, not
// 2,000 rules each one place down.
import { EXPORT_FORMS } from './export';
import { diffDocs, diffSummary, type ConfigDiff, type DiffItem } from './diff';
import type { ConfigDoc } from './types';

export interface FieldChange {
  field: string;
  old: unknown;
  new: unknown;
}

/** A rule's neighbours in its table (ids; null at an end). */
export interface Neighbours {
  above: string | null;
  below: string | null;
}

export interface RuleMove {
  kind: 'policy' | 'nat';
  key: string;
  /** the rule's name, when it has one */
  name?: string;
  /** 1-based positions in the old and the new table */
  from: number;
  to: number;
  old_neighbours: Neighbours;
  new_neighbours: Neighbours;
}

export interface DetailedDiff {
  /** every changed object with its fields */
  changed: Array<DiffItem & { fields: FieldChange[] }>;
  /** added rules with their 1-based position */
  added: Array<DiffItem & { position?: number }>;
  /** deleted rules with the 1-based position they had */
  deleted: Array<DiffItem & { position?: number }>;
  moved: RuleMove[];
}

type Keyed = Map<string, unknown>;

function table(doc: ConfigDoc, kind: string): Keyed {
  switch (kind) {
    case 'address': return doc.addresses;
    case 'service': return doc.services;
    case 'address-group': return doc.addressGroups;
    case 'service-group': return doc.serviceGroups;
    case 'dynamic-set': return doc.dynamicSets;
    case 'schedule': return doc.schedules;
    case 'zone': return doc.zones;
    case 'interface': return doc.interfaces;
    case 'vlan': return doc.vlans;
    case 'dhcp': return doc.dhcp;
    case 'ha': return new Map(doc.ha ? [['ha', doc.ha]] : []);
    default: return new Map(rules(doc, kind).map((r) => [String(r.id), r]));
  }
}

function rules(doc: ConfigDoc, kind: string): Array<{ id: number }> {
  return kind === 'policy' ? doc.policies : kind === 'nat' ? doc.nat : kind === 'route' ? doc.routes : kind === 'local-policy' ? doc.localPolicies : [];
}

/** The ordered tables (evaluation order): a rule's place there says which rule it is. */
const ORDERED = ['policy', 'nat', 'local-policy'];

/** 1-based positions of the rules of the ordered tables of `doc`, by "kind id". */
function positionsOf(doc: ConfigDoc): Map<string, number> {
  const out = new Map<string, number>();
  for (const kind of ORDERED) rules(doc, kind).forEach((r, i) => out.set(`${kind} ${r.id}`, i + 1));
  return out;
}

/** `item` with its position in `positions` (rules of an ordered table; others as they are). */
function placed<T extends DiffItem>(item: T, positions: Map<string, number>): T & { position?: number } {
  const position = positions.get(`${item.kind} ${item.key}`);
  return position === undefined ? item : { ...item, position };
}

/** The fields of two forms of one object that differ (the id, which names it, left out). */
export function fieldChanges(kind: string, before: unknown, after: unknown): FieldChange[] {
  const form = EXPORT_FORMS[kind] as (o: unknown) => Record<string, unknown>;
  const a = form(before);
  const b = form(after);
  const out: FieldChange[] = [];
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (field === 'id') continue;
    if (JSON.stringify(a[field]) !== JSON.stringify(b[field])) out.push({ field, old: a[field] ?? null, new: b[field] ?? null });
  }
  return out;
}

/** Indexes (into `seq`) of one longest strictly increasing subsequence, O(n log n). */
function longestIncreasing(seq: number[]): Set<number> {
  const tails: number[] = []; // index into seq of the smallest tail of each length
  const prev = new Array<number>(seq.length).fill(-1);
  for (let i = 0; i < seq.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (seq[tails[mid]] < seq[i]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const keep = new Set<number>();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) keep.add(i);
  return keep;
}

function neighbours(ids: string[], at: number): Neighbours {
  return { above: at > 0 ? ids[at - 1] : null, below: at < ids.length - 1 ? ids[at + 1] : null };
}

/** The rules of an ordered table that moved between `before` and `after`. */
export function ruleMoves(kind: 'policy' | 'nat', before: Array<{ id: number; name?: string }>, after: Array<{ id: number; name?: string }>): RuleMove[] {
  const oldIds = before.map((r) => String(r.id));
  const newIds = after.map((r) => String(r.id));
  const oldAt = new Map(oldIds.map((id, i) => [id, i]));
  const common = newIds.filter((id) => oldAt.has(id));
  const stay = longestIncreasing(common.map((id) => oldAt.get(id)!));
  const newAt = new Map(newIds.map((id, i) => [id, i]));
  return common.filter((_, i) => !stay.has(i)).map((key) => {
    const from = oldAt.get(key)!;
    const to = newAt.get(key)!;
    const name = after[to].name;
    return { kind, key, ...(name ? { name } : {}), from: from + 1, to: to + 1, old_neighbours: neighbours(oldIds, from), new_neighbours: neighbours(newIds, to) };
  });
}

/** The details of `diff` (diffDocs(before, after)): fields of the changed objects, positions, moves. */
export function detailDiff(before: ConfigDoc, after: ConfigDoc, diff: ConfigDiff): DetailedDiff {
  // a rule is named by its place too (the new one; a deleted rule's old one): "policy 12
  // (position 3)" says which rule it is where ids alone did not (issue 43)
  const now = positionsOf(after);
  const changed = diff.changed.map((item) => ({
    ...placed(item, now), fields: fieldChanges(item.kind, table(before, item.kind).get(item.key), table(after, item.kind).get(item.key)),
  }));
  const added = diff.added.map((item) => placed(item, now));
  const was = diff.deleted.some((i) => ORDERED.includes(i.kind)) ? positionsOf(before) : now; // the old table's map only when needed
  const deleted = diff.deleted.map((item) => (was === now ? item : placed(item, was)));
  const moved = [
    ...(diff.reordered.includes('policies') ? ruleMoves('policy', before.policies, after.policies) : []),
    ...(diff.reordered.includes('nat') ? ruleMoves('nat', before.nat, after.nat) : []),
  ];
  return { changed, added, deleted, moved };
}

export type FullDetailedDiff = Omit<ConfigDiff, 'added' | 'changed' | 'deleted'> & DetailedDiff & { base_version: number };

/** The whole detailed answer from `before` (version `baseVersion`) to `after`. */
export function detailedDiff(before: ConfigDoc, after: ConfigDoc, baseVersion: number): FullDetailedDiff {
  const d = diffDocs(before, after);
  return { base_version: baseVersion, ...d, ...detailDiff(before, after, d) };
}

/** At most this many moves are named in a version's change summary; the rest are counted. */
const SUMMARY_MOVES = 5;

/**
 * A version's change summary: diffSummary's counts, then the rules that moved with their old
 * and new positions ("; moved policy 2001 from 2001 to 1"), so that the version list, the
 * commit event and the audit say what a reorder did.
 */
export function changeSummary(before: ConfigDoc, after: ConfigDoc): string {
  const d = diffDocs(before, after);
  const moves = [
    ...(d.reordered.includes('policies') ? ruleMoves('policy', before.policies, after.policies) : []),
    ...(d.reordered.includes('nat') ? ruleMoves('nat', before.nat, after.nat) : []),
  ];
  if (!moves.length) return diffSummary(d);
  const named = moves.slice(0, SUMMARY_MOVES).map((m) => `${m.kind} ${m.key}${m.name ? ` (${m.name})` : ''} from ${m.from} to ${m.to}`);
  const more = moves.length > SUMMARY_MOVES ? ` and ${moves.length - SUMMARY_MOVES} more` : '';
  return `${diffSummary(d)}; moved ${named.join(', ')}${more}`;
}
