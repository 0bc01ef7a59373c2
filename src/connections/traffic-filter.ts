// The filters of GET /api/logs/traffic and of its live tail (GET /api/events?types=traffic):
// parsed once per request, then a plain predicate over records.
import { Type, type TSchema } from '@sinclair/typebox';
import type { Cidr } from '../config/net';
import { PROTOCOL_NUMBERS, protocolName } from '../config/protocols';
import { FwError } from '../errors';
import type { TrafficRecord } from './traffic-record';
import { int, parseAddressQuery, prefixTest } from './view';

export interface TrafficFilter {
  address?: Cidr;
  port?: number;
  protocol?: string;
  policy?: number | 'default';
  action?: 'allow' | 'deny';
  zone?: string;
  /** unix ms, inclusive */
  since?: number;
  /** unix ms, exclusive */
  until?: number;
}

/** The schemas of the filters in the OpenAPI document, where a plain string says too little. */
export const TRAFFIC_FILTER_SCHEMAS: Record<string, TSchema> = {
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  protocol: Type.String({ pattern: '^([A-Za-z][A-Za-z0-9._+-]*|[0-9]{1,10})$', description: 'a protocol name or number' }),
  action: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  policy: Type.Union([Type.Literal('default'), Type.Integer({ minimum: 0, maximum: 2 ** 31 })]),
};

/** The filters' documentation (OpenAPI) and fwctl's options: one list. */
export const TRAFFIC_FILTER_DOCS: Record<string, string> = {
  address: 'an address or prefix: the source, the destination or the NAT translation in it',
  port: 'the source or the destination port',
  protocol: 'a protocol name (tcp, udp, icmp, ...) or number',
  policy: 'the id of the policy that logged it, or "default" for the default deny',
  action: 'allow or deny',
  zone: 'the source or the destination zone',
  since: 'records at or after this time (ISO 8601, e.g. 2026-01-31T12:00:00Z)',
  until: 'records before this time (ISO 8601)',
};

function time(name: string, text: string): number {
  const ms = /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) throw new FwError('ERR_NET_1004', `query "${name}": "${text.slice(0, 64)}" is not an ISO 8601 date-time`);
  return ms;
}

export function parseTrafficFilter(q: URLSearchParams): TrafficFilter {
  const f: TrafficFilter = {};
  const get = (k: string) => q.get(k) ?? undefined;
  const address = get('address');
  if (address !== undefined) f.address = parseAddressQuery(address);
  const port = get('port');
  if (port !== undefined) f.port = int('port', port, 65535);
  const protocol = get('protocol');
  if (protocol !== undefined) {
    const n = /^\d+$/.test(protocol) ? int('protocol', protocol, 255) : PROTOCOL_NUMBERS.get(protocol.toLowerCase());
    if (n === undefined) throw new FwError('ERR_NET_1006', `query "protocol": "${protocol.slice(0, 64)}" is not a protocol name or number`);
    f.protocol = protocolName(n);
  }
  const policy = get('policy');
  if (policy !== undefined) f.policy = policy === 'default' ? 'default' : int('policy', policy, 2 ** 31);
  const action = get('action');
  if (action !== undefined) {
    if (action !== 'allow' && action !== 'deny') throw new FwError('ERR_NET_1005', `query "action": "${action.slice(0, 64)}" is not allow or deny`);
    f.action = action;
  }
  const zone = get('zone');
  if (zone !== undefined) f.zone = zone;
  const since = get('since');
  if (since !== undefined) f.since = time('since', since);
  const until = get('until');
  if (until !== undefined) f.until = time('until', until);
  return f;
}

/** The test of a filter on records, made once per request (the address test is built once, not per record). */
export function trafficMatcher(f: TrafficFilter): (r: TrafficRecord) => boolean {
  const inPrefix = f.address && prefixTest(f.address);
  return (r) => {
    if (f.action !== undefined && r.action !== f.action) return false;
    if (f.policy !== undefined && r.policy !== (f.policy === 'default' ? null : f.policy)) return false;
    if (f.protocol !== undefined && r.protocol !== f.protocol) return false;
    if (f.port !== undefined && r['src-port'] !== f.port && r['dst-port'] !== f.port) return false;
    if (f.zone !== undefined && r.srcZone !== f.zone && r.dstZone !== f.zone) return false;
    if (f.since !== undefined || f.until !== undefined) {
      const at = Date.parse(r.at);
      if (f.since !== undefined && at < f.since) return false;
      if (f.until !== undefined && at >= f.until) return false;
    }
    if (inPrefix && !inPrefix(r.src) && !inPrefix(r.dst) && !(r.nat !== null && inPrefix(r.nat.translatedIP))) return false;
    return true;
  };
}
