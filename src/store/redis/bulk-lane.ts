// Big values (a whole configuration: ~13 MB of JSON at 100,000 policies) travel on a
// connection of their own, one at a time, each with a command timeout sized to its bytes.
//
// Why: the command connections fail fast (a one-second timeout, connection.ts), and a command
// waits for everything pipelined before it on its connection. A 13 MB journal entry or
// version record (written, then fsync'd by Redis's append-only file, or read back by every
// instance) takes longer than a second on a busy machine, so the big command itself and every
// small command queued behind it (heartbeats, session heads, audit) answered 503
// ERR_SYS_4002 "Command timed out" (issue 30). Here a big command is timed by its size and
// queues behind nothing but other big ones; small commands keep their one second.
import type { RedisOptions } from 'ioredis';
import { COMMAND_TIMEOUT_MS } from './connection';
import { confirmWritten, REPLICA_WAIT_MS, type ReplicaConfirm } from './replicas';
import type { Scripted } from './scripts';
import type { SessionRecord } from '../types';
import { sessionOf } from './decode';

/** Values over this many bytes take the lane (below it, a command fits the one second easily). */
export const BULK_BYTES = 256 * 1024;

/**
 * The slowest transfer a big command is given time for: 1 MiB a second, far below what
 * Redis and loopback or a LAN take even on a loaded host (13 MB measured in 0.2-0.6 s at a
 * load of 8), so only a stalled or unreachable server reaches the timeout.
 */
export const BULK_BYTES_PER_SECOND = 1024 * 1024;

/** The command timeout of a command carrying (or fetching) `bytes`. */
export function bulkTimeoutMs(bytes: number): number {
  return COMMAND_TIMEOUT_MS + Math.ceil((bytes / BULK_BYTES_PER_SECOND) * 1000);
}

export class BulkLane {
  /** the last operation queued: the next starts when it settles */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly replicas: ReplicaConfirm | null;

  /** `confirmOn`: with replicas required, each durable write is followed by WAIT on this connection (replicas.ts). */
  constructor(readonly conn: Scripted, confirmOn: ((conn: Scripted) => ReplicaConfirm) | null) {
    this.replicas = confirmOn ? confirmOn(conn) : null;
  }

  /**
   * Runs `fn` on the lane once the operations before it have settled, with every command it
   * sends timed for `bytes`. With `durable`, then WAIT for the replicas as the store's
   * durable() does (an unconfirmed write's answer travels on the 503 as `written`).
   */
  run<T>(bytes: number, fn: (r: Scripted) => Promise<T>, durable = false): Promise<T> {
    const op = this.tail.then(async () => {
      this.setTimeout(bulkTimeoutMs(bytes));
      const result = await fn(this.conn);
      if (!durable || !this.replicas) return result;
      this.setTimeout(COMMAND_TIMEOUT_MS + REPLICA_WAIT_MS);
      return confirmWritten(result, () => this.replicas!.confirm());
    });
    this.tail = op.catch(() => undefined);
    return op;
  }

  /**
   * ioredis reads options.commandTimeout at each command it sends, so with one operation at
   * a time on this connection the value set here times exactly that operation's commands
   * (and the EVAL an EVALSHA falls back to when the script is not loaded yet).
   */
  private setTimeout(ms: number): void {
    (this.conn.options as RedisOptions).commandTimeout = ms;
  }
}

/**
 * Big values come back in pieces of this many bytes (scripts.ts GET_PIECES: the reply parser
 * keeps a buffer of three times the largest string it has read), as Buffers joined here (a
 * piece may end inside a UTF-8 character).
 */
export const PIECE_BYTES = 1024 * 1024;

const joined = (pieces: Buffer[]): string => Buffer.concat(pieces).toString('utf8');

/** The string at `key` (null: none): one small read, or its length then the value on the lane. */
export async function getSized(redis: Scripted, lane: BulkLane, key: string): Promise<string | null> {
  const small = (await redis.fwGetSmall(key, BULK_BYTES)) as string | number | null;
  if (typeof small !== 'number') return small;
  const pieces = (await lane.run(small, (r) => r.fwGetPiecesBuffer(key, PIECE_BYTES))) as Buffer[] | null;
  return pieces && joined(pieces);
}

/**
 * The session (null: none), its journal length and the journal lines from `from` on, as the
 * HEAD script reads them in one step; lines of more than BULK_BYTES in all come on the lane,
 * up to that same length.
 */
export async function headSince(
  redis: Scripted, lane: BulkLane, keys: { session: string; journal: string }, from: number,
): Promise<{ session: SessionRecord; length: number; lines: string[] } | null> {
  for (;;) {
    const [flat, length, lines] = (await redis.fwHead(keys.session, keys.journal, from, BULK_BYTES)) as [string[], number, string[] | number];
    const session = sessionOf(flat);
    if (!session) return null;
    if (typeof lines !== 'number') return { session, length, lines };
    const big = (await lane.run(lines, (r) => r.fwRangeBuffer(keys.session, keys.journal, session.id, from, length - 1, PIECE_BYTES))) as Buffer[][] | null;
    if (big) return { session, length, lines: big.map(joined) };
    // the session ended in between (RANGE found another): read again what is there now
  }
}
