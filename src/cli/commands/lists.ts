// fwctl lists (issue 40): the external lists of the running configuration and what the daemon
// last fetched of each (GET /api/addresses): entries in force, entries cut by the capacity
// limits, the last good fetch and the last error. The lists themselves are addresses of the
// configuration document (fwctl export / apply: `{name, url, refresh}`).
import type { AddressModel } from '../../config/render/objects';
import { CliError, EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';

export async function lists(api: ApiClient, name: string | undefined, json: boolean): Promise<number> {
  const all = await api.request<Record<string, AddressModel>>('GET', '/api/addresses');
  const found = Object.values(all).filter((a) => a.url && (name === undefined || a.name === name));
  if (name !== undefined && found.length === 0) throw new CliError(`no external list "${name}" in the running configuration`, EXIT.failed);
  if (json) {
    printJson(found);
    return EXIT.ok;
  }
  process.stdout.write(table(['NAME', 'ENTRIES', 'CUT', 'FETCHED', 'REFRESH', 'URL', 'LAST ERROR'], found.map((a) => [
    a.name, String(a.entries ?? 0), String(a.cut ?? 0), a.fetchedAt ?? 'never', `${a.refresh}s`, a.url!, a.lastError ?? '-',
  ])));
  return EXIT.ok;
}
