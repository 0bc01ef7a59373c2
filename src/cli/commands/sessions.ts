// fwctl sessions: the live connections of GET /api/sessions as a table (every page, or
// --limit); fwctl end-sessions: DELETE /api/sessions with the same filters.
import type { SessionPageModel } from '../../api/routes/sessions';
import { CliError, EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';

/** The filters of both commands: the API's query names. */
/** `node` picks the instance whose kernel to ask (a cluster); the rest select connections. */
export const SESSION_FILTERS = ['address', 'port', 'protocol', 'zone', 'policy', 'state', 'id', 'src', 'dst', 'sport', 'dport', 'node'] as const;
export type SessionFilterArgs = Partial<Record<(typeof SESSION_FILTERS)[number], string>>;

function query(a: SessionFilterArgs, extra: Record<string, string> = {}): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of SESSION_FILTERS) if (a[k] !== undefined) q.set(k, a[k]!);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return q;
}

export type Session = SessionPageModel['sessions'][number];

/** `ip:port` (`[ip]:port` for IPv6), the bare address without a port. */
export const endpoint = (ip: string, port: number | null) => (port === null ? ip : ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

function row(s: Session): Array<string | number | null> {
  const o = s.original;
  const nat = [s.nat.snat && `snat ${endpoint(s.nat.snat.ip, s.nat.snat.port)}`, s.nat.dnat && `dnat ${endpoint(s.nat.dnat.ip, s.nat.dnat.port)}`].filter(Boolean).join(', ');
  return [s.id, s.protocol, endpoint(o.src, o['src-port']), endpoint(o.dst, o['dst-port']), s.state, `${s.srcZone ?? '-'}>${s.dstZone ?? '-'}`, s.policy, nat || null, s.packets, s.bytes, s.age];
}

export async function sessions(api: ApiClient, a: SessionFilterArgs & { limit?: string; json: boolean }): Promise<number> {
  const all: Session[] = [];
  let total = 0;
  let mode: SessionPageModel['dataplane'] = 'linux';
  let cursor: string | null = null;
  do {
    const q = query(a, { limit: a.limit ?? '1000', ...(cursor ? { cursor } : {}) });
    const page: SessionPageModel = await api.request<SessionPageModel>('GET', `/api/sessions?${q.toString()}`);
    all.push(...page.sessions);
    total = page.total;
    mode = page.dataplane;
    cursor = a.limit === undefined ? page.next : null; // --limit: that many, no more pages
  } while (cursor);
  if (a.json) {
    printJson({ total, sessions: all });
    return EXIT.ok;
  }
  if (all.length === 0) {
    // No kernel, no connections: say why instead of printing empty headers (as `fwctl hits`).
    process.stderr.write(mode === 'none'
      ? 'no connections: the daemon enforces nothing (FW_DATAPLANE=none); the linux data plane tracks connections\n'
      : `0 of ${total} connections\n`);
    return EXIT.ok;
  }
  process.stdout.write(table(['id', 'proto', 'source', 'destination', 'state', 'zones', 'policy', 'nat', 'packets', 'bytes', 'age'], all.map(row)));
  process.stderr.write(`${all.length} of ${total} connections\n`);
  return EXIT.ok;
}

export async function endSessions(api: ApiClient, a: SessionFilterArgs & { json: boolean }): Promise<number> {
  const q = query(a);
  if ([...q.keys()].length === 0) throw new CliError(`fwctl end-sessions needs a filter: ${SESSION_FILTERS.map((f) => `--${f}`).join(' ')}`, EXIT.usage);
  const r = await api.request<{ message: string; ended: string; selected: string }>('DELETE', `/api/sessions?${q.toString()}`);
  if (a.json) printJson(r);
  else process.stdout.write(`${r.ended} of ${r.selected} selected connections ended\n`);
  return EXIT.ok;
}
