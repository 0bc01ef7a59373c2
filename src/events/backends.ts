// Where events are numbered and kept. One process (embedded store): a counter and a ring in
// memory; the counter starts at the start time in milliseconds, so ids still increase across
// a restart and an id from before it is recognised as older than the ring (the client is told
// to resync). A cluster (Redis): one counter and a trimmed stream in Redis, written with the
// publish to every instance by one script, so every instance streams every event, in order,
// under the same ids.
import type { ClusterBus } from '../store/cluster-bus';
import type { EventBackend, FwEvent } from './types';

export class LocalEvents implements EventBackend {
  private readonly ring: FwEvent[] = [];
  private lastId = Date.now();
  private deliver: (e: FwEvent) => void = () => undefined;

  constructor(private readonly keep: number) {}

  async record(event: Omit<FwEvent, 'id'>): Promise<number> {
    const e = { id: ++this.lastId, ...event } as FwEvent;
    this.ring.push(e);
    if (this.ring.length > this.keep) this.ring.shift();
    this.deliver(e);
    return e.id;
  }

  async after(afterId: number, count: number): Promise<{ events: FwEvent[]; lastId: number }> {
    const first = this.ring.findIndex((e) => e.id > afterId);
    return { events: first < 0 ? [] : this.ring.slice(first, first + count), lastId: this.lastId };
  }

  onEvent(deliver: (e: FwEvent) => void): void {
    this.deliver = deliver;
  }
}

export class RedisEvents implements EventBackend {
  constructor(private readonly store: ClusterBus, private readonly keep: number) {}

  record(event: Omit<FwEvent, 'id'>): Promise<number> {
    return this.store.publishEvent(event, this.keep);
  }

  async after(afterId: number, count: number): Promise<{ events: FwEvent[]; lastId: number }> {
    const r = await this.store.eventsAfter(afterId, count);
    return { events: r.events as unknown as FwEvent[], lastId: r.lastId };
  }

  onEvent(deliver: (e: FwEvent) => void): void {
    this.store.onEvent((m) => {
      if (m.type === 'event') deliver(m.event as unknown as FwEvent);
    });
  }
}
