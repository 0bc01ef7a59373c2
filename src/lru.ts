// A small least-recently-used map: the bounded caches of per-version data (parsed version
// documents in the session service, version file texts in the embedded store). Whatever a
// cache holds per version must be bounded, or a daemon that commits for months grows by a
// configuration a commit (issue 15).

export class Lru<K, V> {
  private readonly entries = new Map<K, V>();

  /** Holds at most `capacity` entries besides those `pinned` names (never evicted). */
  constructor(private readonly capacity: number, private readonly pinned: (key: K) => boolean = () => false) {}

  /** The entry, now the most recently used. */
  get(key: K): V | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  /** Adds or replaces the entry as the most recently used, then evicts the least recently used. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.evict();
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Drops every entry `drop` names (e.g. the versions a retention pass removed). */
  deleteWhere(drop: (key: K) => boolean): void {
    for (const k of [...this.entries.keys()]) if (drop(k)) this.entries.delete(k);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Evicts from the least recently used end until at most `capacity` unpinned entries are left. */
  evict(): void {
    let unpinned = 0;
    for (const k of this.entries.keys()) if (!this.pinned(k)) unpinned++;
    for (const k of this.entries.keys()) {
      if (unpinned <= this.capacity) break;
      if (this.pinned(k)) continue;
      this.entries.delete(k);
      unpinned--;
    }
  }
}
