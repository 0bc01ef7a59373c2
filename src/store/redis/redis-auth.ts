// Whether the Redis this instance uses lets anyone in (issue 38). Whoever can send Redis
// commands can change the configuration journal, read the audit trail and the session, and
// stop the cluster; a Redis without authentication is reachable by every process (on
// loopback) or every host (otherwise) that can open its port. So the daemon asks, at start,
// with a connection that presents no credentials: a PING answered means no authentication.
// Off loopback that refuses the start, unless FW_REDIS_INSECURE=1; either way it is warned
// loudly: in the log, in GET /api/status, in /readyz's details and as a metric.
import net from 'node:net';
import Redis from 'ioredis';
import { failFastOptions, type RedisTarget } from './connection';

export interface RedisAuthState {
  /** true: Redis answered a connection without credentials (anyone who reaches it may write) */
  unauthenticated: boolean;
  /** the primary's address as this instance reached it */
  address: string;
  loopback: boolean;
  tls: boolean;
  /** the warning shown everywhere when unauthenticated; null when Redis asks for authentication */
  warning: string | null;
}

export function isLoopback(address: string): boolean {
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (a === '::1' || a === 'localhost') return true;
  return net.isIPv4(a) && a.startsWith('127.');
}

/** How long the probe waits for Redis (the store already reached it). */
const PROBE_MS = 3000;

/** Asks Redis, as a client without credentials, whether it answers. */
export async function probeRedisAuth(target: RedisTarget): Promise<RedisAuthState> {
  const opts = { ...failFastOptions(target), username: undefined, password: undefined, retryStrategy: () => null, commandTimeout: PROBE_MS, connectTimeout: PROBE_MS };
  const probe = new Redis(opts);
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    const address = probe.stream?.remoteAddress ?? String(opts.host ?? '');
    let unauthenticated: boolean;
    try {
      unauthenticated = (await probe.ping()) === 'PONG';
    } catch (e) {
      // NOAUTH: authentication required; anything else is no proof of openness
      unauthenticated = false;
      if (!/NOAUTH|WRONGPASS|auth/i.test(String(e))) throw e;
    }
    const loopback = isLoopback(address);
    const tls = opts.tls !== undefined;
    const warning = unauthenticated
      ? `Redis at ${address} accepts commands without authentication: anyone who can reach it can change the configuration and stop the cluster. Give it a password (requirepass, or an ACL user) and set REDIS_PASSWORD (docs/cluster.md, "Locking Redis down")`
      : null;
    return { unauthenticated, address, loopback, tls, warning };
  } finally {
    probe.disconnect();
  }
}

/** The refusal of a start against an unauthenticated Redis off loopback (without FW_REDIS_INSECURE=1). */
export function insecureRefusal(state: RedisAuthState): Error {
  return new Error(`${state.warning}. It is not on loopback, so the daemon does not start; to start anyway (a test network) set FW_REDIS_INSECURE=1`);
}
