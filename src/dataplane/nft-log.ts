// The traffic log's side of the nft table (docs/dataplane.md, "Traffic log"): the settings that
// shape its rules, the NFLOG statement each logging rule carries, and the prefixes the kernel
// gives each record, which the reader of ulogd's records (traffic-kernel.ts) parses back.
import type { ConfigDoc } from '../config/types';

/** What the traffic log settings make of the logging rules. */
export interface TrafficLogRules {
  /** the NFLOG group ulogd reads (FW_TRAFFIC_LOG_GROUP) */
  group: number;
  /** records a second each logging rule may send (FW_TRAFFIC_LOG_RATE); beyond, the kernel sends none */
  rate: number;
  /** FW_LOG_DEFAULT_DENY: connections no policy matched are logged too */
  defaultDeny: boolean;
}

export const DEFAULT_LOG_RULES: TrafficLogRules = { group: 100, rate: 5000, defaultDeny: false };

/** The prefixes the kernel gives each record: what traffic-kernel.ts reads back. */
export const policyLogPrefix = (id: number, action: string) => `fwd policy ${id} ${action}`;
export const DEFAULT_DENY_LOG_PREFIX = 'fwd default deny';
export const natLogPrefix = (id: number) => `fwd nat ${id}`;
/** issue 41: a local policy's records (traffic to the firewall itself) */
export const localLogPrefix = (id: number, action: string) => `fwd local ${id} ${action}`;

/** An NFLOG statement under the rule's own rate limit (a burst of a fifth of a second's worth). */
export function nflog(log: TrafficLogRules, prefix: string): string {
  return `limit rate ${log.rate}/second burst ${Math.max(5, Math.ceil(log.rate / 5))} packets log group ${log.group} prefix "${prefix}"`;
}

/**
 * The conntrack label bit a logging rule sets on the connection it logs (issue 43 item 11): a
 * connection stays `ct state new` until its first reply, so a one-way UDP flow or unanswered
 * pings would otherwise be logged once per packet. A label, not a mark bit: fwd's marks
 * (marks.ts) use all 32 bits of `ct mark` and the allowing verdict overwrites it.
 */
export const LOGGED_LABEL = 127;

/**
 * The NFLOG statement of a connection's first logged packet: `ct state new`, not yet labelled,
 * within the rate limit (a packet over the limit leaves the connection unlabelled, so a later
 * one may still be its record), then labelled and logged. A dropped packet's connection is
 * never confirmed, so its label does not outlive it: a denied flow is a record per attempt.
 */
export function nflogOnce(log: TrafficLogRules, prefix: string): string {
  const [limit, record] = nflog(log, prefix).split(' log group ');
  return `ct state new ct label != ${LOGGED_LABEL} ${limit} ct label set ${LOGGED_LABEL} log group ${record}`;
}

/** Whether the configuration logs anything (then DNAT records their original destination). */
export function logsTraffic(doc: ConfigDoc, log: TrafficLogRules): boolean {
  return log.defaultDeny || doc.policies.some((p) => p.log && !p.disabled);
}
