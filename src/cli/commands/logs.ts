// fwctl logs: the traffic log of GET /api/logs/traffic as a table, newest first (every page
// with --all, else --limit records, default 50), or followed live with --follow (GET
// /api/events?types=traffic, resumed after a dropped stream). Filters are the API's.
import type { StatusReplyModel } from '../../api/routes/status';
import type { TrafficPageModel } from '../../api/routes/traffic';
import type { TrafficRecord } from '../../connections/traffic-record';
import { EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';
import { follow } from './watch';

/** The API's query names. */
export const LOG_FILTERS = ['address', 'port', 'protocol', 'policy', 'action', 'zone', 'since', 'until', 'node'] as const;
export type LogArgs = Partial<Record<(typeof LOG_FILTERS)[number], string>> & { limit?: string; all: boolean; follow: boolean; count?: string; json: boolean };

const HEADERS = ['time', 'action', 'policy', 'proto', 'source', 'destination', 'zones', 'in>out', 'nat'];
const endpoint = (ip: string, port: number | null) => (port === null ? ip : ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

function row(r: TrafficRecord): Array<string | number | null> {
  const policy = r.policy === null ? 'default' : r.policyName ? `${r.policy} ${r.policyName}` : String(r.policy);
  const nat = r.nat ? `${r.nat.type} ${r.nat.translatedIP}${r.nat.translatedPort ? `:${r.nat.translatedPort}` : ''}` : null;
  return [r.at, r.action, policy, r.protocol, endpoint(r.src, r['src-port']), endpoint(r.dst, r['dst-port']),
    `${r.srcZone ?? '-'}>${r.dstZone ?? '-'}`, `${r.inInterface ?? '-'}>${r.outInterface ?? '-'}`, nat];
}

function query(a: LogArgs, extra: Record<string, string> = {}): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of LOG_FILTERS) if (a[k] !== undefined) q.set(k, a[k]!);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return q;
}

export async function logs(api: ApiClient, a: LogArgs): Promise<number> {
  if (a.follow) {
    const q = query(a, { types: 'traffic' });
    return follow(api, `/api/events?${q.toString()}`, null, a.count, (m) => {
      if (a.json) process.stdout.write(m.data + '\n');
      else if (m.event === 'resync') process.stdout.write(`resync: ${(JSON.parse(m.data) as { reason: string }).reason}\n`);
      else process.stdout.write(`${row(JSON.parse(m.data) as TrafficRecord).map((c) => c ?? '-').join('  ')}\n`);
    });
  }
  const records: TrafficRecord[] = [];
  let node = '';
  let cursor: string | null = null;
  do {
    const q = query(a, { limit: a.all ? '1000' : a.limit ?? '50', ...(cursor ? { cursor } : {}) });
    const page: TrafficPageModel = await api.request<TrafficPageModel>('GET', `/api/logs/traffic?${q.toString()}`);
    records.push(...page.records);
    node = page.node;
    cursor = a.all ? page.next : null;
  } while (cursor);
  if (a.json) {
    printJson({ node, records });
    return EXIT.ok;
  }
  if (records.length === 0) {
    // Without a data plane nothing is enforced, so nothing is logged: say why instead of
    // printing empty headers (as `fwctl hits` does). Records a node kept stay listed.
    const s = await api.request<StatusReplyModel>('GET', '/api/status');
    if (s.dataplane.mode === 'none') {
      process.stderr.write(`no traffic log: the daemon enforces nothing (FW_DATAPLANE=none); the linux data plane logs traffic\n`);
      return EXIT.ok;
    }
    process.stderr.write(`no records of node ${node}\n`);
    return EXIT.ok;
  }
  process.stdout.write(table(HEADERS, records.map(row)));
  process.stderr.write(`${records.length} ${records.length === 1 ? 'record' : 'records'} of node ${node}\n`);
  return EXIT.ok;
}
