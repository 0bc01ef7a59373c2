// The Redis key names of one firewall: every key sits under the hash-tagged prefix
// fw:{NAME}: so that the Lua scripts' keys share one Redis Cluster slot.

/** The key names of one firewall. */
export function keysOf(clusterName: string) {
  const p = `fw:{${clusterName}}:`;
  return {
    prefix: p,
    secret: `${p}secret`,
    users: `${p}users`,
    /** API tokens: hash -> record; owner/name -> hash; hash -> last use (unix ms) */
    apiTokens: `${p}api-tokens`,
    apiTokenNames: `${p}api-token-names`,
    apiTokenUsed: `${p}api-token-used`,
    revoked: (jti: string) => `${p}revoked:${jti}`,
    running: `${p}running`,
    history: `${p}history`,
    versionPrefix: `${p}version:`,
    version: (n: number) => `${p}version:${n}`,
    /** a version stored as the delta from the one before it (version-deltas.ts) */
    versionDeltaPrefix: `${p}version-delta:`,
    versionDelta: (n: number) => `${p}version-delta:${n}`,
    session: `${p}session`,
    journal: `${p}journal`,
    /** per footprint key, the journal position and instance that last touched it (scripts.ts APPEND) */
    journalWriters: `${p}journal-writers`,
    claim: `${p}claim`,
    /** the commit queue's keys (BullMQ, prefix fw:{NAME}:bull, queue "commits": src/workers/commit-queue.ts) */
    commitQueue: `${p}bull:commits:`,
    lastCommit: `${p}last-commit`,
    audit: `${p}audit`,
    /** failed logins, kept apart from the other audit entries (FW_AUDIT_LOGIN_FAILURES_KEEP) */
    auditLoginFailures: `${p}audit-login-failures`,
    auditSeq: `${p}audit-seq`,
    nodes: `${p}nodes`,
    /** commit workers (in instances and stand-alone): id -> heartbeat (cluster/nodes.ts) */
    workers: `${p}workers`,
    failures: (key: string) => `${p}login-failures:${key}`,
    idempotency: (scope: string) => `${p}idempotency:${scope}`,
    channel: `${p}events`,
    confirmed: `${p}confirmed`,
    revertClaim: `${p}revert-claim`,
    eventSeq: `${p}event-seq`,
    eventLog: `${p}event-log`,
    /** a node's traffic log (a capped stream) */
    traffic: (node: string) => `${p}traffic:${node}`,
  };
}
