// How many replicas "every replica" is (FW_REDIS_MIN_REPLICAS=all, the default with sentinels):
// the most any sentinel lists for the primary. Sentinels remember a replica that is down or
// cut off (until an operator's SENTINEL RESET), so a partition never lowers the count: a write
// is acknowledged only once every replica holds it, and whichever one the sentinels promote
// after a split has it. WAIT with a count of replicas merely connected would not: the replica
// beside a cut-off primary confirms writes the promoted one never sees (issue 31).
import type Redis from 'ioredis';
import { connect, sentinelOptions, type RedisTarget } from './connection';

/** How often the sentinels are asked again (a replica added or reset by the operator). */
export const KNOWN_REPLICAS_REFRESH_MS = 5000;

export class KnownReplicas {
  /** the last count learnt; never lowered for want of an answer */
  private count = 1;
  private timer: NodeJS.Timeout | null = null;
  private readonly conns: Redis[];

  constructor(private readonly target: RedisTarget) {
    this.conns = (target.sentinels ?? []).map((s) => {
      const c = connect(sentinelOptions(target, s));
      c.on('error', () => undefined); // a sentinel down is one fewer answer, nothing more
      return c;
    });
  }

  /** Every replica the sentinels know (at least one). */
  required(): number {
    return this.count;
  }

  /** Asks the sentinels once, then every KNOWN_REPLICAS_REFRESH_MS. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), KNOWN_REPLICAS_REFRESH_MS);
    this.timer.unref();
  }

  private async refresh(): Promise<void> {
    const listed = await Promise.all(this.conns.map((c) => (c.call('SENTINEL', 'replicas', this.target.sentinelMaster!) as Promise<unknown[]>)
      .then((r) => r.length, () => -1)));
    const answered = listed.filter((n) => n >= 0);
    // a sentinel that has not met every replica yet lists fewer: the most any lists counts
    if (answered.length) this.count = Math.max(1, ...answered);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    for (const c of this.conns) c.disconnect();
  }
}
