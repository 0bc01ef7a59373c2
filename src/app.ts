// Wiring: store, first admin, JWT secret, session service, routes and the HTTP server; in
// cluster mode (REDIS_URL) also the commit queue, its worker, pub/sub and the node registry.
// main.ts runs it from the environment; tests start it in-process on a free port.
import { ADOPT_COMMAND, checkClusterStore, clusterSecret, hasAnyAccount } from './cluster/cluster-security';
import { NodeAuth, nodeAwareAuth } from './cluster/node-auth';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import pino, { type Logger } from 'pino';
import { logDestination } from './log-destination';
import { journalLogOptions } from './journal-format';
import { settledWithin } from './deadline';
import type { Settings } from './settings';
import { newUser, type Store } from './store/types';
import { EmbeddedStore } from './store/embedded';
import { RedisStore } from './store/redis/redis-store';
import { CommitQueue, CommitWorker } from './workers/commit-queue';
import { describeTarget } from './store/redis/connection';
import { ClusterNode, LocalNode, defaultNodeId, type NodeDirectory } from './cluster/nodes';
import type { CompiledConfig } from './eval/compiled';
import { emptyDoc, serializeDoc } from './config/document';
import { commitChecks } from './config/commit-checks';
import { ConfigService } from './session/service';
import { TokenService } from './auth/tokens';
import { LoginLimiter } from './auth/login-limiter';
import { AccountService } from './auth/accounts';
import { hashPassword, randomPassword } from './auth/passwords';
import { HttpServer } from './api/server';
import { ConsoleSite, defaultConsoleDir } from './api/console-site';
import { Idempotency } from './api/idempotency';
import { loadTls } from './api/tls';
import { ensurePortFree } from './api/port-check';
import type { AppContext } from './api/context';
import { allRoutes } from './api/routes';
import { createCompiler, type CommitCompiler } from './workers/commit-compiler';
import { createDataPlane, type DataPlane } from './dataplane';
import { reportHaTransitions } from './dataplane/ha-report';
import { Metrics } from './api/metrics';
import { AuditTrail } from './api/audit';
import { Readiness } from './api/readiness';
import { parseAddressList } from './api/client-address';
import { DeepAnalysis } from './workers/deep-analysis';
import { SharedDeepPasses } from './cluster/shared-analysis';
import { BatchPool } from './workers/batch-pool';
import { ParsePool } from './workers/parse-pool';
import { EventHub } from './events/hub';
import { TrafficLog } from './connections/traffic-log';
import { MemoryTrafficStore } from './connections/traffic-store';
import { RedisTrafficStore } from './connections/traffic-redis';
import { DynamicSets } from './dynamic/service';
import { FqdnResolver } from './dynamic/fqdn';
import { FileEntryStore, RedisEntryStore, type DynamicEntryStore } from './dynamic/entry-store';
import { LocalEvents, RedisEvents } from './events/backends';
import { CommitConfirmation } from './session/confirm';
import { EventStreams, type StreamLimits } from './api/event-streams';
import { EVENTS_PERMISSION } from './api/routes/events';
import { openFileLimit, streamsWithin } from './api/fd-limit';
import { SyslogForwarder, readSyslogCa } from './syslog/forwarder';
import { forwardAudits, trafficFieldsOf, trafficRecord } from './syslog/records';
import { MALLOC_ENV, missingMallocEnv } from './malloc-env';

export interface Daemon {
  port: number;
  ctx: AppContext;
  close(): Promise<void>;
  /** writes out the log before an exit that close() does not end in */
  drainLog(): Promise<void>;
  /** the compile threads alive (tests: a compile stopped at its deadline leaves none behind) */
  compileThreads(): number[];
}

export interface DaemonOptions {
  logger?: Logger;
  /** where the generated first admin password is printed (standard output by default) */
  announce?: (line: string) => void;
}

/** The forwarder of FW_SYSLOG (one with no targets forwards nothing). */
function syslogForwarder(settings: Settings, log: Logger): SyslogForwarder {
  return new SyslogForwarder({
    targets: settings.syslog, buffer: settings.syslogBuffer, ca: readSyslogCa(settings.syslogCa), verify: settings.syslogTlsVerify, log,
  });
}

/** First start with no users: FW_ADMIN_USER with FW_ADMIN_PASSWORD, or a printed random one. */
async function ensureAdmin(store: Store, settings: Settings, announce: (line: string) => void): Promise<void> {
  if ((await store.listUsers()).length > 0) return;
  const password = settings.adminPassword ?? randomPassword();
  await store.putUser(newUser(settings.adminUser, await hashPassword(password), 'admin'));
  if (!settings.adminPassword) announce(`initial admin account "${settings.adminUser}" with password: ${password}`);
}

/**
 * Every running version this process serves is enforced on the data plane, the one at start
 * before the first request is answered. A commit on this instance has applied its version
 * before it becomes running (skipped here); versions loaded from elsewhere (a cluster's swaps)
 * are applied as they arrive. A refusal keeps the previous rules and shows in GET /api/status;
 * the daemon still serves, so that it can be fixed over the API.
 */
async function enforceRunning<C>(config: ConfigService<C>, dataPlane: DataPlane, log: Logger): Promise<void> {
  let last: Promise<void> = Promise.resolve();
  config.onRunningChange((state) => {
    if (dataPlane.status().applied_version === state.meta.version) return;
    last = dataPlane.apply(state.doc, state.meta.version)
      .catch((e: unknown) => log.error({ err: e, version: state.meta.version }, 'data plane: the running version was not applied'));
  });
  await last;
}

/** This node's traffic log: kept in this process (embedded store), or in a Redis stream per node (a cluster's: any instance reads every node's). */
function trafficLog(settings: Settings, redis: RedisStore | null, dataPlane: DataPlane, config: ConfigService<CompiledConfig>, node: () => string, log: Logger): TrafficLog {
  const running = async () => {
    const state = config.current();
    return { doc: state.doc, compiled: (await state.compiled).compiled };
  };
  const store = redis ? new RedisTrafficStore(redis.trafficStreams, settings.trafficLogKeep) : new MemoryTrafficStore(settings.trafficLogKeep);
  return new TrafficLog(dataPlane.traffic, store, node, running, log);
}

/** The event hub of GET /api/events: ids from Redis in a cluster, from this process on the embedded store. */
function eventHub(settings: Settings, redis: RedisStore | null, log: Logger): EventHub {
  const backend = redis ? new RedisEvents(redis, settings.eventsKeep) : new LocalEvents(settings.eventsKeep);
  return new EventHub(backend, { heartbeatMs: settings.eventsHeartbeatMs, log });
}

/**
 * The caps of GET /api/events streams. Node raised the soft descriptor limit to the hard one
 * at start (src/api/fd-limit.ts); the limit is logged, and the total cap lowered to half of it
 * when set above, so that streams can never take the descriptors an admin's login needs.
 */
function streamLimits(settings: Settings, log: Logger): StreamLimits {
  const nofile = openFileLimit();
  const total = streamsWithin(settings.eventStreamsMax, nofile);
  const line = { nofile, eventStreamsMax: total, eventStreamsPerUser: settings.eventStreamsPerUser };
  if (total < settings.eventStreamsMax) log.warn({ ...line, configured: settings.eventStreamsMax }, 'FW_EVENT_STREAMS_MAX lowered to half the open file limit: raise the limit (systemd LimitNOFILE=, docker --ulimit nofile=) for more streams');
  else log.info(line, 'open file limit');
  return { perUser: settings.eventStreamsPerUser, total, recheckMs: settings.eventStreamsRecheckMs };
}

/**
 * What /readyz needs of every daemon: the store answers, the running version is compiled, and
 * with a data plane the kernel holds it (a daemon that enforces nothing is not ready, whatever
 * it answers over the API). A commit applies its version before it is running: the kernel may
 * be one version ahead for a moment, which is ready.
 */
/** The account service, its logins told to the metrics and the log. */
function accountService(store: Store, tokens: TokenService, limiter: LoginLimiter, audit: AuditTrail, config: ConfigService<CompiledConfig>, metrics: Metrics, log: Logger): AccountService {
  return new AccountService({
    store, tokens, limiter, audit,
    logins: {
      throttled: () => metrics.loginThrottled.inc(),
      failed: (caller, username) => {
        metrics.loginFailures.inc();
        log.warn({ reqId: caller.id, username, ip: caller.ip }, 'login failed');
      },
      succeeded: (caller, username) => log.info({ reqId: caller.id, username }, 'login'),
    },
    endSessionOf: async (owner, caller) => {
      if (await config.endSessionOf(owner, caller.user.username)) await audit.sessionEnded(caller, owner, 'account deleted');
    },
  });
}

function registerCoreReadiness(ctx: AppContext): void {
  ctx.readiness.register('store', () => ctx.store.ping());
  ctx.readiness.register('running', async () => {
    await ctx.config.current().compiled;
  });
  if (ctx.dataPlane.mode === 'none') return;
  ctx.readiness.register('dataplane', () => {
    const running = ctx.config.current().meta.version;
    const { applied_version: applied, error } = ctx.dataPlane.status();
    if (applied !== null && applied >= running) return;
    const holds = applied === null ? 'holds no version of ours' : `holds version ${applied}`;
    throw new Error(`the kernel ${holds}, not the running version ${running}: ${error ?? 'not applied yet'}`);
  });
}

/**
 * The Redis store of REDIS_URL. The session's lease outlives FW_SESSION_TIMEOUT by a few
 * seconds: an instance's one-second sweep ends an idle session first and records it in the
 * audit trail; the lease ends it when no instance runs.
 */
/** Dynamic address sets' entries (issue 40): a file of the data directory, or Redis in a cluster. */
async function dynamicSets(settings: Settings, redis: RedisStore | null, config: ConfigService<CompiledConfig>, dataPlane: DataPlane, log: Logger): Promise<DynamicSets> {
  let store: DynamicEntryStore;
  if (redis) {
    const r = redis;
    store = new RedisEntryStore(r.redis, r.keys.prefix, (fn) => fn(),
      (what) => r.redis.publish(r.keys.channel, JSON.stringify({ type: 'shared', what })).then(() => undefined),
      (fn) => r.onEvent((e) => { if (e.type === 'shared') fn(e.what); }));
  } else {
    const f = new FileEntryStore(settings.dataDir);
    await f.open();
    store = f;
  }
  const running = () => { const c = config.current(); return { doc: c.doc, version: c.meta.version }; };
  const dyn = new DynamicSets(store, running, dataPlane.dynamic, log);
  await dyn.loadAll();
  // FQDN addresses (issue 40): resolved by every instance (one resolver per cluster: not done)
  const fqdn = new FqdnResolver(running, dataPlane.dynamic, { servers: settings.dnsServers, minSec: settings.fqdnRefreshMinSec, maxSec: settings.fqdnRefreshMaxSec }, log);
  dyn.fqdn = fqdn;
  fqdn.sync();
  config.onRunningChange(() => { void dyn.loadAll(); fqdn.sync(); });
  return dyn;
}

function redisStore(settings: Settings, log: Logger): RedisStore {
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
function claimLog(log: Logger): (outcome: string) => void {
  let last = '';
  return (outcome) => {
    if (outcome === last) return;
    last = outcome;
    if (outcome.startsWith('dropped:')) log.info({ job: outcome.slice(8) }, 'a commit claim no job could still act on was dropped (its job failed, or its worker was cut off from Redis)');
    else if (outcome !== 'none') log.info({ claim: outcome }, 'the session is claimed by a commit job still in progress');
  };
}

/** The store the settings ask for: Redis with REDIS_URL or REDIS_SENTINELS, else the embedded files. */
function openStore(settings: Settings, log: Logger, onFatal: (err: unknown) => void): Store {
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
interface ClusterParts {
  queue: CommitQueue;
  worker: CommitWorker | null;
}

function wireCluster(settings: Settings, store: RedisStore, config: ConfigService<CompiledConfig>, tokens: TokenService | null, log: Logger): ClusterParts {
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

/** How long a log line may wait in the write buffer. */
const LOG_FLUSH_MS = 1000;
/** How long a stop waits for the log to be written out (a reader that takes nothing loses it). */
const LOG_DRAIN_MS = 2000;

export async function startDaemon(settings: Settings, opts: DaemonOptions = {}): Promise<Daemon> {
  const out = opts.logger ? null : logDestination(LOG_FLUSH_MS);
  const log = opts.logger ?? pino({ level: settings.logLevel, base: { pid: process.pid }, ...journalLogOptions() }, out!.stream);
  const drainLog = async () => {
    await out?.drain(LOG_DRAIN_MS);
  };
  let sessionInfo = async () => ({ active: false, changes: 0 }); // the session gauges, once the service is made
  const tls = loadTls(settings, log); // before the store opens: a wrong file stops the start at once
  await ensurePortFree(settings.host, settings.port); // likewise a port another process holds
  const metrics = new Metrics(() => sessionInfo());
  const syslog = syslogForwarder(settings, log);
  metrics.syslog = () => syslog.stats();
  const store = forwardAudits(metrics.timedStore(openStore(settings, log, (err: unknown) => {
    log.fatal({ err }, 'store write failed; exiting');
    // the store refuses every read and write from now on; the line is out in a moment
    void drainLog().then(() => process.exit(1));
  })), syslog);
  await store.open(() => serializeDoc(emptyDoc(settings.interfaces)));
  let compiler: CommitCompiler | null = null;
  let dataPlane: DataPlane | null = null;
  let cluster: ClusterParts | null = null;
  let analysis: DeepAnalysis | null = null;
  let hub: EventHub | null = null;
  let eventStreams: EventStreams | null = null;
  try {
    const asRedis = store instanceof RedisStore ? store : null;
    const storeSecurity = asRedis ? await checkClusterStore(asRedis, settings, log) : undefined;
    // accounts an older version wrote without a MAC are ignored until adopted, not replaced by a new admin
    if (!asRedis || !(await hasAnyAccount(asRedis))) await ensureAdmin(store, settings, opts.announce ?? ((l) => process.stdout.write(`${l}\n`)));
    const secret = asRedis ? clusterSecret(settings) : settings.jwtSecret ?? (await store.getOrCreateSecret(() => randomBytes(48).toString('base64')));
    compiler = metrics.timedCompiler(createCompiler());
    dataPlane = createDataPlane(settings.dataPlane, settings.netns, settings.dataDir, log, {
      rematch: settings.sessionRematch, hitsIntervalMs: settings.hitsIntervalMs, logQueue: settings.trafficLogQueue,
      log: settings.trafficLogRules, sessionCacheMs: settings.sessionCacheMs, keepHelpers: settings.helpersOnStop === 'keep',
      nodeId: settings.nodeId,
    });
    const config = new ConfigService(store, settings, log, compiler, commitChecks, dataPlane);
    const redis = store instanceof RedisStore ? store : null;
    hub = eventHub(settings, redis, log);
    config.events = hub.emit;
    const events = hub;
    metrics.eventSubscribers = () => events.subscriberCount;
    sessionInfo = () => config.info();
    await config.init();
    await enforceRunning(config, dataPlane, log);
    // in a cluster one instance runs a version's deep pass and the others take its result
    const share = redis ? new SharedDeepPasses(redis.sharedWork, (l) => redis.onEvent((e) => e.type === 'shared' && l(e.what)), `${settings.nodeId ?? process.pid}-${randomUUID().slice(0, 8)}`, log) : undefined;
    analysis = new DeepAnalysis({ timeoutMs: settings.analysisTimeoutMs, logger: log, share });
    const deep = analysis;
    metrics.deepPasses = () => deep.passes;
    config.onRunningChange((state) => deep.watch(state));
    const tokens = new TokenService(secret, settings.tokenTtlSec, store);
    const limiter = new LoginLimiter(settings.loginMaxFailures, settings.loginWindowSec, redis?.failureLog());
    if (redis) cluster = wireCluster(settings, redis, config, tokens, log);
    eventStreams = new EventStreams(tokens, streamLimits(settings, log), EVENTS_PERMISSION, log);
    const audit = new AuditTrail(store, { loginWindowSec: settings.loginWindowSec, log });
    const ctx: AppContext = {
      settings, store, log, config, dataPlane, startedAt: Date.now(), nodes: null!, analysis: deep, syslog,
      audit, accounts: accountService(store, tokens, limiter, audit, config, metrics, log), metrics, readiness: new Readiness(),
      batchPool: settings.evalThreads > 0 ? new BatchPool(settings.evalThreads, log) : undefined,
      parsePool: new ParsePool(Math.min(settings.maxYamlBodyBytes, settings.maxLoadBodyBytes)),
      events, eventStreams, confirmation: new CommitConfirmation(config as ConfigService<unknown>, store, events.emit, log, settings.commitTimeoutMs * 2),
      traffic: trafficLog(settings, redis, dataPlane, config, () => ctx.nodes.id, log),
      dynamic: await dynamicSets(settings, redis, config, dataPlane, log),
    };
    registerCoreReadiness(ctx);
    if (storeSecurity) {
      ctx.storeSecurity = storeSecurity;
      storeSecurity.report(metrics, ctx.readiness);
    }
    const nodeAuth = redis ? new NodeAuth(secret, (name) => store.getUser(name)) : undefined;
    ctx.nodeAuth = nodeAuth;
    const server = new HttpServer({
      host: settings.host, port: settings.port, maxBodyBytes: settings.maxBodyBytes, logger: log,
      routes: allRoutes(ctx), auth: nodeAuth ? nodeAwareAuth(tokens, nodeAuth) : tokens, requests: metrics.requests,
      // a claim outlives the longest request (a commit), so a live first request is never run twice
      idempotency: new Idempotency(store, { ttlMs: settings.idempotencyTtlMs, leaseMs: 2 * settings.commitTimeoutMs + 10_000 }),
      onForbidden: (def, req, refusal) => ctx.audit.forbidden(req, def.method, def.pattern, refusal.details), tls,
      site: new ConsoleSite(defaultConsoleDir()),
      trustedProxies: parseAddressList(settings.trustedProxies, 'FW_TRUSTED_PROXIES'), allowedHosts: settings.allowedHosts,
    });
    metrics.inFlight = () => server.requestsInFlight;
    await Promise.all([cluster?.queue.ready(), cluster?.worker?.ready()]);
    const port = await server.listen();
    const nodes = await startNode(settings, port, redis, config, dataPlane, events, log, nodeAuth);
    ctx.nodes = nodes;
    // HA state changes (issue 39) as events, audit entries, metrics
    if (dataPlane.ha) reportHaTransitions(dataPlane.ha, () => nodes.id, { emit: events.emit, audit, registry: metrics.registry, log });
    ctx.traffic.start(); // its records name this node
    ctx.traffic.onRecord((r) => syslog.forward(trafficRecord(trafficFieldsOf(r))));
    metrics.traffic = () => ({ stored: ctx.traffic.stored, dropped: ctx.traffic.dropped, queued: ctx.traffic.queued });
    if (cluster) config.useCluster(cluster.queue, (v) => nodes.waitForVersion(v));
    // a commit confirmed whose deadline passed while no instance ran is reverted now
    await ctx.confirmation.check().catch((e: unknown) => log.warn({ err: String(e) }, 'commit confirmed check failed'));
    const sweep = setInterval(() => {
      config.expireIdle().catch((e) => log.debug({ err: String(e) }, 'session sweep failed'));
      ctx.confirmation.check().catch((e) => log.debug({ err: String(e) }, 'commit confirmed check failed'));
    }, 1000);
    sweep.unref();
    log.info({ port, host: settings.host, tls: tls !== undefined, store: store.kind, node: nodes.id, dataDir: redis ? undefined : settings.dataDir, redis: settings.redis ? describeTarget(settings.redis) : undefined }, 'listening');
    warnMallocEnv(log);
    out?.flush(); // supervisors and tests wait for this line
    const activeCompiler = compiler;
    const streams = eventStreams;
    const activeDataPlane = dataPlane;
    const parts = cluster;
    return {
      port,
      ctx,
      drainLog,
      compileThreads: () => activeCompiler?.threads?.() ?? [],
      close: async () => {
        clearInterval(sweep);
        await events.recordAndDeliver({ type: 'node', state: 'left', node: nodes.id }, 1000).catch(() => undefined);
        await server.close(); // ends the event streams
        await ctx.audit.close(); // the failed logins still counted
        events.close();
        streams.close();
        await tokens.close(); // the last uses of API tokens written
        await ctx.batchPool?.close(); // after the requests in flight were answered
        await ctx.parsePool.close();
        await deep.close();
        await closeClusterParts(parts, nodes, redis, log);
        await activeCompiler.close();
        ctx.traffic.close();
        ctx.dynamic?.close();
        await activeDataPlane.close();
        await store.close();
        await syslog.close(); // after the store: the last audit entries are forwarded too
        log.info('stopped');
        await drainLog();
      },
    };
  } catch (e) {
    hub?.close();
    eventStreams?.close();
    await analysis?.close().catch(() => undefined);
    await cluster?.worker?.close().catch(() => undefined);
    await cluster?.queue.close().catch(() => undefined);
    await compiler?.close().catch(() => undefined);
    await dataPlane?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    await syslog.close();
    await drainLog();
    throw e;
  }
}

/** Started without the malloc settings npm start and the image set (malloc-env.ts): said once. */
function warnMallocEnv(log: Logger): void {
  const missing = missingMallocEnv();
  if (missing.length) log.warn({ missing, recommended: MALLOC_ENV }, 'glibc malloc settings missing from the environment: freed buffers stay in the process and the RSS grows with big commits (docs/operations.md, "Memory over months")');
}

/** How long a stop waits for the commit queue and worker and the node registry to close. */
const CLUSTER_CLOSE_MS = 10_000;

/**
 * Closes the commit worker (after the job in progress), the queue and the node registry,
 * within CLUSTER_CLOSE_MS. BullMQ closes its connections with QUIT, which waits for Redis to
 * come back: during an outage a stop would never end. So with Redis unreachable they are
 * dropped at once, and if Redis goes away during the close, the deadline ends it. A job left
 * running is handed to another worker once its lock expires, as after a crash.
 */
async function closeClusterParts(parts: ClusterParts | null, nodes: NodeDirectory | null, redis: RedisStore | null, log: Logger): Promise<void> {
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

/** Registers this instance: in the Redis cluster with a heartbeat, or as the one local node. */
async function startNode(settings: Settings, port: number, redis: RedisStore | null, config: ConfigService<CompiledConfig>, dataPlane: DataPlane, events: EventHub, log: Logger, nodeAuth?: NodeAuth): Promise<NodeDirectory> {
  const id = settings.nodeId ?? defaultNodeId(port);
  if (nodeAuth) nodeAuth.selfId = id;
  const address = settings.advertise ?? `${settings.host}:${port}`;
  events.origin = id;
  const state = () => ({ version: config.current().meta.version, dataplane: dataPlane.status() });
  events.emit({ type: 'node', state: 'joined', node: id, address, version: config.current().meta.version });
  let served = config.current().meta.version;
  config.onRunningChange((s) => {
    if (s.meta.version === served) return;
    served = s.meta.version;
    events.emit({ type: 'node', state: 'version', node: id, version: served });
  });
  if (!redis || !nodeAuth) return new LocalNode(id, address, state);
  const node = new ClusterNode(redis, { id, address, heartbeatMs: 1000, syncTimeoutMs: settings.commitSyncTimeoutMs }, state, log, nodeAuth);
  // an instance that died says nothing: the first instance to see its heartbeat lapse does
  node.onPeerLost = (peer) => events.emit({ type: 'node', state: 'left', node: peer.id, address: peer.address });
  // a swap is reported at once, not at the next heartbeat: commits wait for it
  config.onRunningChange(() => { node.beat().catch(() => undefined); });
  // each heartbeat also catches up with a version whose message was missed
  await node.start(() => config.refreshRunning());
  return node;
}

/**
 * A commit worker with no HTTP front (`npm run worker`): runs the cluster's commit jobs.
 */
export async function startWorker(settings: Settings, logger?: Logger): Promise<{ close(): Promise<void> }> {
  if (!settings.redis) throw new Error('a worker needs REDIS_URL or REDIS_SENTINELS');
  const log = logger ?? pino({ level: settings.logLevel, base: { pid: process.pid, role: 'worker' }, ...journalLogOptions() });
  const syslog = syslogForwarder(settings, log);
  // a worker records audit entries too (a commit that confirms another): they are forwarded alike
  const store = forwardAudits(redisStore(settings, log), syslog);
  await store.open(() => serializeDoc(emptyDoc(settings.interfaces)));
  const compiler = createCompiler();
  try {
    const config = new ConfigService(store, settings, log, compiler, commitChecks);
    // a worker makes commits: it reports their events too
    const events = eventHub(settings, store, log);
    events.origin = `worker-${os.hostname()}-${process.pid}`;
    config.events = events.emit;
    await config.init();
    const parts = wireCluster({ ...settings, worker: true }, store, config, null, log);
    await Promise.all([parts.queue.ready(), parts.worker!.ready()]);
    log.info({ cluster: settings.clusterName }, 'commit worker ready');
    warnMallocEnv(log);
    return {
      close: async () => {
        events.close();
        await closeClusterParts(parts, null, store, log);
        await compiler.close();
        await store.close();
        await syslog.close();
      },
    };
  } catch (e) {
    await compiler.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    await syslog.close();
    throw e;
  }
}
