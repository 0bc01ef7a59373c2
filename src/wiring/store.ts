// The store an instance opens (embedded files or Redis) and what cluster mode adds to it: the commit queue, its worker, pub/sub reactions and their close.
import { ADOPT_COMMAND, clusterSecret } from '../cluster/cluster-security';
import { type Logger } from 'pino';
import { settledWithin } from '../deadline';
import type { Settings } from '../settings';
import { type Store } from '../store/types';
import { EmbeddedStore } from '../store/embedded';
import { RedisStore } from '../store/redis/redis-store';
import { CommitQueue, CommitWorker } from '../workers/commit-queue';
import { type NodeDirectory } from '../cluster/nodes';
import type { CompiledConfig } from '../eval/compiled';
import { ConfigService } from '../session/service';
import { TokenService } from '../auth/tokens';

/**
 * The Redis store of REDIS_URL. The session's lease outlives FW_SESSION_TIMEOUT by a few
 * seconds: an instance's one-second sweep ends an idle session first and records it in the
 * audit trail; the lease ends it when no instance runs.
 */
export function redisStore(settings: Settings, log: Logger): RedisStore {
  const leaseMs = settings.sessionTimeoutSec * 1000 + 5000;
  return new RedisStore({
    target: settings.redis!, minReplicas: settings.redisMinReplicas, clusterName: settings.clusterName, sessionLeaseMs: leaseMs,
    versionsKeep: settings.versionsKeep, auditKeep: settings.auditKeep, auditLoginFailuresKeep: settings.auditLoginFailuresKeep,
    // issue 38: records are sealed with a key from FW_JWT_SECRET, required in a cluster
    secret: clusterSecret(settings),
    onIgnoredRecord: (r) => log.warn({ record: r.kind, name: r.field, reason: r.reason }, r.reason === 'unsealed'
      ? `${r.kind === 'user' ? 'an account' : 'an API-token'} record in Redis has no MAC and is ignored: run ${ADOPT_COMMAND} (docs/cluster.md)`
      : `${r.kind === 'user' ? 'an account' : 'an API-token'} record in Redis has a MAC this cluster did not make and is ignored: something without FW_JWT_SECRET wrote it`),
    onStaleClaim: claimLog(log),
  });
}

/**
 * What a change that found the session claimed learnt of the claim: a claim dropped (its job
 * failed or was cut off from Redis, issue 38 item 8) is logged; one a job still holds, once
 * per job.
 */
export function claimLog(log: Logger): (outcome: string) => void {
  let last = '';
  return (outcome) => {
    if (outcome === last) return;
    last = outcome;
    if (outcome.startsWith('dropped:')) log.info({ job: outcome.slice(8) }, 'a commit claim no job could still act on was dropped (its job failed, or its worker was cut off from Redis)');
    else if (outcome !== 'none') log.info({ claim: outcome }, 'the session is claimed by a commit job still in progress');
  };
}

/** The store the settings ask for: Redis with REDIS_URL or REDIS_SENTINELS, else the embedded files. */
export function openStore(settings: Settings, log: Logger, onFatal: (err: unknown) => void): Store {
  if (settings.redis) {
    return redisStore(settings, log);
  }
  return new EmbeddedStore({
    dir: settings.dataDir,
    logger: log,
    versionsKeep: settings.versionsKeep,
    auditKeep: settings.auditKeep,
    auditLoginFailuresKeep: settings.auditLoginFailuresKeep,
    // a failed disk write leaves memory ahead of the disk: stop, and let the supervisor
    // restart us on what is durable (crash-only, like after kill -9)
    onFailure: onFatal,
  });
}

/** What cluster mode adds to an instance: the commit queue, a worker, pub/sub reactions. */
export interface ClusterParts {
  queue: CommitQueue;
  worker: CommitWorker | null;
}

export function wireCluster(settings: Settings, store: RedisStore, config: ConfigService<CompiledConfig>, tokens: TokenService | null, log: Logger): ClusterParts {
  const queueSettings = { redis: settings.redis!, clusterName: settings.clusterName, commitTimeoutMs: settings.commitTimeoutMs };
  const queue = new CommitQueue(queueSettings, store, log);
  const worker = settings.worker ? new CommitWorker(queueSettings, store, config as ConfigService<unknown>, log) : null;
  queue.localWorker = worker !== null;
  store.onEvent((e) => {
    if (e.type === 'version') config.refreshRunning().catch((err: unknown) => log.warn({ err: String(err) }, 'could not load the new running version'));
    else if (e.type === 'revoked') tokens?.forgetToken(e.jti);
    else if (e.type === 'user-deleted' || e.type === 'user-changed') tokens?.forgetUser(e.username);
  });
  store.onReconnect(() => {
    log.info('Redis is reachable again');
    // after a failover the new primary may lack the last unconfirmed writes
    config.storeChanged();
    tokens?.forgetAll(); // revocations published during the outage were missed
    config.refreshRunning().catch(() => undefined);
  });
  return { queue, worker };
}

/** How long a stop waits for the commit queue and worker and the node registry to close. */
export const CLUSTER_CLOSE_MS = 10_000;

/**
 * Closes the commit worker (after the job in progress), the queue and the node registry,
 * within CLUSTER_CLOSE_MS. BullMQ closes its connections with QUIT, which waits for Redis to
 * come back: during an outage a stop would never end. So with Redis unreachable they are
 * dropped at once, and if Redis goes away during the close, the deadline ends it. A job left
 * running is handed to another worker once its lock expires, as after a crash.
 */
export async function closeClusterParts(parts: ClusterParts | null, nodes: NodeDirectory | null, redis: RedisStore | null, log: Logger): Promise<void> {
  const force = redis !== null && !redis.reachable();
  const closing = (async () => {
    await parts?.worker?.close(force);
    await parts?.queue.close(force);
    await nodes?.close();
  })();
  if (!(await settledWithin(closing, CLUSTER_CLOSE_MS))) {
    closing.catch(() => undefined); // settles after the exit, if ever
    log.warn({ waitedMs: CLUSTER_CLOSE_MS }, 'the commit queue did not close (Redis unreachable?); stopping without it');
  }
}
