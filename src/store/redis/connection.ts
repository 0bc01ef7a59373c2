// Redis connections that fail fast: no offline queue, a one-second command timeout and
// reconnection in the background, so a request that needs Redis during an outage gets its 503
// within a second instead of hanging, and the daemon recovers by itself when Redis returns.
import Redis, { type RedisOptions } from 'ioredis';
import { FwError } from '../../errors';

export const COMMAND_TIMEOUT_MS = 1000;

/** Options for command connections (the store, the commit queue's producer). */
export function failFastOptions(): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1000),
    lazyConnect: true,
  };
}

/** Options for connections that block or subscribe (pub/sub, BullMQ workers and events). */
export function patientOptions(): RedisOptions {
  return {
    maxRetriesPerRequest: null,
    connectTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1000),
    lazyConnect: true,
  };
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
