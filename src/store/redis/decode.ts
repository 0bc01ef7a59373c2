// What the Redis store reads back turned into the store's records: a script's refusal, journal
// lines, the session hash, an API token with its last use.
import { stringifyKnown } from '../../config/json-pieces';
import { lineDigest } from '../journal-digest';
import type { ApiTokenRecord, ConflictReason, JournalEntry, SessionRecord } from '../types';

export function conflictReason(answer: string): ConflictReason {
  return answer === 'committing' ? 'committing' : answer.startsWith('length') ? 'length' : 'session';
}

/** Journal lines read from position `from` on; an entry's seq is its position in the list. */
export function entriesOf(lines: string[], from: number): JournalEntry[] {
  return lines.map((t, i) => ({ ...(JSON.parse(t) as Omit<JournalEntry, 'seq'>), seq: from + i, digest: lineDigest(t) }));
}

/** The journal line of an entry (its position is the list's, not in the line); a loaded document as the text it was parsed from (json-pieces.ts). */
export function journalLine(e: JournalEntry): string {
  return stringifyKnown({ at: e.at, user: e.user, change: e.change });
}

export function sessionOf(flat: string[]): SessionRecord | null {
  if (!flat.length) return null;
  const h: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) h[flat[i]] = flat[i + 1];
  return {
    id: h.id, owner: h.owner, startedAt: Number(h.startedAt), lastChangeAt: Number(h.lastChangeAt), baseVersion: Number(h.baseVersion),
  };
}

/** A stored token with its last use (kept apart: a use is a small write of its own). */
export function withLastUse(json: string, used: string | null | undefined): ApiTokenRecord {
  const t = JSON.parse(json) as ApiTokenRecord;
  return { ...t, lastUsedAt: used ? Number(used) : null };
}
