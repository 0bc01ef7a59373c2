// The login limiter's failures kept in Redis, shared by every instance: a sorted set per key
// (user or address) scored by the time of each failure, trimmed to the window by the script.
import { randomUUID } from 'node:crypto';
import type { FailureLog } from '../../auth/login-limiter';
import type { RedisCall } from './audit-stream';
import type { keysOf } from './keys';

export class RedisFailureLog implements FailureLog {
  constructor(private readonly call: RedisCall, private readonly keys: ReturnType<typeof keysOf>) {}

  async add(key: string, now: number, windowMs: number): Promise<void> {
    await this.call((r) => r.fwRecordFailure(this.keys.failures(key), now, windowMs, `${now}:${randomUUID()}`));
  }

  async times(key: string, now: number, windowMs: number): Promise<number[]> {
    const flat = await this.call((r) => r.zrangebyscore(this.keys.failures(key), `(${now - windowMs}`, '+inf', 'WITHSCORES'));
    const times: number[] = [];
    for (let i = 1; i < flat.length; i += 2) times.push(Number(flat[i]));
    return times;
  }

  async clear(key: string): Promise<void> {
    await this.call((r) => r.del(this.keys.failures(key)));
  }
}
