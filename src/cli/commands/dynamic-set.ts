// fwctl dynamic-set (issue 40): the entries of a running dynamic address set, without a
// session (GET/POST/DELETE /api/dynamic-sets/NAME/entries): what a fail2ban action or an
// intrusion detector runs with a feeder token (FWCTL_TOKEN). The sets themselves are objects
// of the configuration document (fwctl export / apply).
import { CliError, EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';

interface EntriesReply {
  name: string;
  size: number;
  'max-entries': number;
  entries: Array<{ ip: string; expiresAt: string | null }>;
}

export interface DynamicSetArgs {
  action: string | undefined;
  name: string | undefined;
  ips: string[];
  ttl?: string;
  json: boolean;
}

export async function dynamicSet(api: ApiClient, a: DynamicSetArgs): Promise<number> {
  if (!a.name || !['list', 'add', 'del'].includes(a.action ?? '')) throw new CliError('usage: fwctl dynamic-set list|add|del NAME [IP...] [--ttl SECONDS]', EXIT.usage);
  const path = `/api/dynamic-sets/${encodeURIComponent(a.name)}/entries`;
  if (a.action === 'list') {
    const r = await api.request<EntriesReply>('GET', path);
    if (a.json) printJson(r);
    else process.stdout.write(`${r.name}: ${r.size} of at most ${r['max-entries']} entries\n${r.entries.length ? table(['ENTRY', 'EXPIRES'], r.entries.map((e) => [e.ip, e.expiresAt ?? 'never'])) : ''}`);
    return EXIT.ok;
  }
  if (a.ips.length === 0) throw new CliError(`fwctl dynamic-set ${a.action} NAME IP...: at least one address`, EXIT.usage);
  let ttl: number | undefined;
  if (a.ttl !== undefined) {
    ttl = Number(a.ttl);
    if (!Number.isInteger(ttl)) throw new CliError(`--ttl: "${a.ttl}" is not a whole number of seconds`, EXIT.usage);
  }
  const body = a.action === 'add' ? { ips: a.ips, ...(ttl === undefined ? {} : { ttl }) } : { ips: a.ips };
  const r = await api.request<{ message: string; added: number; refreshed: number; removed: number; size: number }>(a.action === 'add' ? 'POST' : 'DELETE', path, { body });
  if (a.json) printJson(r);
  else process.stdout.write(a.action === 'add' ? `${r.added} added, ${r.refreshed} refreshed; ${r.size} entries\n` : `${r.removed} removed; ${r.size} entries\n`);
  return EXIT.ok;
}
