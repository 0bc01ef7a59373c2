// The writes the API acknowledges (a change, a commit, a user or token write) and what makes
// them durable: a write connection of their own, each write followed by a WAIT on it until
// FW_REDIS_MIN_REPLICAS replicas (or every replica the sentinels know) hold it, and the bulk
// lane for whole configurations (bulk-lane.ts). Without replicas to wait for, the command
// connection writes too.
import type Redis from 'ioredis';
import { isFwError } from '../../errors';
import { COMMAND_TIMEOUT_MS, connect, failFastOptions, whenReady, type RedisTarget } from './connection';
import { confirmWritten, REPLICA_WAIT_MS, ReplicaConfirm } from './replicas';
import { KnownReplicas } from './known-replicas';
import { scripted, type Scripted } from './scripts';
import { BulkLane } from './bulk-lane';

/** Runs one Redis call; connection trouble becomes 503 ERR_SYS_4002 (the store's). */
export type Call = <T>(fn: () => Promise<T>) => Promise<T>;

export class DurableWrites {
  /**
   * The writes that must reach the replicas, each followed by a WAIT on this same connection
   * (WAIT counts what its own connection wrote); the command connection when no replica is
   * required. A connection of its own so that WAITs never hold up reads.
   */
  readonly writer: Scripted;
  private readonly replicas: ReplicaConfirm | null;
  /** with FW_REDIS_MIN_REPLICAS=all: how many replicas the sentinels know */
  private readonly known: KnownReplicas | null;
  /** Whole configurations (journal entries, version records): timed by their size. */
  readonly bulk: BulkLane;

  constructor(target: RedisTarget, minReplicas: number | 'all', commands: Scripted, private readonly call: Call) {
    this.known = minReplicas === 'all' ? new KnownReplicas(target) : null;
    const waits = minReplicas === 'all' || minReplicas > 0;
    // a write may queue behind two WAITs (one in flight, one queued) before its own answer
    this.writer = waits ? scripted(connect({ ...failFastOptions(target), commandTimeout: COMMAND_TIMEOUT_MS + 2 * REPLICA_WAIT_MS })) : commands;
    const required = this.known ? () => this.known!.required() : () => minReplicas as number;
    this.replicas = waits ? new ReplicaConfirm(this.writer, required, String(minReplicas)) : null;
    this.bulk = new BulkLane(scripted(connect(failFastOptions(target))), waits ? (c) => new ReplicaConfirm(c, required, String(minReplicas)) : null);
    // connection errors are reported where a call fails; without listeners ioredis would print them
    this.writer.on('error', () => undefined);
    this.bulk.conn.on('error', () => undefined);
  }

  /** Whether the write connection and the bulk lane are up (each reconnects on its own). */
  connected(): boolean {
    return (this.writer as Redis).status === 'ready' && this.bulk.conn.status === 'ready';
  }

  /** Waits for the connections and the sentinels' count, then for the replicas (inSync). */
  async open(waitMs: number): Promise<void> {
    await Promise.all([whenReady(this.writer as Redis, waitMs), whenReady(this.bulk.conn, waitMs), this.known?.start()]);
    await this.inSync(waitMs);
  }

  /**
   * Runs `write` on the write connection, then WAITs until the replicas required hold it.
   * 503 ERR_SYS_4006 when fewer confirm within REPLICA_WAIT_MS: the write WAS made on the
   * primary (a failover may lose it), so callers keep its effect and report it unconfirmed.
   * Refusals (a script's answer) come back as values and are confirmed too: harmless, since
   * nothing was written. An unconfirmed write's own answer travels on the 503 as `written`.
   */
  async durable<T>(write: (r: Scripted) => Promise<T>): Promise<T> {
    const result = await this.call(() => write(this.writer));
    return this.replicas ? confirmWritten(result, () => this.call(() => this.replicas!.confirm())) : result;
  }

  /** durable(), for a write of `bytes` (more than BULK_BYTES) on the bulk lane. */
  durableBulk<T>(bytes: number, write: (r: Scripted) => Promise<T>): Promise<T> {
    return this.call(() => this.bulk.run(bytes, write, true));
  }

  /**
   * At start-up, waits (up to `waitMs`) until the replicas a write needs confirm one: a first
   * start writes the version 0, the admin and the secret, and replicas still syncing after
   * their own start would refuse those with 503 and end the process. Past the wait the
   * instance starts anyway (reads are served; writes answer 4006 until the replicas are back).
   */
  private async inSync(waitMs: number): Promise<void> {
    if (!this.replicas) return;
    const end = Date.now() + waitMs;
    for (;;) {
      try {
        return await this.call(() => this.replicas!.confirm());
      } catch (e) {
        if (!isFwError(e) || e.code !== 'ERR_SYS_4006' || Date.now() >= end) return;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  close(): void {
    this.known?.close();
    this.writer.disconnect();
    this.bulk.conn.disconnect();
  }
}
