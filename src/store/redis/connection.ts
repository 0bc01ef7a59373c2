// Redis connections that fail fast: no offline queue, a one-second command timeout and
// reconnection in the background, so a request that needs Redis during an outage gets its 503
// within a second instead of hanging, and the daemon recovers by itself when Redis returns.
import Redis, { type RedisOptions } from 'ioredis';
import { FwError } from '../../errors';

export const COMMAND_TIMEOUT_MS = 1000;

/** Reconnection delays: 100 ms more each attempt, at most a second. */
export function reconnectDelay(attempt: number): number {
  return Math.min(100 * attempt, 1000);
}

/** Commands fail at once while disconnected, and after a second without an answer. */
export const FAIL_FAST = { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: COMMAND_TIMEOUT_MS } as const;
/** Commands wait for the connection to come back (blocking reads, subscriptions). */
export const PATIENT = { maxRetriesPerRequest: null } as const;

/** Options for command connections (the store). */
export function failFastOptions(): RedisOptions {
  return { ...FAIL_FAST, connectTimeout: COMMAND_TIMEOUT_MS, retryStrategy: reconnectDelay, lazyConnect: true };
}

/** Options for connections that block or subscribe (pub/sub). */
export function patientOptions(): RedisOptions {
  return { ...PATIENT, connectTimeout: COMMAND_TIMEOUT_MS, retryStrategy: reconnectDelay, lazyConnect: true };
}

export function connect(url: string, options: RedisOptions): Redis {
  return new Redis(url, options);
}

/** Resolves once `redis` is ready, retrying for up to `waitMs` (the daemon's start-up). */
export async function whenReady(redis: Redis, waitMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  const ready = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  if (redis.status === 'wait') redis.connect().catch(() => undefined); // retried by retryStrategy
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${waitMs} ms`)), waitMs);
  });
  try {
    await Promise.race([ready, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a failed Redis call becomes for the API: 503 ERR_SYS_4002 naming the cause. */
export function unreachable(e: unknown): FwError {
  const reason = e instanceof Error ? e.message : String(e);
  return new FwError('ERR_SYS_4002', `the Redis store is unreachable: ${reason}`);
}
