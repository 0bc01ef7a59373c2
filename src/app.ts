// The daemon's start and stop, in order: store, first admin, JWT secret, session service,
// routes and the HTTP server; in cluster mode (REDIS_URL) also the commit queue, its worker,
// pub/sub and the node registry. What each part is made of lives in src/wiring/ (store.ts,
// services.ts, running.ts; worker.ts for `npm run worker`). main.ts runs it from the
// environment; tests start it in-process on a free port.
import { checkClusterStore, clusterSecret, hasAnyAccount } from './cluster/cluster-security';
import { NodeAuth, nodeAwareAuth } from './cluster/node-auth';
import { randomBytes, randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { logDestination } from './log-destination';
import { journalLogOptions } from './journal-format';
import type { Settings } from './settings';
import { RedisStore } from './store/redis/redis-store';
import { describeTarget } from './store/redis/connection';
import { emptyDoc, serializeDoc } from './config/document';
import { commitChecks } from './config/commit-checks';
import { ConfigService } from './session/service';
import { TokenService } from './auth/tokens';
import { LoginLimiter } from './auth/login-limiter';
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
import { HaLeaseShare } from './cluster/ha-leases';
import { Metrics } from './api/metrics';
import { AuditTrail } from './api/audit';
import { Readiness } from './api/readiness';
import { parseAddressList } from './api/client-address';
import { DeepAnalysis } from './workers/deep-analysis';
import { SharedDeepPasses } from './cluster/shared-analysis';
import { BatchPool } from './workers/batch-pool';
import { ParsePool } from './workers/parse-pool';
import { EventHub } from './events/hub';
import { CommitConfirmation } from './session/confirm';
import { EventStreams } from './api/event-streams';
import { EVENTS_PERMISSION } from './api/routes/events';
import { forwardAudits, trafficFieldsOf, trafficRecord } from './syslog/records';
import { openStore, type ClusterParts, wireCluster, closeClusterParts } from './wiring/store';
import { syslogForwarder, ensureAdmin, trafficLog, eventHub, streamLimits, accountService, dynamicSets, warnMallocEnv, wireDynamicCapacity } from './wiring/services';
import { enforceRunning, registerCoreReadiness, startNode } from './wiring/running';

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
      parsePool: new ParsePool(Math.min(settings.maxYamlBodyBytes, settings.maxLoadBodyBytes), settings.maxLoadBodyBytes),
      events, eventStreams, confirmation: new CommitConfirmation(config as ConfigService<unknown>, store, events.emit, log, settings.commitTimeoutMs * 2),
      traffic: trafficLog(settings, redis, dataPlane, config, () => ctx.nodes.id, log),
      dynamic: await dynamicSets(settings, redis, config, dataPlane, log, events.emit),
    };
    registerCoreReadiness(ctx);
    wireDynamicCapacity(ctx);
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
    // the master's DHCP leases, for the dnsmasq a takeover starts on the other node
    const leaseShare = dataPlane.ha && redis ? new HaLeaseShare(dataPlane.ha, redis.sharedWork, (l) => redis.onEvent((e) => e.type === 'shared' && l(e.what)), () => nodes.id, log) : null;
    leaseShare?.start();
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
        leaseShare?.close();
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
