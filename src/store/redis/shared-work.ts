// Work one instance does for the cluster (the deep analysis of a version): a lease per piece
// of work under the firewall's prefix (SET NX PX, renewed by its holder while it works, so an
// instance that dies lets it lapse and another takes it), the result kept under its own key
// with an expiry, and a notice on the firewall's channel when one is published.
import type Redis from 'ioredis';
import type { SharedWork, StoreEvent } from '../cluster-bus';

/** KEYS lease; ARGV holder, ttl ms: 1 when the lease was free or already the holder's (renewed). */
const CLAIM = `local v = redis.call('GET', KEYS[1])
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;

/** KEYS lease; ARGV holder: deleted only while it is the holder's. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisSharedWork implements SharedWork {
  constructor(
    private readonly redis: Redis,
    /** the key prefix of the firewall's shared work, and its channel */
    private readonly prefix: string,
    private readonly channel: string,
    /** runs a call, mapping an unreachable Redis to ERR_SYS_4002 */
    private readonly call: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  async claim(what: string, by: string, ttlMs: number): Promise<boolean> {
    return Number(await this.call(() => this.redis.eval(CLAIM, 1, `${this.prefix}lease:${what}`, by, Math.max(1, Math.round(ttlMs))))) === 1;
  }

  async release(what: string, by: string): Promise<void> {
    await this.call(() => this.redis.eval(RELEASE, 1, `${this.prefix}lease:${what}`, by));
  }

  async put(what: string, value: string, ttlMs: number): Promise<void> {
    const notice: StoreEvent = { type: 'shared', what };
    // best effort like the events: a lost result is computed again by whoever claims it next
    await this.call(() => this.redis.multi().set(`${this.prefix}result:${what}`, value, 'PX', Math.max(1, Math.round(ttlMs))).publish(this.channel, JSON.stringify(notice)).exec());
  }

  get(what: string): Promise<string | null> {
    return this.call(() => this.redis.get(`${this.prefix}result:${what}`));
  }
}
