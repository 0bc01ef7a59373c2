// Failed-login limiter: after `max` failures within `windowSec` for one username, or 4 times
// as many from one client address (many admins may sit behind one NAT or jump host), further
// logins are refused with 429 until the oldest failure ages out. A success clears the
// username's failures (not the address's: a password sprayer keeps its count). The failures
// are kept in a FailureLog: this process's memory on a single box, Redis in a cluster, so
// the limit cannot be dodged by spreading attempts across instances.

/** Failure times per key (a username or a client address), each kept for one window. */
export interface FailureLog {
  add(keys: string[], now: number, windowMs: number): Promise<void>;
  /** The failure times of `key` within the window ending at `now`, oldest first. */
  times(key: string, now: number, windowMs: number): Promise<number[]>;
  clear(key: string): Promise<void>;
}

export class MemoryFailureLog implements FailureLog {
  private readonly failures = new Map<string, number[]>(); // key -> failure times (ms), oldest first

  async add(keys: string[], now: number, windowMs: number): Promise<void> {
    for (const key of keys) {
      const list = this.recent(key, now, windowMs);
      list.push(now);
      this.failures.set(key, list);
    }
    if (this.failures.size > 100_000) this.prune(now, windowMs); // bound memory under a spray of names
  }

  async times(key: string, now: number, windowMs: number): Promise<number[]> {
    return this.recent(key, now, windowMs);
  }

  async clear(key: string): Promise<void> {
    this.failures.delete(key);
  }

  private recent(key: string, now: number, windowMs: number): number[] {
    const cutoff = now - windowMs;
    return (this.failures.get(key) ?? []).filter((t) => t > cutoff);
  }

  private prune(now: number, windowMs: number): void {
    for (const key of [...this.failures.keys()]) {
      if (this.recent(key, now, windowMs).length === 0) this.failures.delete(key);
    }
  }
}

export class LoginLimiter {
  constructor(
    private readonly max: number,
    private readonly windowSec: number,
    private readonly log: FailureLog = new MemoryFailureLog(),
  ) {}

  /** Seconds until `ip` / `username` may try again, or 0 when they may now. */
  async retryAfter(ip: string, username: string, now = Date.now()): Promise<number> {
    const [byIp, byUser] = await Promise.all([this.wait(`ip:${ip}`, now, this.max * 4), this.wait(`user:${username}`, now, this.max)]);
    return Math.max(byIp, byUser);
  }

  async recordFailure(ip: string, username: string, now = Date.now()): Promise<void> {
    await this.log.add([`ip:${ip}`, `user:${username}`], now, this.windowSec * 1000);
  }

  async recordSuccess(username: string): Promise<void> {
    await this.log.clear(`user:${username}`);
  }

  private async wait(key: string, now: number, max: number): Promise<number> {
    const list = await this.log.times(key, now, this.windowSec * 1000);
    if (list.length < max) return 0;
    const oldest = list[list.length - max];
    return Math.max(1, Math.ceil((oldest + this.windowSec * 1000 - now) / 1000));
  }
}
