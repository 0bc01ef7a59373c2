// Committed versions stored as deltas (issue 30): a one-change commit at 100,000 policies used
// to serialize and write the whole ~13 MB document (66 ms of CPU for JSON.stringify, 0.2 s of
// writing on the embedded store; on Redis a 13 MB SET with WAIT, then a GET and a parse on
// every other instance). The commit pipeline knows the candidate's change from the running
// version (src/config/doc-delta.ts), so a commit stores that change, and a whole copy of the
// version (a "keyframe") is written after the commit's answer once the chain of deltas since
// the last keyframe is long or heavy. Both stores keep these rules (docs/store.md).
import { applyDeltaTo, type DocDelta } from '../config/doc-delta';
import { NAMED_COLLECTIONS, parseDoc, serializeDoc } from '../config/document';
import type { ConfigDoc } from '../config/types';
import { metaOf } from './records';
import type { VersionMeta, VersionRecord } from './types';

/** The commit a delta was made from: a version is one commit by its number, time and author
 * (after a Redis failover another commit may have taken a number, issue 31). */
export interface CommitId {
  version: number;
  time: number;
  author: string;
}

const RULE_TABLES = ['routes', 'policies', 'nat', 'localPolicies'] as const;
type RuleTable = (typeof RULE_TABLES)[number];

/**
 * A delta as stored: docDelta's, except that a reordered rule table (docDelta sends it whole:
 * a move of one policy at 100,000 would be the whole 13 MB again) is its ids in the new
 * order and only the rules that are not the base's (`order`), put back together from the
 * base's rules by id (unpackDelta).
 */
export interface StoredDelta extends Omit<DocDelta, 'rules'> {
  rules: Partial<Record<RuleTable, DocDelta['rules'][RuleTable] | { order: { ids: number[]; set: Array<[number, unknown]> } }>>;
}

/** A commit's change as the pipeline knows it: the running version it was made on, and the delta from it. */
export interface VersionChange {
  base: CommitId;
  delta: StoredDelta;
}

/** A version as a delta record: its meta, the commit it applies to (the version before it), the delta. */
export interface VersionDeltaRecord extends VersionMeta {
  base: CommitId;
  delta: StoredDelta;
}

/** A rule table's rules by id: an array indexed by id when the ids are small integers (a Map of
 * 100,000 rules took 25-55 ms to build, the array a few), else a Map. */
function byId(rules: ReadonlyArray<{ id: number }>): { get(id: number): unknown } {
  let max = 0;
  for (const r of rules) max = Number.isSafeInteger(r.id) && r.id >= 0 && max >= 0 ? Math.max(max, r.id) : -1;
  if (max < 0 || max > 4 * rules.length + 1024) return new Map(rules.map((r) => [r.id, r]));
  const at: unknown[] = new Array(max + 1);
  for (const r of rules) at[r.id] = r;
  return { get: (id) => (Number.isSafeInteger(id) && id >= 0 ? at[id] : undefined) };
}

/** docDelta's delta as stored: reordered tables as their order and their changed rules. */
export function packDelta(base: ConfigDoc, delta: DocDelta): StoredDelta {
  const rules: StoredDelta['rules'] = {};
  for (const f of RULE_TABLES) {
    const d = delta.rules[f];
    if (!d || !('all' in d)) {
      if (d) rules[f] = d;
      continue;
    }
    const old = byId(base[f]);
    const all = d.all as Array<{ id: number }>;
    rules[f] = { order: { ids: all.map((r) => r.id), set: all.filter((r) => old.get(r.id) !== r).map((r): [number, unknown] => [r.id, r]) } };
  }
  return { ...delta, rules };
}

/** The delta `packDelta` stored, on the document it was made on (the version before). */
export function unpackDelta(base: ConfigDoc, stored: StoredDelta): DocDelta {
  const rules: DocDelta['rules'] = {};
  for (const f of RULE_TABLES) {
    const d = stored.rules[f];
    if (!d || !('order' in d)) {
      if (d) rules[f] = d;
      continue;
    }
    const old = byId(base[f]), set = new Map(d.order.set);
    rules[f] = {
      all: d.order.ids.map((id) => {
        const r = set.get(id) ?? old.get(id);
        if (r === undefined) throw new Error(`a stored delta names ${f} rule ${id}, which neither it nor its base holds`);
        return r;
      }),
    };
  }
  return { ...stored, rules };
}

/** Deltas since the last keyframe after which a commit is followed by a keyframe of its version:
 * a read of any version parses one keyframe and at most this many deltas. */
export const KEYFRAME_EVERY = 16;

/** A delta this large is followed by a keyframe at once (a reordered table, a big load): the
 * reads after it would pay for it as for a whole document. */
export const KEYFRAME_DELTA_BYTES = 1024 * 1024;

/** Whether two commits are the same one. */
export function sameCommit(a: CommitId, b: CommitId): boolean {
  return a.version === b.version && a.time === b.time && a.author === b.author;
}

/** The delta record of `version`, made on `change.base`. */
export function deltaRecordOf(version: VersionRecord, change: VersionChange): VersionDeltaRecord {
  const { version: v, time, author } = change.base;
  return { ...metaOf(version), base: { version: v, time, author }, delta: change.delta };
}

/** Whether the store records `version` as the delta `change`: only on the version it was made
 * on, which is the running one (anything else is stored whole). */
export function storesAsDelta(version: VersionMeta, change: VersionChange | undefined, running: CommitId): change is VersionChange {
  return change !== undefined && change.base.version === version.version - 1 && sameCommit(change.base, running);
}

/** Whether the version just stored as a delta should get a keyframe: `chain` deltas since
 * the last keyframe (this one included), this one of `bytes`. */
export function keyframeDue(chain: number, bytes: number, every = KEYFRAME_EVERY): boolean {
  return chain >= every || bytes > KEYFRAME_DELTA_BYTES;
}

/** Whether a record read from a store is a delta (a keyframe has `doc`). */
export function isDeltaRecord(r: VersionRecord | VersionDeltaRecord): r is VersionDeltaRecord {
  return (r as VersionDeltaRecord).delta !== undefined && (r as VersionRecord).doc === undefined;
}

/** The version the last of `deltas` (oldest first, each on the one before, the first on
 * `keyframe`) describes, whole: the record it would have been stored as. */
export function rebuildVersion(keyframe: VersionRecord, deltas: VersionDeltaRecord[]): VersionRecord {
  if (!deltas.length) return keyframe;
  // the parsed keyframe is ours: the deltas go into it, and serializeDoc puts keys in order
  const doc: ConfigDoc = parseDoc(keyframe.doc);
  for (const d of deltas) applyDeltaTo(doc, unpackDelta(doc, d.delta), false);
  return { ...metaOf(deltas[deltas.length - 1]), doc: serializeDoc(doc) };
}

/**
 * The change the pipeline passes a store for the commit of `doc` made on `base`, or undefined
 * when storing it whole is as cheap: a rollback's document (a deep copy, cloneDoc) or a load
 * of everything shares no object with its base, and its delta would be the whole document.
 */
export function versionChange(base: { meta: CommitId; doc: ConfigDoc }, doc: ConfigDoc, delta: DocDelta): VersionChange | undefined {
  const stored = packDelta(base.doc, delta);
  let changed = 0, total = doc.policies.length + doc.nat.length + doc.routes.length;
  for (const f of NAMED_COLLECTIONS) total += doc[f].size;
  for (const d of Object.values(stored.named)) changed += d.set.length + d.del.length;
  // a reordered table's ids count as a tenth of its rules (a few bytes each, against a rule's hundred)
  for (const d of Object.values(stored.rules)) changed += 'order' in d ? d.order.set.length + d.order.ids.length / 10 : 'all' in d ? d.all.length : d.at.length;
  if (changed > 16 && changed * 4 > total) return undefined;
  const { version, time, author } = base.meta;
  return { base: { version, time, author }, delta: stored };
}
