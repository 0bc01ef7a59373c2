// What each kind of record becomes in syslog (docs/operations.md, "Forwarding to syslog"):
// audit entries as msgid AUDIT, traffic records as msgid TRAFFIC.
import type { TrafficRecord } from '../connections/traffic-record';
import { auditRecordOf, type AuditEvent } from '../store/types';
import { Facility, Severity, type SyslogRecord } from './message';
import type { SyslogForwarder } from './forwarder';

/** Audit actions that report a refusal rather than a change: severity warning. */
const REFUSALS = new Set(['auth.login-failed', 'auth.forbidden']);

// Parameter names are lower case with "_": receivers such as rsyslog's mmpstrucdata lower
// the case of names by default, so these read the same in every receiver.

/**
 * An audit entry: facility "log audit" (13), severity notice (warning for refusals), SD-ID
 * audit@32473 with who did what; MSG is the entry's details. The request body of a change
 * (payload) is not sent: it can be a whole configuration, and the trail keeps it.
 */
export function auditRecord(event: AuditEvent): SyslogRecord {
  const e = auditRecordOf(event); // the texts as the trail keeps them: no control or bidi characters
  return {
    facility: Facility.logAudit,
    severity: REFUSALS.has(e.action) ? Severity.warning : Severity.notice,
    time: e.at,
    msgid: 'AUDIT',
    sdName: 'audit',
    params: { action: e.action, user: e.user, role: e.role, token: e.token, req_id: e.reqId || undefined },
    msg: e.details,
  };
}

/** The fields of a traffic record that syslog carries (the traffic log's record maps onto it). */
export interface TrafficFields {
  /** unix ms */
  time: number;
  /** the policy's id and name; null for the default deny */
  policyId: string | null;
  policyName: string | null;
  action: string;
  protocol: string;
  src: string;
  dst: string;
  sport?: number;
  dport?: number;
  srcZone?: string;
  dstZone?: string;
  inInterface?: string;
  outInterface?: string;
  /** the addresses and ports after NAT, when NAT applied */
  nat?: { src?: string; sport?: number; dst?: string; dport?: number };
}

/** A traffic log record (src/connections) as the fields of its syslog message; a DNAT's
 * translation is the new destination, an SNAT's (or masquerade's) the new source. */
export function trafficFieldsOf(r: TrafficRecord): TrafficFields {
  const port = (p: number | null) => (p === null ? undefined : p);
  const to = r.nat && { addr: r.nat.translatedIP || undefined, port: r.nat.translatedPort ? Number(r.nat.translatedPort) : undefined };
  return {
    time: Date.parse(r.at), policyId: r.policy === null ? null : String(r.policy), policyName: r.policy === null ? null : r.policyName ?? `policy ${r.policy}`,
    action: r.action, protocol: r.protocol, src: r.src, dst: r.dst, sport: port(r['src-port']), dport: port(r['dst-port']),
    srcZone: r.srcZone ?? undefined, dstZone: r.dstZone ?? undefined, inInterface: r.inInterface ?? undefined, outInterface: r.outInterface ?? undefined,
    nat: !to ? undefined : r.nat!.type === 'dnat' ? { dst: to.addr, dport: to.port } : { src: to.addr, sport: to.port },
  };
}

/** "10.0.0.1:443", "[2001:db8::1]:443", or the bare address without a port. */
function endpoint(addr: string, port?: number): string {
  if (port === undefined) return addr;
  return addr.includes(':') ? `[${addr}]:${port}` : `${addr}:${port}`;
}

/**
 * A traffic record: facility local0 (16), severity info for an accepted connection and
 * notice for a refused one, SD-ID traffic@32473; MSG a one-line summary.
 */
export function trafficRecord(t: TrafficFields): SyslogRecord {
  const policy = t.policyName ?? 'default deny';
  return {
    facility: Facility.local0,
    severity: t.action === 'allow' || t.action === 'accept' ? Severity.info : Severity.notice,
    time: t.time,
    msgid: 'TRAFFIC',
    sdName: 'traffic',
    params: {
      action: t.action, policy_id: t.policyId ?? 'default-deny', policy, proto: t.protocol,
      src: t.src, sport: t.sport, dst: t.dst, dport: t.dport,
      src_zone: t.srcZone, dst_zone: t.dstZone, in_if: t.inInterface, out_if: t.outInterface,
      nat_src: t.nat?.src, nat_sport: t.nat?.sport, nat_dst: t.nat?.dst, nat_dport: t.nat?.dport,
    },
    msg: `${t.action} ${t.protocol} ${endpoint(t.src, t.sport)} -> ${endpoint(t.dst, t.dport)} by ${policy}`,
  };
}

/**
 * `store` with every audit entry also forwarded once it is recorded: all of the daemon's
 * writers of the trail (routes, the session sweep, commit confirmation, failed logins) go
 * through the store's audit(), so this is the one place. An entry the store refuses is not
 * forwarded. Wrapped also without targets: a reload of the settings (SIGHUP) may add some.
 */
export function forwardAudits<S extends { audit(e: AuditEvent): Promise<void> }>(store: S, forwarder: SyslogForwarder): S {
  const audit = (e: AuditEvent) => store.audit(e).then(() => {
    if (forwarder.enabled) forwarder.forward(auditRecord(e));
  });
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'audit') return audit;
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function') return v;
      let f = bound.get(prop);
      if (!f) bound.set(prop, (f = v.bind(target)));
      return f;
    },
  });
}
