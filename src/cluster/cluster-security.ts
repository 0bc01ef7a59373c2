// What a cluster instance checks of its Redis at start (issue 38), and what it then reports:
//
// - FW_JWT_SECRET is required: the secrets of a cluster come from the environment, never from
//   Redis (a version before generated one into `fw:{name}:secret`, where any Redis reader
//   found it and could sign admin tokens).
// - Redis must ask for authentication, unless it is on loopback or FW_REDIS_INSECURE=1: the
//   start is refused otherwise; when it starts unauthenticated, the warning is in the log, in
//   GET /api/status (store_warnings), in GET /readyz (warnings) and in the metric
//   fwd_redis_unauthenticated.
// - Account and API-token records that this cluster did not seal (record-seal.ts) are
//   reported: without a MAC (an older version's: `npm run adopt-records` seals them, and until
//   then they are ignored, so their logins fail), or with a wrong one (written by something
//   without the secret).
import { Gauge } from 'prom-client';
import type { Logger } from 'pino';
import type { Settings } from '../settings';
import type { RedisStore } from '../store/redis/redis-store';
import { insecureRefusal, probeRedisAuth, type RedisAuthState } from '../store/redis/redis-auth';
import type { Metrics } from '../api/metrics';
import type { Readiness } from '../api/readiness';

/** What an admin runs once, with the cluster's FW_JWT_SECRET, to seal an older version's records. */
export const ADOPT_COMMAND = 'npm run adopt-records';

/** FW_JWT_SECRET of a cluster instance; refuses the start without one, saying why and what to do. */
export function clusterSecret(settings: Settings): string {
  if (settings.jwtSecret) return settings.jwtSecret;
  throw new Error('FW_JWT_SECRET is required in cluster mode (REDIS_URL or REDIS_SENTINELS): a cluster\'s secrets come from the environment, never from Redis, where anyone who can read Redis would find them. Give every instance the same one (generate it with: openssl rand -base64 32). A cluster that kept its secret in Redis: docs/cluster.md, "Upgrading a cluster to sealed records"');
}

export class StoreSecurity {
  redisAuth: RedisAuthState | null = null;

  /** The warnings GET /api/status and /readyz show (empty when none). */
  warnings(): string[] {
    return this.redisAuth?.warning ? [this.redisAuth.warning] : [];
  }

  /** fwd_redis_unauthenticated, and the /readyz warning. */
  report(metrics: Metrics, readiness: Readiness): void {
    const self = this;
    new Gauge({
      name: 'fwd_redis_unauthenticated', help: '1 when the Redis this instance uses accepted a connection without authentication at start (docs/cluster.md, "Locking Redis down")',
      registers: [metrics.registry],
      collect() { this.set(self.redisAuth?.unauthenticated ? 1 : 0); },
    });
    readiness.warn('redis_auth', () => this.redisAuth?.warning ?? null);
  }
}

/** The checks of a cluster's store at start; throws what refuses the start. */
export async function checkClusterStore(redis: RedisStore, settings: Settings, log: Logger): Promise<StoreSecurity> {
  const security = new StoreSecurity();
  try {
    security.redisAuth = await probeRedisAuth(settings.redis!);
  } catch (e) {
    log.warn({ err: String(e) }, 'could not check whether Redis asks for authentication');
  }
  const auth = security.redisAuth;
  if (auth?.unauthenticated) {
    if (!auth.loopback && !settings.redisInsecure) throw insecureRefusal(auth);
    log.warn({ redis: auth.address, loopback: auth.loopback, insecure: settings.redisInsecure }, `SECURITY: ${auth.warning}`);
  }
  const legacy = await redis.legacySecret();
  if (legacy !== null) {
    if (legacy === settings.jwtSecret) throw new Error(`FW_JWT_SECRET is the secret an older version generated into Redis (fw:{${settings.clusterName}}:secret), which anyone who can read Redis knows: generate a new one (openssl rand -base64 32), then run ${ADOPT_COMMAND} with it (docs/cluster.md, "Upgrading a cluster to sealed records")`);
    log.warn(`Redis still holds the JWT secret an older version generated (fw:{${settings.clusterName}}:secret); it is not used: run ${ADOPT_COMMAND}, which deletes it`);
  }
  const records = await redis.recordCheck();
  if (records.unsealed.length) {
    log.warn({ records: records.unsealed.slice(0, 20) }, `${records.unsealed.length} account or API-token records in Redis have no MAC (written by a version before sealed records) and are ignored, so their logins fail: run ${ADOPT_COMMAND} once with this cluster's FW_JWT_SECRET (docs/cluster.md, "Upgrading a cluster to sealed records")`);
  }
  if (records.forged.length) {
    log.warn({ records: records.forged.slice(0, 20) }, `${records.forged.length} account or API-token records in Redis have a MAC this cluster's secret did not make (written by something without FW_JWT_SECRET, or by instances with another secret): they are ignored`);
  }
  return security;
}

/** Whether an account record exists in Redis at all (sealed or not): then no first admin is made. */
export async function hasAnyAccount(redis: RedisStore): Promise<boolean> {
  return (await redis.recordCheck()).users > 0;
}
