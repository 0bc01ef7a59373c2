// Group append for a shared store: the changes one instance has applied to its candidate are
// appended to the store's journal together, one store call for all that are ready, instead of
// one round trip each. At most one group is in flight; changes applied meanwhile wait for it
// and go in the next one. Every change is applied to the candidate before its append, on top
// of the changes still in flight, so a refused group (it may depend on another instance's
// entry this one has not seen) takes back with it every change applied after it: they are
// undone newest first, synchronously, before anything else can touch the candidate or be
// sent, so no change built on a refused one ever reaches the store.
//
// A group whose footprint (src/config/footprint.ts) no unseen entry touched lands after them:
// the store answers where, the changes waiting move along by as many positions, and the
// candidate notes the positions it lacks (the next sync applies them).
import type { AppendReach, JournalEntry } from '../store/types';
import { isFwError } from '../errors';
import { unionFootprint } from '../config/footprint';

/** How many changes one group holds at most (Lua's unpack and one script's run stay small). */
const MAX_GROUP = 256;

interface Pending {
  sessionId: string;
  entry: JournalEntry;
  /** the change's footprint keys (null: it may touch anything) */
  keys: string[] | null;
  /** takes the change back out of the candidate */
  undo: () => void;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** The store's group append: all or none, resolving to where the first landed (see Store.appendChanges). */
export type AppendMany = (sessionId: string, entries: JournalEntry[], reach: AppendReach) => Promise<number>;

/** What the group append asks of the candidate it appends for. */
export interface AppendTarget {
  /** the first position the candidate may lack and this process's tag, for a group at `expected` */
  reach(sessionId: string, expected: number): Omit<AppendReach, 'keys'>;
  /** a group expected at `expected` landed at `at` (later: other instances' entries in between);
   * its entries' seq are where they landed */
  landed(sessionId: string, expected: number, at: number, entries: JournalEntry[]): void;
  /** an answer that leaves it unknown whether the group landed: rebuild the candidate */
  uncertain(): void;
  /** a refusal (nothing landed), as opposed to a failure */
  isRefusal(e: unknown): boolean;
}

export class GroupAppend {
  /** applied to the candidate, not sent yet, in order */
  private waiting: Pending[] = [];
  /** sent, no answer yet, in order */
  private inFlight: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly appendMany: AppendMany,
    private readonly target: AppendTarget,
  ) {}

  /** Appends `entry` (already applied to the candidate); `undo` takes it back if refused. */
  append(sessionId: string, entry: JournalEntry, keys: string[] | null, undo: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ sessionId, entry, keys, undo, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Sends at the end of this turn of the event loop, not at once: the changes retried together
   * after a refused group (or arriving together) then go as one group, not as one alone
   * followed by the rest.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    if (this.inFlight.length || !this.waiting.length) return;
    const sessionId = this.waiting[0].sessionId;
    let n = 0;
    while (n < this.waiting.length && n < MAX_GROUP && this.waiting[n].sessionId === sessionId) n++;
    const group = this.waiting.splice(0, n);
    this.inFlight = group;
    const expected = group[0].entry.seq;
    const reach = { ...this.target.reach(sessionId, expected), keys: unionFootprint(group.map((p) => p.keys)) };
    this.appendMany(sessionId, group.map((p) => p.entry), reach).then(
      (at) => this.settled(group, null, at),
      (e: unknown) => this.settled(group, e, writtenAt(e)),
    );
  }

  /** The group landed at `at`: the changes waiting, numbered after it, move along with it. */
  private landed(group: Pending[], at: number): void {
    const expected = group[0].entry.seq;
    const shift = at - expected;
    for (const p of [...group, ...this.waiting]) p.entry.seq += shift;
    this.target.landed(group[0].sessionId, expected, at, group.map((p) => p.entry));
  }

  private settled(group: Pending[], error: unknown, at: number | undefined): void {
    this.inFlight = [];
    if (error === null) {
      this.landed(group, at!);
      for (const p of group) p.resolve();
    } else if (this.target.isRefusal(error)) {
      // nothing of the group landed: take it and everything applied on top of it back
      const dependent = this.waiting.splice(0);
      const all = [...group, ...dependent];
      for (let i = all.length - 1; i >= 0; i--) all[i].undo();
      for (const p of all) p.reject(error);
    } else if (isFwError(error) && error.code === 'ERR_SYS_4006' && at !== undefined) {
      // made on the primary, not confirmed by enough replicas: the candidate is what the
      // primary holds, so what waits here stays valid and goes next
      this.landed(group, at);
      for (const p of group) p.reject(error);
    } else {
      // unknown whether it landed (the connection failed): the candidate is rebuilt from the
      // store before its next use, and what waits here was built on it
      this.target.uncertain();
      for (const p of [...group, ...this.waiting.splice(0)]) p.reject(error);
    }
    this.schedule();
  }
}

/** Where an append that was made but not confirmed landed (the 503's `written`). */
function writtenAt(e: unknown): number | undefined {
  const at = (e as { written?: unknown } | null)?.written;
  return typeof at === 'number' ? at : undefined;
}
