// Settings from the environment (contract section 7), read and checked once at start-up.
import os from 'node:os';
import path from 'node:path';
import { isNetnsName } from './dataplane/names';

export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  interfaces: string[];
  adminUser: string;
  adminPassword: string | undefined;
  jwtSecret: string | undefined;
  tokenTtlSec: number;
  sessionTimeoutSec: number;
  logLevel: string;
  maxBodyBytes: number;
  redisUrl: string | undefined;
  loginMaxFailures: number;
  loginWindowSec: number;
  commitTimeoutMs: number;
  /** FW_DATAPLANE: none (nothing enforced) or linux (nftables, iproute2, dnsmasq) */
  dataPlane: 'none' | 'linux';
  /** FW_NETNS: the network namespace the linux data plane enforces on (null: this host's) */
  netns: string | null;
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
  /** FW_VERSIONS_KEEP: committed versions kept (the newest, the running one always among them); 0: all */
  versionsKeep: number;
  /** FW_AUDIT_KEEP: audit entries kept (the newest); 0: all */
  auditKeep: number;
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

function netns(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!isNetnsName(raw)) throw new Error(`FW_NETNS: "${raw}" is not a network namespace name`);
  return raw;
}

/** One batch-eval thread per core but the HTTP thread's, at most 4 (0 on one core). */
function defaultEvalThreads(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(0, Math.min(4, cores - 1));
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
    interfaces: interfaces.length ? interfaces : hostInterfaces(),
    adminUser: env.FW_ADMIN_USER || 'admin',
    adminPassword: env.FW_ADMIN_PASSWORD || undefined,
    jwtSecret: env.FW_JWT_SECRET || undefined,
    tokenTtlSec: int(env, 'FW_TOKEN_TTL', 3600, 1, 30 * 86400),
    sessionTimeoutSec: int(env, 'FW_SESSION_TIMEOUT', 900, 1, 7 * 86400),
    logLevel: env.FW_LOG_LEVEL || 'info',
    maxBodyBytes: int(env, 'FW_MAX_BODY', 1024 * 1024, 1024, 64 * 1024 * 1024),
    redisUrl: env.REDIS_URL || undefined,
    loginMaxFailures: int(env, 'FW_LOGIN_MAX_FAILURES', 5, 1, 1000),
    loginWindowSec: int(env, 'FW_LOGIN_WINDOW', 60, 1, 86400),
    commitTimeoutMs: int(env, 'FW_COMMIT_TIMEOUT', 60, 1, 3600) * 1000,
    dataPlane: dataPlaneMode(env.FW_DATAPLANE),
    netns: netns(env.FW_NETNS),
    metricsAllow: env.FW_METRICS ?? '',
    trustedProxies: env.FW_TRUSTED_PROXIES ?? '',
    analysisTimeoutMs: int(env, 'FW_ANALYSIS_TIMEOUT', 60, 0, 86400) * 1000,
    clusterName: name(env, 'FW_CLUSTER_NAME', 'default'),
    commitSyncTimeoutMs: int(env, 'FW_COMMIT_SYNC_TIMEOUT', 5, 0, 600) * 1000,
    worker: onOff(env, 'FW_WORKER', true),
    nodeId: env.FW_NODE_ID ? name(env, 'FW_NODE_ID', '') : undefined,
    advertise: env.FW_ADVERTISE || undefined,
    evalThreads: int(env, 'FW_EVAL_THREADS', defaultEvalThreads(), 0, 64),
    versionsKeep: int(env, 'FW_VERSIONS_KEEP', 100, 0, 1_000_000),
    auditKeep: int(env, 'FW_AUDIT_KEEP', 100_000, 0, 100_000_000),
  };
}
