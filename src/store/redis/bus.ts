// The Redis side of the ClusterBus port (../cluster-bus.ts): the firewall's pub/sub channel on a
// connection of its own (a subscriber cannot send commands), the numbered event log, the
// registries of instances and commit workers, and once-only claims. RedisStore owns the
// connections and hands them over; it answers the port through this class.
import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import type { Registry, StoreEvent } from '../cluster-bus';
import type { keysOf } from './keys';
import type { Scripted } from './scripts';

type Call = <T>(fn: () => Promise<T>) => Promise<T>;

export class RedisBus {
  private readonly emitter = new EventEmitter();

  constructor(
    private readonly keys: ReturnType<typeof keysOf>,
    /** commands (fail fast) */
    private readonly redis: Scripted,
    /** the write connection (events are published on it, after the writes they report) */
    private readonly writer: Scripted,
    /** the subscriber connection */
    private readonly sub: Redis,
    private readonly call: Call,
  ) {
    sub.on('message', (channel: string, text: string) => this.onMessage(channel, text));
    // after an outage the instance may have missed messages: listeners re-read what matters
    let wasReady = false;
    redis.on('ready', () => {
      if (wasReady) this.emitter.emit('reconnected');
      wasReady = true;
    });
  }

  subscribe(): Promise<unknown> {
    return this.sub.subscribe(this.keys.channel);
  }

  onEvent(listener: (e: StoreEvent) => void): void {
    this.emitter.on('event', listener);
  }

  onReconnect(listener: () => void): void {
    this.emitter.on('reconnected', listener);
  }

  private onMessage(channel: string, text: string): void {
    if (channel !== this.keys.channel) return;
    let event: StoreEvent;
    try {
      event = JSON.parse(text) as StoreEvent;
    } catch {
      return; // not ours: ignore
    }
    this.emitter.emit('event', event);
  }

  /** Numbers the event (one counter for the cluster), keeps it in a trimmed stream and publishes it. */
  async publishEvent(body: Record<string, unknown>, keep: number): Promise<number> {
    const k = this.keys;
    // best effort like every event (the change it reports is acknowledged already): no WAIT
    return Number(await this.call(() => this.writer.fwEvent(k.eventSeq, k.eventLog, JSON.stringify(body), keep, k.channel)));
  }

  async eventsAfter(afterId: number, count: number): Promise<{ events: Array<{ id: number } & Record<string, unknown>>; lastId: number }> {
    const k = this.keys;
    const [page, last] = await this.call(async () => {
      const r = await this.redis.multi().xrange(k.eventLog, `(${afterId}-0`, '+', 'COUNT', count).get(k.eventSeq).exec();
      if (!r) throw new Error('transaction aborted');
      for (const [err] of r) if (err) throw err;
      return [r[0][1] as Array<[string, string[]]>, Number(r[1][1] ?? 0)];
    });
    return { events: page.map(([, fields]) => JSON.parse(fields[1]) as { id: number } & Record<string, unknown>), lastId: last };
  }

  async register(registry: Registry, id: string, registration: string): Promise<void> {
    await this.call(() => this.redis.hset(this.keys[registry], id, registration));
  }

  registrations(registry: Registry): Promise<Record<string, string>> {
    return this.call(() => this.redis.hgetall(this.keys[registry]));
  }

  async forget(registry: Registry, ids: string[]): Promise<void> {
    if (ids.length) await this.call(() => this.redis.hdel(this.keys[registry], ...ids));
  }

  async claimOnce(what: string, by: string, ttlMs: number): Promise<boolean> {
    return (await this.call(() => this.redis.set(`${this.keys.prefix}${what}`, by, 'PX', ttlMs, 'NX'))) === 'OK';
  }
}
