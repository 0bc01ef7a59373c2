// fwctl trace: one packet through POST /api/eval, the answer as a table (zones, route, NAT,
// policy, verdict).
import type { EvalReplyModel, PacketRequest } from '../../api/routes/eval';
import { CliError, EXIT, type ApiClient } from '../api';
import { pairs, printJson } from '../output';

export interface TraceArgs {
  src?: string;
  dst?: string;
  proto?: string;
  dport?: string;
  sport?: string;
  in?: string;
  'src-zone'?: string;
  'dst-zone'?: string;
  'icmp-type'?: string;
  'icmp-code'?: string;
  time?: string;
  candidate: boolean;
  json: boolean;
}

/** A number option 0..max (a port, an ICMP type or code), or undefined when not given. */
function numberArg(name: string, text: string | undefined, max = 65535, what = 'a port'): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,5}$/.test(text) || Number(text) > max) throw new CliError(`--${name}: "${text}" is not ${what}`, EXIT.usage);
  return Number(text);
}

function packetOf(a: TraceArgs): PacketRequest {
  // the options missing named first (issue 43: the usage line alone did not say which)
  if (!a.src || !a.dst || !a.proto) {
    const missing = (['src', 'dst', 'proto'] as const).filter((k) => !a[k]).map((k) => `--${k}`);
    throw new CliError(`${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} required (fwctl trace --help)`, EXIT.usage);
  }
  const protocol = /^\d+$/.test(a.proto) ? Number(a.proto) : (a.proto as PacketRequest['protocol']);
  const p: PacketRequest = { 'src-ip': a.src, 'dst-ip': a.dst, protocol };
  const dport = numberArg('dport', a.dport);
  const sport = numberArg('sport', a.sport);
  const icmpType = numberArg('icmp-type', a['icmp-type'], 255, 'an ICMP type 0-255');
  const icmpCode = numberArg('icmp-code', a['icmp-code'], 255, 'an ICMP code 0-255');
  if (dport !== undefined) p['dst-port'] = dport;
  if (sport !== undefined) p['src-port'] = sport;
  if (icmpType !== undefined) p['icmp-type'] = icmpType;
  if (icmpCode !== undefined) p['icmp-code'] = icmpCode;
  if (a.in) p['in-interface'] = a.in;
  if (a['src-zone']) p['src-zone'] = a['src-zone'];
  if (a['dst-zone']) p['dst-zone'] = a['dst-zone'];
  if (a.time) p.time = a.time;
  return p;
}

export async function trace(api: ApiClient, a: TraceArgs): Promise<number> {
  const packet = packetOf(a);
  const r = await api.request<EvalReplyModel>('POST', `/api/eval${a.candidate ? '?config=candidate' : ''}`, { body: packet });
  if (a.json) {
    printJson(r);
    return EXIT.ok;
  }
  const ports = packet['dst-port'] !== undefined ? `/${packet['dst-port']}`
    : packet['icmp-type'] != null ? ` type ${packet['icmp-type']}${packet['icmp-code'] != null ? ` code ${packet['icmp-code']}` : ''}` : '';
  process.stdout.write(pairs([
    ['packet', `${packet['src-ip']} -> ${packet['dst-ip']} ${packet.protocol}${ports}${packet['src-port'] !== undefined ? ` from port ${packet['src-port']}` : ''}`],
    ['config', a.candidate ? `candidate (based on version ${r.version})` : `running version ${r.version}`],
    ['zones', `${r.srcZone ?? '-'} -> ${r.dstZone ?? '-'}`],
    ['route', r.route ? `${r.route.id === null ? 'connected' : `#${r.route.id}`} ${r.route.destination} via ${r.egressInterface ?? '-'}` : 'none'],
    ['nat', r.nat ? `#${r.nat.id} ${r.nat.type}${r.nat.translates ? ` ${r.nat.translates}` : ''} -> ${r.nat.translatedIP}${r.nat.translatedPort ? `:${r.nat.translatedPort}` : ''}` : 'none'],
    ['policy', r.policy ? `#${r.policy.id} ${r.policy.action}${r.policy.log ? ' (log)' : ''}` : 'none'],
    ...(r.skipped ? [['skipped', `#${r.skipped.id} (${r.skipped.reason === 'expired' ? 'expired' : `off by schedule ${r.skipped.schedule}`})`] as [string, string]] : []),
    // matched through an FQDN address (issue 40): the name, its prefix and the answer's time
    ...(r.fqdn ?? []).map((m): [string, string] => ['fqdn', `${m.field} ${m.address} (${m.fqdn}) ${m.entry}, resolved ${m.resolvedAt}`]),
    ['verdict', `${r.action.toUpperCase()} (${r.reason})`],
    // run-time objects the deciding policy matched through (issue 40)
    ...(r.lists ?? []).map((l): [string, string] => ['list', `${l.list} entry ${l.entry} (${l.field}), fetched ${l.fetchedAt ?? 'never'}`]),
    ...(r.dynamic ?? []).map((s): [string, string] => ['dynamic set', `${s.set} entry ${s.entry} (${s.field}), expires ${s.expiresAt ?? 'never'}`]),
  ]));
  return EXIT.ok;
}
