// Where traffic log records are kept, per node, the newest FW_TRAFFIC_LOG_KEEP of each: in
// this process's memory on the embedded store (a ring; a restart starts it empty), in a capped
// Redis stream per node in a cluster (traffic-redis.ts), so any instance reads every node's.
// Ids are "ms-seq" in both (Redis stream ids): they increase within a node's log.
import type { NewTrafficRecord, TrafficRecord } from './traffic-record';

export interface TrafficPage {
  /** newest first */
  records: TrafficRecord[];
  /** the id to pass as `before` for the next (older) page; null when none is left */
  next: string | null;
}

export interface TrafficQuery {
  /** only records with a smaller id (a page's next) */
  before: string | null;
  limit: number;
  match: (r: TrafficRecord) => boolean;
  /** records are kept in time order: the scan stops at records this old (unix ms) */
  since: number | null;
}

export interface TrafficStore {
  /** Keeps the records (in order) as `node`'s, dropping the oldest beyond the cap; them with their ids. */
  append(node: string, records: NewTrafficRecord[]): Promise<TrafficRecord[]>;
  /** The newest records of `node` the query selects, by pages. */
  page(node: string, q: TrafficQuery): Promise<TrafficPage>;
  /**
   * The records of `node` after `id`, oldest first (at most `count`); `gap` when records after
   * `id` were dropped before they could be read (the cap) or `id` is not one of this log's.
   */
  after(node: string, id: string, count: number): Promise<{ records: TrafficRecord[]; gap: boolean }>;
  /** The newest id of `node`'s log (null: empty). */
  lastId(node: string): Promise<string | null>;
}

const ID = /^(\d{1,15})-(\d{1,15})$/;

export function isTrafficId(text: string): boolean {
  return ID.test(text);
}

/** Orders "ms-seq" ids. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am - bm || as - bs;
}

/** A page gathered from a newest-first scan over records (both stores scan so). */
export class PageCollector {
  private readonly records: TrafficRecord[] = [];
  private next: string | null = null;

  constructor(private readonly q: TrafficQuery) {}

  /** Takes the next older record; false once the page is complete (or older records cannot match). */
  add(r: TrafficRecord): boolean {
    if (this.q.since !== null && Date.parse(r.at) < this.q.since - CLOCK_SLACK_MS) return false;
    if (!this.q.match(r)) return true;
    if (this.records.length === this.q.limit) {
      this.next = this.records[this.records.length - 1].id;
      return false;
    }
    this.records.push(r);
    return true;
  }

  page(): TrafficPage {
    return { records: this.records, next: this.next };
  }
}

/** Kernel times are not quite in id order (queued, batched): a scan by time looks this much further. */
const CLOCK_SLACK_MS = 5000;

/** The embedded store's: one ring of the newest `keep` records of this node. */
export class MemoryTrafficStore implements TrafficStore {
  private readonly ring: Array<TrafficRecord | undefined>;
  private start = 0;
  private count = 0;
  private lastMs = 0;
  private seq = 0;
  /** whether the ring has dropped records: a resume from before its oldest is a gap */
  private dropped = false;

  constructor(private readonly keep: number) {
    this.ring = new Array<TrafficRecord | undefined>(keep);
  }

  private nextId(): string {
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.seq = 0;
    } else this.seq++;
    return `${this.lastMs}-${this.seq}`;
  }

  private at(i: number): TrafficRecord {
    return this.ring[(this.start + i) % this.keep]!;
  }

  async append(_node: string, records: NewTrafficRecord[]): Promise<TrafficRecord[]> {
    const out = records.map((r) => ({ id: this.nextId(), ...r }));
    for (const r of out) {
      if (this.count < this.keep) this.ring[(this.start + this.count++) % this.keep] = r;
      else {
        this.ring[this.start] = r;
        this.start = (this.start + 1) % this.keep;
        this.dropped = true;
      }
    }
    return out;
  }

  /** The index of the first record with an id above `id` (count when none). */
  private indexAfter(id: string): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareIds(this.at(mid).id, id) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  async page(_node: string, q: TrafficQuery): Promise<TrafficPage> {
    let end = this.count;
    if (q.before !== null) {
      end = this.indexAfter(q.before);
      if (end > 0 && this.at(end - 1).id === q.before) end--;
    }
    const c = new PageCollector(q);
    for (let i = end - 1; i >= 0 && c.add(this.at(i)); i--);
    return c.page();
  }

  async after(_node: string, id: string, count: number): Promise<{ records: TrafficRecord[]; gap: boolean }> {
    const first = this.indexAfter(id);
    // `id` must lie within what is kept: older than the oldest once records were dropped, or
    // newer than the newest (the log of an earlier run of this process), records are missing
    const gap = this.count === 0 || compareIds(id, this.at(this.count - 1).id) > 0 || (this.dropped && compareIds(id, this.at(0).id) < 0);
    const records: TrafficRecord[] = [];
    for (let i = first; i < this.count && records.length < count; i++) records.push(this.at(i));
    return { records, gap };
  }

  async lastId(): Promise<string | null> {
    return this.count ? this.at(this.count - 1).id : null;
  }
}
