// Failed-login limiter: after `max` failures within `windowSec` for one username, or 4 times
// as many from one client address (many admins may sit behind one NAT or jump host), further
// logins are refused with 429 until the oldest failure ages out. A success clears the
// username's failures (not the address's: a password sprayer keeps its count).
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>(); // key -> failure times (ms), oldest first

  constructor(private readonly max: number, private readonly windowSec: number) {}

  /** Seconds until `ip` / `username` may try again, or 0 when they may now. */
  retryAfter(ip: string, username: string, now = Date.now()): number {
    return Math.max(this.wait(`ip:${ip}`, now, this.max * 4), this.wait(`user:${username}`, now, this.max));
  }

  recordFailure(ip: string, username: string, now = Date.now()): void {
    for (const key of [`ip:${ip}`, `user:${username}`]) {
      const list = this.recent(key, now);
      list.push(now);
      this.failures.set(key, list);
    }
    if (this.failures.size > 100_000) this.prune(now); // bound memory under a spray of names
  }

  recordSuccess(username: string): void {
    this.failures.delete(`user:${username}`);
  }

  private recent(key: string, now: number): number[] {
    const cutoff = now - this.windowSec * 1000;
    return (this.failures.get(key) ?? []).filter((t) => t > cutoff);
  }

  private wait(key: string, now: number, max: number): number {
    const list = this.recent(key, now);
    if (list.length < max) return 0;
    const oldest = list[list.length - max];
    return Math.max(1, Math.ceil((oldest + this.windowSec * 1000 - now) / 1000));
  }

  private prune(now: number): void {
    for (const key of [...this.failures.keys()]) {
      if (this.recent(key, now).length === 0) this.failures.delete(key);
    }
  }
}
