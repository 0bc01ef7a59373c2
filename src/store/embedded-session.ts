// The embedded store's active session in memory: its record, its accepted journal entries,
// the append log they go to, and the commit's claim. The checks every journal call makes
// before it touches the session are here, once.
import type { GroupAppender } from './files';
import { StoreConflict, type JournalEntry, type SessionRecord } from './types';

export interface ActiveSession {
  record: SessionRecord;
  /** Accepted entries; an entry is visible as soon as its append is accepted. */
  journal: JournalEntry[];
  log: GroupAppender;
  committing: boolean;
  /** A commit's claim (claimCommit): who holds it and until when (unix ms). */
  claim: { by: string; until: number } | null;
}

/** Whether a commit holds the session (running now, or claimed and within its lease). */
export function claimHeld(s: ActiveSession): boolean {
  return s.committing || (s.claim !== null && s.claim.until > Date.now());
}

/** `s` when it is the session `sessionId`; a conflict otherwise. */
export function activeSession(s: ActiveSession | null, sessionId: string): ActiveSession {
  if (!s || s.record.id !== sessionId) throw new StoreConflict(`session ${sessionId} is not active`, 'session');
  return s;
}

/** Refuses a commit's claim or commit made for another journal length than the session's. */
export function checkLength(s: ActiveSession, journalLength: number): void {
  if (s.journal.length !== journalLength) {
    throw new StoreConflict(`session ${s.record.id} has ${s.journal.length} changes, not ${journalLength}`, 'length');
  }
}
