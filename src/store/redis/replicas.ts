// Acknowledged means replicated: with FW_REDIS_MIN_REPLICAS=N every write the API confirms is
// followed by WAIT N on the connection that made it, so that a failover (the sentinels promote
// a replica) keeps it. WAIT counts the replicas that hold everything this connection wrote so
// far; one WAIT therefore confirms every write sent before it, and callers share them: at most
// one WAIT is in flight and one more queued, which bounds how long a write can sit behind
// WAITs when the replicas are gone (each then takes the whole REPLICA_WAIT_MS).
import type Redis from 'ioredis';
import { FwError, isFwError } from '../../errors';

/** How long a write waits for its replicas before answering 503 ERR_SYS_4006. */
export const REPLICA_WAIT_MS = 1000;

/**
 * Runs `confirm` (a WAIT) after a write that answered `written`. The write WAS made on the
 * primary: an FwError the confirmation throws (503 ERR_SYS_4006) carries the write's answer as
 * `written`, so that callers keep its effect (where a group append landed).
 */
export async function confirmWritten<T>(written: T, confirm: () => Promise<void>): Promise<T> {
  await confirm().catch((e: unknown) => {
    if (isFwError(e)) Object.assign(e, { written });
    throw e;
  });
  return written;
}

export class ReplicaConfirm {
  private inFlight: Promise<number> | null = null;
  private next: Promise<number> | null = null;

  /** `required`: how many replicas must confirm, asked at each WAIT (FW_REDIS_MIN_REPLICAS, or every replica known) */
  constructor(private readonly conn: Redis, private readonly required: () => number, private readonly setting: string) {}

  /**
   * Resolves once `minReplicas` replicas hold every write this connection has sent; else
   * 503 ERR_SYS_4006 saying how many did. Call it after the write's answer arrived.
   */
  async confirm(): Promise<void> {
    const required = this.required();
    const confirmed = await this.sharedWait();
    if (confirmed < required) {
      throw new FwError('ERR_SYS_4006', `${confirmed} of the ${required} replicas required (FW_REDIS_MIN_REPLICAS=${this.setting}) confirmed the write within ${REPLICA_WAIT_MS} ms; it was made on the primary and may be lost if the primary fails now`);
    }
  }

  /** A WAIT sent after the caller's write: the queued one if a WAIT is already in flight. */
  private sharedWait(): Promise<number> {
    if (!this.inFlight) return this.start();
    this.next ??= this.inFlight.catch(() => 0).then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<number> {
    const p = this.conn.wait(this.required(), REPLICA_WAIT_MS) as Promise<number>;
    this.inFlight = p;
    const clear = () => { if (this.inFlight === p) this.inFlight = null; };
    p.then(clear, clear);
    return p;
  }
}
