// The candidate this process caches: the active session's record and its document, the base
// version plus the journal's changes, brought up to date from the store's journal by applying
// only the entries it has not seen (so any instance sharing the store can serve any request
// of the session), or rebuilt from the journal when that cannot be done.
import { applyChange, type ApplyContext, type Change } from '../config/changes';
import { workingCopy } from '../config/document';
import type { ConfigDoc } from '../config/types';
import { journalDigest } from '../store/journal-digest';
import type { JournalEntry, SessionHead, SessionJournal, SessionRecord } from '../store/types';
import { Gate } from './gate';
import type { RunningVersions } from './running-versions';

export interface Candidate {
  sessionId: string;
  /** the journal length it was built for: entries applied, plus those listed in `gaps` */
  seq: number;
  /**
   * Positions below `seq` holding other instances' entries it lacks ([from, to), ascending):
   * its own group landed after them (their footprints did not meet its own). The next sync
   * applies them.
   */
  gaps: Array<[number, number]>;
  doc: ConfigDoc;
  /** holds a change the store refused: rebuild before using it again */
  dirty: boolean;
  /**
   * Per journal position, the digest of the stored line it applied (a shared store's; see
   * journalDigest()): known for the entries it read and those it appended and saw land.
   */
  digests: Array<string | undefined>;
}

export class CandidateReplica<C> {
  /** the active session as last read from the store (null: none) */
  session: SessionRecord | null = null;
  /** its candidate (null with no session) */
  cand: Candidate | null = null;
  /** changes run shared, a sync from the store exclusive (gate.ts) */
  readonly gate = new Gate();
  /** a sync that waits for the gate: callers arriving meanwhile share it */
  private queuedSync: { started: boolean; done: Promise<void> } | null = null;

  constructor(
    private readonly journal: SessionJournal,
    private readonly versions: RunningVersions<C>,
  ) {}

  /**
   * The store may no longer hold what the cached candidate holds (an append whose outcome is
   * unknown; a failover to a replica that had not received the last writes): the candidate
   * is rebuilt from the store before its next use.
   */
  storeChanged(): void {
    if (this.cand) this.cand.dirty = true;
  }

  /** A session just begun by this process on `baseDoc`: its candidate is the base itself. */
  start(rec: SessionRecord, baseDoc: ConfigDoc): Promise<void> {
    return this.gate.runExclusive(async () => {
      this.session = { ...rec };
      this.cand = { sessionId: rec.id, seq: 0, gaps: [], doc: workingCopy(baseDoc), dirty: false, digests: [] };
    });
  }

  /**
   * This process's entries landed in the journal of `sessionId` (at their seq): their digests
   * are those of the candidate's own positions.
   */
  ownLanded(sessionId: string, entries: readonly JournalEntry[]): void {
    const c = this.cand;
    if (c?.sessionId !== sessionId) return;
    for (const e of entries) c.digests[e.seq] = e.digest;
  }

  /**
   * The digest of the journal this candidate is built from (journal-digest.ts), to compare
   * with the store's: null when it does not know every position's (gaps, entries appended
   * to a sole writer's store, whose entries carry none).
   */
  journalDigest(): string | null {
    const c = this.cand;
    if (!c || c.dirty || c.gaps.length) return null;
    const all: string[] = [];
    for (let i = 0; i < c.seq; i++) {
      const d = c.digests[i];
      if (d === undefined) return null;
      all.push(d);
    }
    return journalDigest(all);
  }

  /** Forgets session `sessionId` (ended or committed), if it is the one cached. */
  forget(sessionId: string): void {
    if (this.session?.id !== sessionId) return;
    this.session = null;
    this.cand = null;
  }

  /**
   * Brings the session and the cached candidate up to date with the store (exclusive: after
   * the appends in flight). Callers that arrive while one waits for the gate share it, since
   * it reads the store after they arrived: a burst of refused changes costs one sync.
   */
  synced(): Promise<void> {
    if (this.queuedSync && !this.queuedSync.started) return this.queuedSync.done;
    const slot = { started: false, done: Promise.resolve() };
    slot.done = this.gate.runExclusive(() => {
      slot.started = true;
      return this.syncFromStore();
    });
    if (!slot.started) this.queuedSync = slot;
    return slot.done;
  }

  private async syncFromStore(): Promise<void> {
    const c = this.cand;
    const from = c && !c.dirty ? (c.gaps.length ? c.gaps[0][0] : c.seq) : 0;
    // the head and the entries this candidate lacks in one read (one round trip when shared)
    const since = c && !c.dirty ? await this.journal.sessionSince(from) : undefined;
    const head = since === undefined ? await this.journal.sessionHead() : since?.head ?? null;
    if (!head) {
      this.session = null;
      this.cand = null;
      return;
    }
    this.session = { ...head.session };
    const same = c && !c.dirty && c.sessionId === head.session.id;
    if (same && c.seq === head.length && !c.gaps.length) return;
    if (same && c.seq <= head.length) {
      const entries = since?.entries ?? await this.journal.journalSince(c.sessionId, from);
      if (entries && (await this.applyEntries(c, from, entries))) return;
    }
    await this.rebuild(head);
  }

  /**
   * Applies the journal entries from position `from` on that the candidate lacks: those in
   * its gaps and those past its length (its own are applied already; footprints let the gaps'
   * entries apply after them). False when one does not fit: the caller rebuilds.
   */
  private async applyEntries(c: Candidate, from: number, entries: JournalEntry[]): Promise<boolean> {
    let g = 0; // the first gap not yet behind the entry (both ascend)
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry.seq !== from + i) return false;
      while (g < c.gaps.length && c.gaps[g][1] <= entry.seq) g++;
      const lacks = entry.seq >= c.seq || (g < c.gaps.length && entry.seq >= c.gaps[g][0]);
      if (!lacks) continue;
      try {
        applyChange(c.doc, entry.change, await this.contextFor(entry.change)); // leaves c.doc as it was if it throws
      } catch {
        return false;
      }
      // (an entry it holds already keeps its own digest: the store's may be another line's)
      c.digests[entry.seq] = entry.digest;
    }
    if (from + entries.length < c.seq) return false; // its own entries are not all there
    c.seq = from + entries.length;
    c.gaps = [];
    return true;
  }

  private async rebuild(head: SessionHead): Promise<void> {
    const journal = (await this.journal.journalSince(head.session.id, 0)) ?? [];
    const doc = workingCopy(await this.versions.versionDoc(head.session.baseVersion));
    for (const entry of journal) applyChange(doc, entry.change, await this.contextFor(entry.change));
    this.cand = { sessionId: head.session.id, seq: journal.length, gaps: [], doc, dirty: false, digests: journal.map((e) => e.digest) };
  }

  private async contextFor(change: Change): Promise<ApplyContext> {
    if (change.op !== 'rollback') return {};
    return { versionDoc: await this.versions.versionDoc(change.version) };
  }
}
