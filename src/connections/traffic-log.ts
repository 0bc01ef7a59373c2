// The traffic log of this node: takes the kernel's records from the data plane's bounded
// queue in batches, completes them with the running version (traffic-record.ts), keeps them
// in the store and hands each to its listeners (the live tail, forwarding). One batch at a
// time, with a turn of the event loop between batches: a flood fills the queue (and drops
// there, counted), never the API's turns.
import type { Logger } from 'pino';
import type { ConfigDoc } from '../config/types';
import type { TrafficFeed } from '../dataplane/traffic-kernel';
import type { CompiledConfig } from '../eval/compiled';
import { trafficRecord, type TrafficRecord } from './traffic-record';
import type { TrafficStore } from './traffic-store';

/** Records taken from the queue per batch. */
const BATCH = 512;

export type TrafficListener = (r: TrafficRecord) => void;

export interface RunningConfig {
  doc: ConfigDoc;
  compiled: CompiledConfig;
}

export class TrafficLog {
  private readonly listeners = new Set<TrafficListener>();
  private closed = false;
  private storeFailures = 0;
  private storedCount = 0;

  constructor(
    private readonly feed: TrafficFeed | null,
    readonly store: TrafficStore,
    /** this node's id (known once the server listens) */
    private readonly node: () => string,
    private readonly running: () => Promise<RunningConfig>,
    private readonly log: Logger,
  ) {}

  /** Calls `listener` with every record of this node from now on, once stored; answers the function that stops it. */
  onRecord(listener: TrafficListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.feed) void this.run(this.feed);
  }

  /** Records lost before they were kept: the queue was full, or the store refused them. */
  get dropped(): number {
    return (this.feed?.dropped ?? 0) + this.storeFailures;
  }

  get stored(): number {
    return this.storedCount;
  }

  get queued(): number {
    return this.feed?.queued ?? 0;
  }

  private async run(feed: TrafficFeed): Promise<void> {
    while (!this.closed) {
      await feed.readable();
      if (this.closed) return;
      const batch = feed.take(BATCH);
      if (batch.length === 0) continue;
      try {
        const { doc, compiled } = await this.running();
        const node = this.node();
        const stored = await this.store.append(node, batch.map((k) => trafficRecord(k, node, doc, compiled)));
        this.storedCount += stored.length;
        for (const r of stored) for (const l of this.listeners) l(r);
      } catch (e) {
        this.storeFailures += batch.length;
        this.log.warn({ err: String(e), records: batch.length }, 'traffic log records lost: the store refused them');
      }
      await new Promise((r) => setImmediate(r));
    }
  }

  close(): void {
    this.closed = true;
  }
}
