// The services the daemon builds from its settings: syslog forwarding, the first admin, accounts, the event hub and its stream caps, the traffic log, dynamic sets.
import { randomUUID } from 'node:crypto';
import { type Logger } from 'pino';
import type { Settings } from '../settings';
import { newUser, type Store } from '../store/types';
import { RedisStore } from '../store/redis/redis-store';
import type { CompiledConfig } from '../eval/compiled';
import { ConfigService } from '../session/service';
import { TokenService } from '../auth/tokens';
import { LoginLimiter } from '../auth/login-limiter';
import { AccountService } from '../auth/accounts';
import { hashPassword, randomPassword } from '../auth/passwords';
import { type DataPlane } from '../dataplane';
import { Metrics } from '../api/metrics';
import { AuditTrail } from '../api/audit';
import { EventHub } from '../events/hub';
import { TrafficLog } from '../connections/traffic-log';
import { MemoryTrafficStore } from '../connections/traffic-store';
import { RedisTrafficStore } from '../connections/traffic-redis';
import { DynamicSets } from '../dynamic/service';
import { FqdnResolver } from '../dynamic/fqdn';
import { ExternalLists } from '../dynamic/lists';
import { FileListShare, SharedListShare } from '../dynamic/list-share';
import { LIST_MAX_BYTES } from '../dynamic/list-fetch';
import type { RunningDoc } from '../dynamic/service';
import type { AppContext } from '../api/context';
import { FileFqdnShare, SharedFqdnShare, type FqdnShare } from '../dynamic/fqdn-share';
import type { EventEmitterFn } from '../events/types';
import { FileEntryStore, RedisEntryStore, type DynamicEntryStore } from '../dynamic/entry-store';
import { LocalEvents, RedisEvents } from '../events/backends';
import { type StreamLimits } from '../api/event-streams';
import { openFileLimit, streamsWithin } from '../api/fd-limit';
import { SyslogForwarder, readSyslogCa } from '../syslog/forwarder';
import { MALLOC_ENV, missingMallocEnv } from '../malloc-env';

/** The forwarder of FW_SYSLOG (one with no targets forwards nothing). */
export function syslogForwarder(settings: Settings, log: Logger): SyslogForwarder {
  return new SyslogForwarder({
    targets: settings.syslog, buffer: settings.syslogBuffer, ca: readSyslogCa(settings.syslogCa), verify: settings.syslogTlsVerify, log,
  });
}

/** First start with no users: FW_ADMIN_USER with FW_ADMIN_PASSWORD, or a printed random one. */
export async function ensureAdmin(store: Store, settings: Settings, announce: (line: string) => void): Promise<void> {
  if ((await store.listUsers()).length > 0) return;
  const password = settings.adminPassword ?? randomPassword();
  await store.putUser(newUser(settings.adminUser, await hashPassword(password), 'admin'));
  if (!settings.adminPassword) announce(`initial admin account "${settings.adminUser}" with password: ${password}`);
}

/** This node's traffic log: kept in this process (embedded store), or in a Redis stream per node (a cluster's: any instance reads every node's). */
export function trafficLog(settings: Settings, redis: RedisStore | null, dataPlane: DataPlane, config: ConfigService<CompiledConfig>, node: () => string, log: Logger): TrafficLog {
  const running = async () => {
    const state = config.current();
    return { doc: state.doc, compiled: (await state.compiled).compiled };
  };
  const store = redis ? new RedisTrafficStore(redis.trafficStreams, settings.trafficLogKeep) : new MemoryTrafficStore(settings.trafficLogKeep);
  return new TrafficLog(dataPlane.traffic, store, node, running, log);
}

/** The event hub of GET /api/events: ids from Redis in a cluster, from this process on the embedded store. */
export function eventHub(settings: Settings, redis: RedisStore | null, log: Logger): EventHub {
  const backend = redis ? new RedisEvents(redis, settings.eventsKeep) : new LocalEvents(settings.eventsKeep);
  return new EventHub(backend, { heartbeatMs: settings.eventsHeartbeatMs, log });
}

/**
 * The caps of GET /api/events streams. Node raised the soft descriptor limit to the hard one
 * at start (src/api/fd-limit.ts); the limit is logged, and the total cap lowered to half of it
 * when set above, so that streams can never take the descriptors an admin's login needs.
 */
export function streamLimits(settings: Settings, log: Logger): StreamLimits {
  const nofile = openFileLimit();
  const total = streamsWithin(settings.eventStreamsMax, nofile);
  const line = { nofile, eventStreamsMax: total, eventStreamsPerUser: settings.eventStreamsPerUser };
  if (total < settings.eventStreamsMax) log.warn({ ...line, configured: settings.eventStreamsMax }, 'FW_EVENT_STREAMS_MAX lowered to half the open file limit: raise the limit (systemd LimitNOFILE=, docker --ulimit nofile=) for more streams');
  else log.info(line, 'open file limit');
  return { perUser: settings.eventStreamsPerUser, total, recheckMs: settings.eventStreamsRecheckMs };
}

/** The account service, its logins told to the metrics and the log. */
export function accountService(store: Store, tokens: TokenService, limiter: LoginLimiter, audit: AuditTrail, config: ConfigService<CompiledConfig>, metrics: Metrics, log: Logger): AccountService {
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

/** Dynamic address sets' entries (issue 40): a file of the data directory, or Redis in a cluster. */
export async function dynamicSets(settings: Settings, redis: RedisStore | null, config: ConfigService<CompiledConfig>, dataPlane: DataPlane, log: Logger, emit?: EventEmitterFn): Promise<DynamicSets> {
  let store: DynamicEntryStore;
  if (redis) {
    const r = redis;
    store = new RedisEntryStore(r.redis, r.keys.prefix, (fn) => fn(),
      (what) => r.redis.publish(r.keys.channel, JSON.stringify({ type: 'shared', what })).then(() => undefined),
      onShared(r));
  } else {
    const f = new FileEntryStore(settings.dataDir);
    await f.open();
    store = f;
  }
  const running = () => { const c = config.current(); return { doc: c.doc, version: c.meta.version }; };
  const dyn = new DynamicSets(store, running, dataPlane.dynamic, log);
  await dyn.loadAll();
  const fqdn = new FqdnResolver(running, dataPlane.dynamic, await fqdnShare(settings, redis),
    { servers: settings.dnsServers, minSec: settings.fqdnRefreshMinSec, maxSec: settings.fqdnRefreshMaxSec }, log, emit);
  dyn.fqdn = fqdn;
  fqdn.sync();
  dyn.lists = externalLists(settings, redis, running, dataPlane, log);
  dyn.lists.setEntries = () => dyn.totalEntries();
  const lists = dyn.lists;
  await lists.sync();
  fqdn.start();
  config.onRunningChange(() => { void dyn.loadAll(); fqdn.sync(); void lists.sync(); });
  return dyn;
}

/** The lists' events, the capacity of every set and list, and the FQDN resolutions in /metrics (issue 40). */
export function wireDynamicCapacity(ctx: AppContext): void {
  const dyn = ctx.dynamic;
  const fqdn = dyn?.fqdn;
  if (fqdn) ctx.metrics.fqdnResolutions = () => fqdn.resolutions;
  if (!dyn?.lists) return;
  const lists = dyn.lists;
  lists.events = ctx.events.emit;
  ctx.metrics.dynamicCapacity = () => {
    const t = lists.totals();
    return { entries: t.entries + dyn.totalEntries(), cut: t.cut, max: ctx.settings.dynamicMaxEntries, fetches: lists.fetches };
  };
}

/** How a run-time object's publisher hears that another instance published (the store's 'shared' events). */
const onShared = (redis: RedisStore) => (fn: (what: string) => void) => redis.onEvent((e) => { if (e.type === 'shared') fn(e.what); });

/** This instance's name in a claim of the cluster's shared work: its node id and a tag of this process. */
const claimOwner = (settings: Settings) => `${settings.nodeId ?? process.pid}-${randomUUID().slice(0, 8)}`;

/** External lists (issue 40): fetched here (embedded) or by the instance that claims each (Redis). */
function externalLists(settings: Settings, redis: RedisStore | null, running: () => RunningDoc, dataPlane: DataPlane, log: Logger): ExternalLists {
  const share = redis
    ? new SharedListShare(redis.sharedWork, onShared(redis), claimOwner(settings))
    : new FileListShare(settings.dataDir);
  return new ExternalLists(running, share, dataPlane.dynamic, {
    maxEntries: settings.listMaxEntries, maxBytes: LIST_MAX_BYTES, timeoutMs: settings.listTimeoutMs,
    minRefreshSec: settings.listRefreshMinSec, totalMax: settings.dynamicMaxEntries,
  }, log);
}

/** Where FQDN addresses' resolutions are published (issue 40): one resolver per cluster on Redis, a file of the data directory otherwise. */
async function fqdnShare(settings: Settings, redis: RedisStore | null): Promise<FqdnShare> {
  if (redis) return new SharedFqdnShare(redis.sharedWork, onShared(redis), claimOwner(settings));
  const f = new FileFqdnShare(settings.dataDir);
  await f.open();
  return f;
}

/** Started without the malloc settings npm start and the image set (malloc-env.ts): said once. */
export function warnMallocEnv(log: Logger): void {
  const missing = missingMallocEnv();
  if (missing.length) log.warn({ missing, recommended: MALLOC_ENV }, 'glibc malloc settings missing from the environment: freed buffers stay in the process and the RSS grows with big commits (docs/operations.md, "Memory over months")');
}
