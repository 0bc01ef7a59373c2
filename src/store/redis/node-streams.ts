// Per-node capped streams in Redis (the traffic log of each instance): XADD with MAXLEN ~ so
// trimming costs little (Redis trims whole macro nodes: a stream keeps at least `keep`
// entries, a little more at times), read back by XRANGE / XREVRANGE. Written best effort
// (no WAIT for replicas, like events): a record lost in a failover is a lost log line.
import type Redis from 'ioredis';
import type { NodeStreams, StreamEntry } from '../cluster-bus';

export class RedisNodeStreams implements NodeStreams {
  constructor(
    private readonly redis: Redis,
    /** the key of one node's stream */
    private readonly key: (node: string) => string,
    /** runs a call, mapping an unreachable Redis to ERR_SYS_4002 */
    private readonly call: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  async append(node: string, entries: string[], keep: number): Promise<string[]> {
    if (entries.length === 0) return [];
    const key = this.key(node);
    const r = await this.call(async () => {
      const m = this.redis.pipeline();
      for (const e of entries) m.xadd(key, 'MAXLEN', '~', keep, '*', 'r', e);
      return m.exec();
    });
    return (r ?? []).map(([err, id]) => {
      if (err) throw err;
      return id as string;
    });
  }

  async range(node: string, from: string, to: string, count: number, newestFirst: boolean): Promise<StreamEntry[]> {
    const key = this.key(node);
    const page = await this.call(() => (newestFirst
      ? this.redis.xrevrange(key, to, from, 'COUNT', count)
      : this.redis.xrange(key, from, to, 'COUNT', count)));
    return page.map(([id, fields]) => ({ id, value: fields[1] }));
  }

  async first(node: string): Promise<string | null> {
    return (await this.range(node, '-', '+', 1, false))[0]?.id ?? null;
  }

  async last(node: string): Promise<string | null> {
    return (await this.range(node, '-', '+', 1, true))[0]?.id ?? null;
  }
}
