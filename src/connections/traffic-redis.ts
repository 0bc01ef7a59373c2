// The traffic logs of a cluster: each node's records in a capped Redis stream of its own (the
// ClusterBus's NodeStreams), so any instance reads any node's log and tails it. Stream ids are
// the record ids.
import type { NodeStreams } from '../store/cluster-bus';
import type { NewTrafficRecord, TrafficRecord } from './traffic-record';
import { compareIds, PageCollector, type TrafficPage, type TrafficQuery, type TrafficStore } from './traffic-store';

/** Entries read per Redis call while a page is gathered. */
const CHUNK = 500;

export class RedisTrafficStore implements TrafficStore {
  constructor(private readonly streams: NodeStreams, private readonly keep: number) {}

  async append(node: string, records: NewTrafficRecord[]): Promise<TrafficRecord[]> {
    const ids = await this.streams.append(node, records.map((r) => JSON.stringify(r)), this.keep);
    return records.map((r, i) => ({ id: ids[i], ...r }));
  }

  async page(node: string, q: TrafficQuery): Promise<TrafficPage> {
    const c = new PageCollector(q);
    let end = q.before === null ? '+' : `(${q.before}`;
    for (;;) {
      const chunk = await this.streams.range(node, '-', end, CHUNK, true);
      for (const e of chunk) if (!c.add({ id: e.id, ...(JSON.parse(e.value) as NewTrafficRecord) })) return c.page();
      if (chunk.length < CHUNK) return c.page();
      end = `(${chunk[chunk.length - 1].id}`;
    }
  }

  async after(node: string, id: string, count: number): Promise<{ records: TrafficRecord[]; gap: boolean }> {
    const [first, last, chunk] = await Promise.all([
      this.streams.first(node), this.streams.last(node), this.streams.range(node, `(${id}`, '+', count, false),
    ]);
    // as the memory store: `id` must lie within what is kept
    const gap = first === null || last === null || compareIds(id, last) > 0 || compareIds(id, first) < 0;
    return { records: chunk.map((e) => ({ id: e.id, ...(JSON.parse(e.value) as NewTrafficRecord) })), gap };
  }

  lastId(node: string): Promise<string | null> {
    return this.streams.last(node);
  }
}
