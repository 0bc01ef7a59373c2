// One conntrack listing shared by the requests of the same moment (FW_SESSION_CACHE_MS):
// pages 2..n of a session listing, the other filters of a console page and the impact shown
// beside the pending diff read the table once instead of once each (a listing of 100,000
// connections is 0.5 s of CPU in conntrack alone: docs/performance.md, "Session table").
// A listing is served for at most the TTL after it was read, and never after a change the
// daemon made to the table or to what decides the marks (a commit's apply, an end of
// sessions, the sweep of cut ones). Traffic changes the table too (new connections,
// counters, a rematch's cut mark): that is what the TTL bounds.
import type { ConnEntry, Narrowing } from './conntrack';

interface Held {
  /** when its listing was read (null: still being read; requests meanwhile share it) */
  readAt: number | null;
  list: Promise<ConnEntry[]>;
}

/** Narrowed listings held at once besides the whole table: requests with other filters list on their own. */
const MAX_HELD = 16;

export class ListingCache {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  /** Forgets every listing: what is read after this sees the change. */
  invalidate(): void {
    this.held.clear();
  }

  /**
   * The entries `n` selects: the whole table's listing when one is fresh (it holds every
   * entry), else this narrowing's own, else a new one read with `read`.
   */
  get(n: Narrowing, read: (n: Narrowing) => Promise<ConnEntry[]>): Promise<ConnEntry[]> {
    if (this.ttlMs <= 0) return read(n);
    this.prune();
    const usable = this.held.get('') ?? this.held.get(n.key);
    if (usable) return usable.list;
    if (n.key !== '' && this.held.size >= MAX_HELD) return read(n);
    const h: Held = { readAt: null, list: read(n) };
    this.held.set(n.key, h);
    h.list.then(() => {
      h.readAt = this.now();
      this.expireLater();
    }, () => {
      if (this.held.get(n.key) === h) this.held.delete(n.key); // a failure is not served again
    });
    return h.list;
  }

  /** The whole table's listing when one is held (being read, or read within the TTL); null otherwise. */
  whole(): Promise<ConnEntry[]> | null {
    if (this.ttlMs <= 0) return null;
    this.prune();
    return this.held.get('')?.list ?? null;
  }

  /** Drops the listings older than the TTL (their entries are no longer held). */
  private prune(): void {
    const t = this.now();
    for (const [k, h] of this.held) if (h.readAt !== null && t - h.readAt >= this.ttlMs) this.held.delete(k);
  }

  /** An idle daemon does not hold 100,000 entries past the TTL. */
  private expireLater(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.prune();
      if (this.held.size > 0) this.expireLater();
    }, this.ttlMs + 10);
    this.timer.unref();
  }
}
