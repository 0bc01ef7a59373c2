// The one place Redis connections are made: the store, its subscriber, the commit queue and
// the workers all connect through redisOptions(), to one server (REDIS_URL) or to whichever
// server the sentinels name as primary (REDIS_SENTINELS + REDIS_SENTINEL_MASTER), with the
// same password and TLS either way.
//
// Command connections fail fast: no offline queue, a one-second command timeout and
// reconnection in the background, so a request that needs Redis during an outage or a
// failover gets its 503 within a second instead of hanging, and the daemon follows the new
// primary by itself once the sentinels have promoted one.
import Redis, { type RedisOptions } from 'ioredis';
import { FwError } from '../../errors';
import { timeoutAfterReads } from './command-timeout';

// every connection of this process (BullMQ's too: the same ioredis) times its commands by
// Redis's answer, not by how long the main thread was busy (command-timeout.ts)
timeoutAfterReads();

export const COMMAND_TIMEOUT_MS = 1000;

/** Where Redis is: one server, or a primary found through sentinels. */
export interface RedisTarget {
  /** REDIS_URL: the server (ignored with sentinels, but for its scheme, user, password and db). */
  url?: string;
  /** REDIS_SENTINELS: the sentinels to ask for the primary. */
  sentinels?: Array<{ host: string; port: number }>;
  /** REDIS_SENTINEL_MASTER: the name the sentinels monitor the primary by. */
  sentinelMaster?: string;
  /** REDIS_PASSWORD: overrides the URL's password (kept out of the URL, and out of logs). */
  password?: string;
  /** REDIS_SENTINEL_PASSWORD: when the sentinels themselves require one. */
  sentinelPassword?: string;
}

/** Reconnection delays: 100 ms more each attempt, at most a second. */
export function reconnectDelay(attempt: number): number {
  return Math.min(100 * attempt, 1000);
}

/** Commands fail at once while disconnected, and after a second without an answer. */
export const FAIL_FAST = { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: COMMAND_TIMEOUT_MS } as const;
/** Commands wait for the connection to come back (blocking reads, subscriptions). */
export const PATIENT = { maxRetriesPerRequest: null } as const;

/**
 * A demoted primary answers writes with READONLY (a split or a failover this connection has
 * not noticed yet): reconnect, which asks the sentinels again; the command itself fails (503).
 */
function reconnectOnReadonly(err: Error): boolean {
  return err.message.startsWith('READONLY');
}

/** The address, credentials and TLS of `target`, as ioredis (and BullMQ) take them. */
function targetOptions(target: RedisTarget): RedisOptions {
  const u = target.url ? new URL(target.url) : null;
  const tls = u?.protocol === 'rediss:' ? {} : undefined;
  const auth: RedisOptions = {
    username: u?.username ? decodeURIComponent(u.username) : undefined,
    password: target.password ?? (u?.password ? decodeURIComponent(u.password) : undefined),
    db: u && u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined,
    tls,
  };
  if (target.sentinels?.length) {
    return {
      ...auth,
      sentinels: target.sentinels,
      name: target.sentinelMaster,
      sentinelPassword: target.sentinelPassword,
      // rediss:// means TLS to the sentinels as well as to the primary
      enableTLSForSentinelMode: tls !== undefined,
      sentinelTLS: tls,
      sentinelRetryStrategy: reconnectDelay,
      sentinelCommandTimeout: COMMAND_TIMEOUT_MS,
      // no failoverDetector: it drops the connection at every sentinel's +switch-master, that
      // is several times after a failover the connection has already followed (503s seconds
      // after writes work again). A connection follows by its own reconnect (the primary is
      // gone) or by READONLY (the primary was demoted); meanwhile, in a partition, writes to
      // the isolated old primary are never confirmed by a replica (ERR_SYS_4006).
    };
  }
  return { ...auth, host: u?.hostname || '127.0.0.1', port: Number(u?.port || 6379) };
}

/** A plain connection to one sentinel (its password and TLS), to ask it questions. */
export function sentinelOptions(target: RedisTarget, sentinel: { host: string; port: number }): RedisOptions {
  const tls = target.url && new URL(target.url).protocol === 'rediss:' ? {} : undefined;
  return {
    host: sentinel.host, port: sentinel.port, password: target.sentinelPassword, tls, ...FAIL_FAST,
    connectTimeout: COMMAND_TIMEOUT_MS, retryStrategy: reconnectDelay, lazyConnect: false,
  };
}

/** Options for command connections: fail fast (the store, a queue producer). */
export function failFastOptions(target: RedisTarget): RedisOptions {
  return {
    ...targetOptions(target), ...FAIL_FAST,
    connectTimeout: COMMAND_TIMEOUT_MS, retryStrategy: reconnectDelay, reconnectOnError: reconnectOnReadonly, lazyConnect: true,
  };
}

/** Options for connections that block or subscribe (pub/sub, queue workers and listeners). */
export function patientOptions(target: RedisTarget): RedisOptions {
  return {
    ...targetOptions(target), ...PATIENT,
    connectTimeout: COMMAND_TIMEOUT_MS, retryStrategy: reconnectDelay, reconnectOnError: reconnectOnReadonly, lazyConnect: true,
  };
}

/** How often a connection found through the sentinels checks it still talks to a primary. */
export const ROLE_CHECK_MS = 1000;

export function connect(options: RedisOptions): Redis {
  const conn = new Redis(options);
  if (options.sentinels?.length) followPrimary(conn);
  return conn;
}

/**
 * A primary demoted while this connection stayed up (a split healed: the sentinels turned it
 * into a replica of the promoted one) goes on answering reads, from a copy that may still be
 * resyncing; only a write's READONLY would send the connection back to the sentinels. A read
 * connection could then build a commit from a journal older than the one the writes went to
 * (issue 31). So every second the connection asks ROLE and reconnects (through the sentinels)
 * when it is not a primary's. Subscribers cannot ask (subscriber mode) and need not: the
 * messages published on the primary reach a replica's subscribers too.
 */
function followPrimary(conn: Redis): void {
  let asking = false;
  const timer = setInterval(() => {
    if (asking || conn.status !== 'ready') return;
    asking = true;
    (conn.call('ROLE') as Promise<unknown[]>)
      .then((role) => { if (role[0] !== 'master') conn.disconnect(true); }, () => undefined)
      .finally(() => { asking = false; });
  }, ROLE_CHECK_MS);
  timer.unref();
  conn.once('end', () => clearInterval(timer));
}

/** Where a target points, for logs: never its password. */
export function describeTarget(target: RedisTarget): string {
  if (target.sentinels?.length) return `primary "${target.sentinelMaster}" via sentinels ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
  const u = new URL(target.url!);
  return `${u.protocol}//${u.host}${u.pathname}`;
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
