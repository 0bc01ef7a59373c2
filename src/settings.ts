// Settings from the environment (contract section 7), read and checked once at start-up.
import os from 'node:os';
import path from 'node:path';
import { isNetnsName } from './dataplane/names';
import { DEFAULT_LOG_RULES, type TrafficLogRules } from './dataplane/nft-log';
import { nameProblem } from './config/validate';
import { passwordProblem } from './auth/passwords';
import { SECRET_MIN_GUESSES_LOG10, strengthOf, weakProblem } from './auth/strength';
import { parseAllowedHosts } from './host-names';
import type { RedisTarget } from './store/redis/connection';
import { RETENTION_DEFAULTS } from './store/records';
import { parseSyslogTargets, type SyslogTarget } from './syslog/targets';
import { DEFAULT_MAX_EXPANSION } from './config/expansion';

export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  /** FQDN addresses (issue 40): resolvers (host or host:port; empty: the system's) and the refresh bounds, seconds */
  dnsServers: string[];
  fqdnRefreshMinSec: number;
  fqdnRefreshMaxSec: number;
  /** External lists (issue 40): entries kept of one list, the shortest refresh, a fetch's timeout (ms) */
  listMaxEntries: number;
  listRefreshMinSec: number;
  listTimeoutMs: number;
  /** FW_DYNAMIC_MAX_ENTRIES: entries over every dynamic set and external list */
  dynamicMaxEntries: number;
  interfaces: string[];
  adminUser: string;
  adminPassword: string | undefined;
  jwtSecret: string | undefined;
  tokenTtlSec: number;
  sessionTimeoutSec: number;
  logLevel: string;
  maxBodyBytes: number;
  redisUrl: string | undefined;
  /** REDIS_URL or REDIS_SENTINELS (+ REDIS_SENTINEL_MASTER, REDIS_PASSWORD): cluster mode; null: the embedded store */
  redis: RedisTarget | null;
  /** FW_REDIS_MIN_REPLICAS: replicas that must hold a write before it is acknowledged (WAIT); all: every replica the sentinels know */
  redisMinReplicas: number | 'all';
  /** FW_REDIS_INSECURE: start although Redis takes commands without authentication off loopback (issue 38; warned loudly) */
  redisInsecure: boolean;
  loginMaxFailures: number;
  loginWindowSec: number;
  commitTimeoutMs: number;
  /** FW_DATAPLANE: none (nothing enforced) or linux (nftables, iproute2, dnsmasq) */
  dataPlane: 'none' | 'linux';
  /** FW_NETNS: the network namespace the linux data plane enforces on (null: this host's) */
  netns: string | null;
  /** FW_SESSION_REMATCH: after a commit, connections accepted under an older version meet the new policies again */
  sessionRematch: boolean;
  /** FW_HITS_INTERVAL (seconds): how often the kernel's rule counters are sampled for hit times */
  hitsIntervalMs: number;
  /** FW_TRAFFIC_LOG_KEEP: traffic log records kept per node (the newest) */
  trafficLogKeep: number;
  /**
   * The logging rules: FW_TRAFFIC_LOG_GROUP (the NFLOG group ulogd reads), FW_TRAFFIC_LOG_RATE
   * (records a second each logging rule may send; the kernel sends no more) and
   * FW_LOG_DEFAULT_DENY (connections no policy matches are logged too)
   */
  trafficLogRules: TrafficLogRules;
  /** FW_TRAFFIC_LOG_QUEUE: records held between ulogd and the traffic log; beyond, dropped and counted */
  trafficLogQueue: number;
  /** FW_SESSION_CACHE_MS: how long one conntrack listing serves the session and impact requests after it (0: each lists) */
  sessionCacheMs: number;
  /** FW_METRICS: client addresses or networks that may scrape /metrics without a token ("" : none) */
  metricsAllow: string;
  /** FW_TRUSTED_PROXIES: proxies whose X-Forwarded-For names the client ("": none, the header is ignored) */
  trustedProxies: string;
  /** FW_ANALYSIS_TIMEOUT: wall-clock cap of the deep analysis after a commit; 0: no deep pass */
  analysisTimeoutMs: number;
  /** FW_CLUSTER_NAME: the firewall's name in Redis (keys fw:{name}:...) */
  clusterName: string;
  /** FW_COMMIT_SYNC_TIMEOUT: how long a commit waits for every instance to serve it */
  commitSyncTimeoutMs: number;
  /** FW_WORKER: run commit jobs in this instance (cluster mode) */
  worker: boolean;
  /** FW_NODE_ID: this instance's id in the cluster (default host name and port) */
  nodeId: string | undefined;
  /** FW_ADVERTISE: the address other nodes and operators see (default host:port) */
  advertise: string | undefined;
  /** FW_EVAL_THREADS: worker threads for large POST /api/eval/batch requests; 0: all inline */
  evalThreads: number;
  /** FW_EVENTS_HEARTBEAT (seconds): the comment line written to idle GET /api/events streams */
  eventsHeartbeatMs: number;
  /** FW_EVENTS_KEEP: recent events kept for clients that resume with Last-Event-ID */
  eventsKeep: number;
  /** FW_EVENT_STREAMS_PER_USER: open GET /api/events streams of one account on one instance (429 beyond) */
  eventStreamsPerUser: number;
  /** FW_EVENT_STREAMS_MAX: open GET /api/events streams on one instance (429 beyond; at most half the descriptor limit) */
  eventStreamsMax: number;
  /** FW_EVENT_STREAMS_RECHECK (seconds): how often every open stream's credential is verified against the store */
  eventStreamsRecheckMs: number;
  /** FW_IDEMPOTENCY_TTL: how long the answer of a request with an Idempotency-Key is kept */
  idempotencyTtlMs: number;
  /** FW_MAX_LOAD_BODY: the body limit of a whole-configuration load and of a batch */
  maxLoadBodyBytes: number;
  /** FW_TLS_CERT, FW_TLS_KEY: PEM files; with both the API is HTTPS only (src/api/tls.ts) */
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  /** FW_TLS_KEY_PASSPHRASE: the passphrase of an encrypted FW_TLS_KEY */
  tlsKeyPassphrase: string | undefined;
  /** FW_VERSIONS_KEEP: committed versions kept (the newest, the running one always among them); 0: all */
  versionsKeep: number;
  /** FW_AUDIT_KEEP: audit entries kept (the newest), failed logins apart; 0: all */
  auditKeep: number;
  /** FW_AUDIT_LOGIN_FAILURES_KEEP: failed-login audit entries kept (the newest), never counted in FW_AUDIT_KEEP; 0: all */
  auditLoginFailuresKeep: number;
  /** FW_ALLOWED_HOSTS: the host names requests may give in Host (421 otherwise); empty: any */
  allowedHosts: string[];
  /** FW_SYSLOG: where audit entries and traffic records are forwarded (none: []) */
  syslog: SyslogTarget[];
  /** FW_SYSLOG_BUFFER: messages held per target while it cannot take them; more are dropped and counted */
  syslogBuffer: number;
  /** FW_SYSLOG_CA: PEM file of the certificate authorities tls:// targets are checked against (undefined: the system's) */
  syslogCa: string | undefined;
  /** FW_SYSLOG_TLS_VERIFY: check a tls:// target's certificate and name */
  syslogTlsVerify: boolean;
  /** FW_MAX_YAML_BODY: the body limit of a YAML document (parsing YAML takes ~100 times its size in memory) */
  maxYamlBodyBytes: number;
  /** FW_HELPERS_ON_STOP: keep: a stop leaves the data plane's helper daemons serving for the next start to adopt (systemd KillMode=process) */
  helpersOnStop: 'stop' | 'keep';
  /** FW_ENV_FILE: the settings file SIGHUP reads again (src/service/reload.ts); undefined: SIGHUP re-reads nothing */
  envFile: string | undefined;

  // the expansion budget and the compile deadline (issue 38; docs/operations.md)
  /** FW_MAX_EXPANSION: the most prefixes and rules a configuration may make the compile materialise (src/config/expansion.ts) */
  maxExpansion: number;
  /** FW_COMPILE_TIMEOUT_MS: a compile (commit, validate, candidate eval) running longer is stopped, its thread ended and replaced; default FW_COMMIT_TIMEOUT */
  compileTimeoutMs: number;
}

function onOff(env: NodeJS.ProcessEnv, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (raw === 'on' || raw === 'true' || raw === '1') return true;
  if (raw === 'off' || raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be on or off, got "${raw}"`);
}

function name(env: NodeJS.ProcessEnv, key: string, def: string): string {
  const raw = env[key] || def;
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(raw)) throw new Error(`${key} must be 1 to 64 letters, digits, "_", "." or "-", got "${raw}"`);
  return raw;
}

function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

/**
 * FW_REDIS_MIN_REPLICAS: a count, or `all` (every replica the sentinels know, the default with
 * sentinels). With one replica short of all, a partition that leaves the primary with one
 * replica loses what that replica confirmed when the sentinels promote another (issue 31).
 */
function minReplicas(env: NodeJS.ProcessEnv): number | 'all' {
  const raw = env.FW_REDIS_MIN_REPLICAS;
  if (raw === 'all' || ((raw === undefined || raw === '') && env.REDIS_SENTINELS)) {
    if (!env.REDIS_SENTINELS) throw new Error('FW_REDIS_MIN_REPLICAS=all needs REDIS_SENTINELS (the sentinels say how many replicas there are); give a number instead');
    return 'all';
  }
  return int(env, 'FW_REDIS_MIN_REPLICAS', 0, 0, 16);
}

/** The host's non-loopback interfaces: the default inventory of a new store. */
function hostInterfaces(): string[] {
  const names = Object.entries(os.networkInterfaces())
    .filter(([, addrs]) => !(addrs ?? []).every((a) => a.internal))
    .map(([name]) => name);
  return names.length ? names.sort() : ['eth0'];
}

function dataPlaneMode(raw: string | undefined): 'none' | 'linux' {
  if (raw === undefined || raw === '' || raw === 'none') return 'none';
  if (raw === 'linux') return 'linux';
  throw new Error(`FW_DATAPLANE must be none or linux, got "${raw}"`);
}

function helpersOnStop(raw: string | undefined): 'stop' | 'keep' {
  if (raw === undefined || raw === '' || raw === 'stop') return 'stop';
  if (raw === 'keep') return 'keep';
  throw new Error(`FW_HELPERS_ON_STOP must be stop or keep, got "${raw}"`);
}

function netns(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!isNetnsName(raw)) throw new Error(`FW_NETNS: "${raw}" is not a network namespace name`);
  return raw;
}

/** REDIS_SENTINELS: `host:port,host:port` (an IPv6 host in brackets: `[::1]:26379`). */
function sentinels(raw: string): Array<{ host: string; port: number }> {
  return raw.split(',').map((s) => s.trim()).filter(Boolean).map((item) => {
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(item);
    const port = m ? Number(m[3]) : 0;
    if (!m || port < 1 || port > 65535) throw new Error(`REDIS_SENTINELS: "${item}" is not host:port`);
    return { host: m[1] ?? m[2], port };
  });
}

/** Where Redis is (REDIS_URL, or the sentinels); null without either: the embedded store. */
function redisTarget(env: NodeJS.ProcessEnv): RedisTarget | null {
  const url = env.REDIS_URL || undefined;
  if (url !== undefined) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error('REDIS_URL must be redis://[user:password@]host:port[/db] or rediss://...');
    }
    if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error(`REDIS_URL must start with redis:// or rediss://, got "${u.protocol}//"`);
  }
  const list = sentinels(env.REDIS_SENTINELS ?? '');
  if (!list.length && url === undefined) return null;
  const target: RedisTarget = { url, password: env.REDIS_PASSWORD || undefined, sentinelPassword: env.REDIS_SENTINEL_PASSWORD || undefined };
  if (list.length) {
    const master = env.REDIS_SENTINEL_MASTER || '';
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(master)) throw new Error('REDIS_SENTINELS needs REDIS_SENTINEL_MASTER: the name the sentinels monitor the primary by');
    target.sentinels = list;
    target.sentinelMaster = master;
  }
  return target;
}

/** How an operator makes a strong secret (a JWT secret, a first admin password). */
const GENERATE = 'generate one with: openssl rand -base64 32';

/** HS256 keys: at least the hash's size, 256 bits (RFC 7518 3.2); a shorter one can be guessed offline from any token. */
const JWT_SECRET_MIN_BYTES = 32;

/**
 * FW_JWT_SECRET: unset (generated on first start and kept in the store), or at least 32 bytes
 * that are hard to guess (src/auth/strength.ts): 36 x "a" is 36 bytes and guessed at once. A
 * weak secret already in use is refused too, with how to rotate it.
 */
function jwtSecret(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const bytes = Buffer.byteLength(raw, 'utf8');
  if (bytes < JWT_SECRET_MIN_BYTES) {
    throw new Error(`FW_JWT_SECRET is ${bytes} bytes; a signing secret needs at least ${JWT_SECRET_MIN_BYTES} (256 bits, RFC 7518 3.2): ${GENERATE}, or leave it unset to have one generated and kept in the store`);
  }
  const weak = weakProblem(strengthOf(raw), SECRET_MIN_GUESSES_LOG10);
  if (weak !== null) {
    throw new Error(`FW_JWT_SECRET is ${weak}: ${GENERATE}. To rotate it, put the new one in place of the old (on every instance of a cluster) and restart; logins made with the old one end and their users log in again (docs/operations.md, "Logins and secrets")`);
  }
  return raw;
}

/** FW_ADMIN_USER: a name the login accepts (the user name rule of POST /api/users). */
function adminUser(raw: string | undefined): string {
  const user = raw || 'admin';
  const problem = nameProblem(user);
  if (problem !== null) throw new Error(`FW_ADMIN_USER "${user.slice(0, 64)}": ${problem}`);
  return user;
}

/** FW_ADMIN_PASSWORD: unset (a random one printed on first start), or one POST /api/users would accept. */
function adminPassword(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const problem = passwordProblem(raw);
  if (problem !== null) throw new Error(`FW_ADMIN_PASSWORD: ${problem} (the rule of every account); ${GENERATE}, or leave it unset to have one printed on first start`);
  return raw;
}

/** One batch-eval thread per core but the HTTP thread's, at most 4 (0 on one core). */
function defaultEvalThreads(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(0, Math.min(4, cores - 1));
}

/**
 * FW_VERSIONS_KEEP: 0 (all) or at least 2: the version before the running one must stay, a
 * commit confirmed that is not confirmed in time is reverted to it (src/session/confirm.ts).
 */
function versionsKeep(env: NodeJS.ProcessEnv): number {
  const n = int(env, 'FW_VERSIONS_KEEP', RETENTION_DEFAULTS.versionsKeep, 0, 1_000_000);
  if (n === 1) throw new Error('FW_VERSIONS_KEEP must be 0 (keep all) or at least 2 (a commit confirmed reverts to the version before it), got "1"');
  return n;
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const interfaces = (env.FW_INTERFACES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    host: env.FW_HOST || '127.0.0.1',
    port: int(env, 'FW_PORT', 8080, 0, 65535),
    dataDir: path.resolve(env.FW_DATA_DIR || './data'),
    dnsServers: (env.FW_DNS_SERVERS ?? '').split(',').map((x) => x.trim()).filter(Boolean),
    fqdnRefreshMinSec: int(env, 'FW_FQDN_REFRESH_MIN', 30, 1, 86400),
    fqdnRefreshMaxSec: int(env, 'FW_FQDN_REFRESH_MAX', 3600, 1, 7 * 86400),
    listMaxEntries: int(env, 'FW_LIST_MAX_ENTRIES', 100_000, 1, 10_000_000),
    listRefreshMinSec: int(env, 'FW_LIST_REFRESH_MIN', 60, 1, 86400),
    listTimeoutMs: int(env, 'FW_LIST_TIMEOUT', 30, 1, 600) * 1000,
    dynamicMaxEntries: int(env, 'FW_DYNAMIC_MAX_ENTRIES', 1_000_000, 1, 100_000_000),
    interfaces: interfaces.length ? interfaces : hostInterfaces(),
    adminUser: adminUser(env.FW_ADMIN_USER),
    adminPassword: adminPassword(env.FW_ADMIN_PASSWORD),
    jwtSecret: jwtSecret(env.FW_JWT_SECRET),
    tokenTtlSec: int(env, 'FW_TOKEN_TTL', 3600, 1, 30 * 86400),
    sessionTimeoutSec: int(env, 'FW_SESSION_TIMEOUT', 900, 1, 7 * 86400),
    logLevel: env.FW_LOG_LEVEL || 'info',
    maxBodyBytes: int(env, 'FW_MAX_BODY', 1024 * 1024, 1024, 64 * 1024 * 1024),
    redisUrl: env.REDIS_URL || undefined,
    redis: redisTarget(env),
    redisMinReplicas: minReplicas(env),
    redisInsecure: onOff(env, 'FW_REDIS_INSECURE', false),
    loginMaxFailures: int(env, 'FW_LOGIN_MAX_FAILURES', 5, 1, 1000),
    loginWindowSec: int(env, 'FW_LOGIN_WINDOW', 60, 1, 86400),
    commitTimeoutMs: int(env, 'FW_COMMIT_TIMEOUT', 60, 1, 3600) * 1000,
    dataPlane: dataPlaneMode(env.FW_DATAPLANE),
    netns: netns(env.FW_NETNS),
    sessionRematch: onOff(env, 'FW_SESSION_REMATCH', true),
    hitsIntervalMs: int(env, 'FW_HITS_INTERVAL', 5, 1, 3600) * 1000,
    trafficLogKeep: int(env, 'FW_TRAFFIC_LOG_KEEP', 100_000, 100, 10_000_000),
    trafficLogRules: {
      group: int(env, 'FW_TRAFFIC_LOG_GROUP', DEFAULT_LOG_RULES.group, 1, 65535),
      rate: int(env, 'FW_TRAFFIC_LOG_RATE', DEFAULT_LOG_RULES.rate, 1, 1_000_000),
      defaultDeny: onOff(env, 'FW_LOG_DEFAULT_DENY', DEFAULT_LOG_RULES.defaultDeny),
    },
    trafficLogQueue: int(env, 'FW_TRAFFIC_LOG_QUEUE', 20_000, 100, 1_000_000),
    sessionCacheMs: int(env, 'FW_SESSION_CACHE_MS', 1000, 0, 60_000),
    metricsAllow: env.FW_METRICS ?? '',
    trustedProxies: env.FW_TRUSTED_PROXIES ?? '',
    analysisTimeoutMs: int(env, 'FW_ANALYSIS_TIMEOUT', 60, 0, 86400) * 1000,
    clusterName: name(env, 'FW_CLUSTER_NAME', 'default'),
    commitSyncTimeoutMs: int(env, 'FW_COMMIT_SYNC_TIMEOUT', 5, 0, 600) * 1000,
    worker: onOff(env, 'FW_WORKER', true),
    nodeId: env.FW_NODE_ID ? name(env, 'FW_NODE_ID', '') : undefined,
    advertise: env.FW_ADVERTISE || undefined,
    evalThreads: int(env, 'FW_EVAL_THREADS', defaultEvalThreads(), 0, 64),
    eventsHeartbeatMs: int(env, 'FW_EVENTS_HEARTBEAT', 15, 1, 3600) * 1000,
    eventsKeep: int(env, 'FW_EVENTS_KEEP', 1000, 10, 100_000),
    eventStreamsPerUser: int(env, 'FW_EVENT_STREAMS_PER_USER', 10, 1, 100_000),
    eventStreamsMax: int(env, 'FW_EVENT_STREAMS_MAX', 1000, 1, 1_000_000),
    eventStreamsRecheckMs: int(env, 'FW_EVENT_STREAMS_RECHECK', 60, 1, 86400) * 1000,
    idempotencyTtlMs: int(env, 'FW_IDEMPOTENCY_TTL', 86400, 1, 30 * 86400) * 1000,
    maxLoadBodyBytes: int(env, 'FW_MAX_LOAD_BODY', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    tlsCert: env.FW_TLS_CERT ? path.resolve(env.FW_TLS_CERT) : undefined,
    tlsKey: env.FW_TLS_KEY ? path.resolve(env.FW_TLS_KEY) : undefined,
    tlsKeyPassphrase: env.FW_TLS_KEY_PASSPHRASE || undefined,
    versionsKeep: versionsKeep(env),
    auditKeep: int(env, 'FW_AUDIT_KEEP', RETENTION_DEFAULTS.auditKeep, 0, 100_000_000),
    auditLoginFailuresKeep: int(env, 'FW_AUDIT_LOGIN_FAILURES_KEEP', RETENTION_DEFAULTS.auditLoginFailuresKeep, 0, 100_000_000),
    allowedHosts: parseAllowedHosts(env.FW_ALLOWED_HOSTS ?? ''),
    maxYamlBodyBytes: int(env, 'FW_MAX_YAML_BODY', 10 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    syslog: parseSyslogTargets(env.FW_SYSLOG ?? ''),
    syslogBuffer: int(env, 'FW_SYSLOG_BUFFER', 10_000, 1, 1_000_000),
    syslogCa: env.FW_SYSLOG_CA ? path.resolve(env.FW_SYSLOG_CA) : undefined,
    syslogTlsVerify: onOff(env, 'FW_SYSLOG_TLS_VERIFY', true),
    helpersOnStop: helpersOnStop(env.FW_HELPERS_ON_STOP),
    envFile: env.FW_ENV_FILE ? path.resolve(env.FW_ENV_FILE) : undefined,
    ...budgetSettings(env),
  };
}

/** The expansion budget and the compile deadline (issue 38). */
function budgetSettings(env: NodeJS.ProcessEnv): Pick<Settings, 'maxExpansion' | 'compileTimeoutMs'> {
  const commitMs = int(env, 'FW_COMMIT_TIMEOUT', 60, 1, 3600) * 1000;
  return {
    maxExpansion: int(env, 'FW_MAX_EXPANSION', DEFAULT_MAX_EXPANSION, 1000, 1_000_000_000),
    compileTimeoutMs: Math.min(commitMs, int(env, 'FW_COMPILE_TIMEOUT_MS', commitMs, 50, 3_600_000)),
  };
}
