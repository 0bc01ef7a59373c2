// Group append for a shared store: the changes one instance has applied to its candidate are
// appended to the store's journal together, one store call for all that are ready, instead of
// one round trip each. At most one group is in flight; changes applied meanwhile wait for it
// and go in the next one. Every change is applied to the candidate before its append, on top
// of the changes still in flight, so a refused group (another instance appended first) takes
// back with it every change applied after it: they are undone newest first, synchronously,
// before anything else can touch the candidate or be sent, so no change built on a refused
// one ever reaches the store.
import type { JournalEntry } from '../store/types';
import { isFwError } from '../errors';

/** How many changes one group holds at most (Lua's unpack and one script's run stay small). */
const MAX_GROUP = 256;

interface Pending {
  sessionId: string;
  entry: JournalEntry;
  /** takes the change back out of the candidate */
  undo: () => void;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** The store's group append: all or none (see Store.appendChanges). */
export type AppendMany = (sessionId: string, entries: JournalEntry[]) => Promise<void>;

export class GroupAppend {
  /** applied to the candidate, not sent yet, in order */
  private waiting: Pending[] = [];
  /** sent, no answer yet, in order */
  private inFlight: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly appendMany: AppendMany,
    /** an answer that leaves it unknown whether the group landed: rebuild the candidate */
    private readonly onUncertain: () => void,
    private readonly isRefusal: (e: unknown) => boolean,
  ) {}

  /** Appends `entry` (already applied to the candidate); `undo` takes it back if refused. */
  append(sessionId: string, entry: JournalEntry, undo: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ sessionId, entry, undo, resolve, reject });
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
    this.appendMany(sessionId, group.map((p) => p.entry)).then(
      () => this.settled(group, null),
      (e: unknown) => this.settled(group, e),
    );
  }

  private settled(group: Pending[], error: unknown): void {
    this.inFlight = [];
    if (error === null) {
      for (const p of group) p.resolve();
    } else if (this.isRefusal(error)) {
      // nothing of the group landed: take it and everything applied on top of it back
      const dependent = this.waiting.splice(0);
      const all = [...group, ...dependent];
      for (let i = all.length - 1; i >= 0; i--) all[i].undo();
      for (const p of all) p.reject(error);
    } else if (isFwError(error) && error.code === 'ERR_SYS_4006') {
      // made on the primary, not confirmed by enough replicas: the candidate is what the
      // primary holds, so what waits here stays valid and goes next
      for (const p of group) p.reject(error);
    } else {
      // unknown whether it landed (the connection failed): the candidate is rebuilt from the
      // store before its next use, and what waits here was built on it
      this.onUncertain();
      for (const p of [...group, ...this.waiting.splice(0)]) p.reject(error);
    }
    this.schedule();
  }
}
