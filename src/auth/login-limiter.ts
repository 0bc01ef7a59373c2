// Failed-login limiter, after the OWASP Authentication Cheat Sheet: failures count per (user
// name, client address) pair, with delays that grow, so that an attacker elsewhere cannot
// lock the owner out of an account; a limit per address bounds password spraying from one
// place.
// - Pair: once a pair has `max` failures within the window, each of its failures from then on
//   is a strike, remembered for a day; after its n-th strike the pair waits window x 2^(n-1)
//   seconds (60 s, 2 min, 4 min ... with the defaults), at most an hour (or the window, when
//   longer). Only pairs that reached the limit are kept that long. A success clears the pair.
// - Address: 4 x `max` failures from one address within the window (many admins may sit
//   behind one NAT or jump host) refuse every name from there until the oldest ages out; a
//   success does not clear it (a sprayer keeps its count).
// An address is counted by its network for IPv6 (a /64: clientNetwork). The failures are kept
// in a FailureLog: this process's memory on a single box, Redis in a cluster, so the limits
// cannot be dodged by spreading attempts across instances.
import { clientNetwork } from '../config/net';

/** Failure times per key (a client address, a pair, a pair's strikes), each kept for its own window. */
export interface FailureLog {
  /** A failure of `key` at `now`, kept `windowMs`. */
  add(key: string, now: number, windowMs: number): Promise<void>;
  /** The failure times of `key` within the window ending at `now`, oldest first. */
  times(key: string, now: number, windowMs: number): Promise<number[]>;
  clear(key: string): Promise<void>;
}

/** Keys kept in memory before the first look for stale ones. */
const PRUNE_FIRST = 1024;

export class MemoryFailureLog implements FailureLog {
  /** key -> failure times (ms, oldest first) and how long they are kept */
  private readonly failures = new Map<string, { times: number[]; windowMs: number }>();
  /**
   * The stale keys are dropped once the map has twice the keys it had after the last look:
   * a spray of names and addresses costs memory for the keys still within their windows (and
   * as many again at most), and each key is looked at a constant number of times on average.
   */
  private pruneAt = PRUNE_FIRST;

  /** Keys held now (failure times of addresses, pairs, strikes). */
  get size(): number {
    return this.failures.size;
  }

  async add(key: string, now: number, windowMs: number): Promise<void> {
    const times = this.recent(key, now, windowMs);
    times.push(now);
    this.failures.set(key, { times, windowMs });
    if (this.failures.size > this.pruneAt) {
      this.prune(now);
      this.pruneAt = Math.max(PRUNE_FIRST, 2 * this.failures.size);
    }
  }

  async times(key: string, now: number, windowMs: number): Promise<number[]> {
    return this.recent(key, now, windowMs);
  }

  async clear(key: string): Promise<void> {
    this.failures.delete(key);
  }

  private recent(key: string, now: number, windowMs: number): number[] {
    const cutoff = now - windowMs;
    return (this.failures.get(key)?.times ?? []).filter((t) => t > cutoff);
  }

  private prune(now: number): void {
    for (const [key, { times, windowMs }] of this.failures) {
      if (times[times.length - 1] <= now - windowMs) this.failures.delete(key);
    }
  }
}

/** The longest wait of a pair, at least (seconds); the window when that is longer. */
const PAIR_DELAY_MAX_SEC = 3600;
/** How long the failures of a pair that reached the limit are remembered: what makes its delays grow. */
const STRIKE_MEMORY_SEC = 86400;
/** The per-address limit, in multiples of the per-pair `max`. */
const ADDRESS_FACTOR = 4;

export class LoginLimiter {
  private readonly windowMs: number;
  private readonly delayMaxSec: number;
  private readonly memoryMs: number;

  constructor(
    private readonly max: number,
    private readonly windowSec: number,
    private readonly log: FailureLog = new MemoryFailureLog(),
  ) {
    this.windowMs = windowSec * 1000;
    this.delayMaxSec = Math.max(windowSec, PAIR_DELAY_MAX_SEC);
    this.memoryMs = Math.max(STRIKE_MEMORY_SEC, this.delayMaxSec) * 1000;
  }

  /** Seconds until `username` may try again from `ip`, or 0 when it may now. */
  async retryAfter(ip: string, username: string, now = Date.now()): Promise<number> {
    const [byAddress, byPair] = await Promise.all([this.addressWait(ip, now), this.pairWait(ip, username, now)]);
    return Math.max(byAddress, byPair);
  }

  /**
   * Counts the failure for the address and the pair; a failure that brings the pair to `max`
   * within the window, and every later one, is also a strike, kept for a day. Read after the
   * add, so that of concurrent failures (other instances too) at least the last sees them all.
   */
  async recordFailure(ip: string, username: string, now = Date.now()): Promise<void> {
    const pair = pairKey(ip, username);
    await Promise.all([this.log.add(addressKey(ip), now, this.windowMs), this.log.add(pair, now, this.windowMs)]);
    const [recent, strikes] = await Promise.all([this.log.times(pair, now, this.windowMs), this.log.times(strikeKey(pair), now, this.memoryMs)]);
    if (recent.length >= this.max || strikes.length > 0) await this.log.add(strikeKey(pair), now, this.memoryMs);
  }

  async recordSuccess(ip: string, username: string): Promise<void> {
    const pair = pairKey(ip, username);
    await Promise.all([this.log.clear(pair), this.log.clear(strikeKey(pair))]);
  }

  /** Until the oldest of the last ADDRESS_FACTOR x max failures ages out of the window. */
  private async addressWait(ip: string, now: number): Promise<number> {
    const list = await this.log.times(addressKey(ip), now, this.windowMs);
    const max = this.max * ADDRESS_FACTOR;
    if (list.length < max) return 0;
    return secondsUntil(list[list.length - max] + this.windowMs, now);
  }

  /** After the pair's n-th strike: window x 2^(n - 1) from it, capped. */
  private async pairWait(ip: string, username: string, now: number): Promise<number> {
    const strikes = await this.log.times(strikeKey(pairKey(ip, username)), now, this.memoryMs);
    if (strikes.length === 0) return 0;
    const doublings = Math.min(strikes.length - 1, 30); // 2^30 s is past any cap
    const delaySec = Math.min(this.windowSec * 2 ** doublings, this.delayMaxSec);
    return secondsUntil(strikes[strikes.length - 1] + delaySec * 1000, now);
  }
}

function addressKey(ip: string): string {
  return `ip:${clientNetwork(ip)}`;
}

/** User names hold no spaces (the name rule): the pair's two parts cannot run together. */
function pairKey(ip: string, username: string): string {
  return `pair:${clientNetwork(ip)} ${username}`;
}

function strikeKey(pair: string): string {
  return `strike:${pair}`;
}

/** Whole seconds from `now` to `until`, at least 1 while it is ahead; 0 once passed. */
function secondsUntil(until: number, now: number): number {
  return until > now ? Math.max(1, Math.ceil((until - now) / 1000)) : 0;
}
