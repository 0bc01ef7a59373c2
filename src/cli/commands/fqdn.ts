// fwctl fqdn (issue 40): the FQDN addresses of the running version and what their names
// resolve to now (GET /api/addresses): the prefixes in use, when they were resolved and last
// changed, and the last error. The addresses themselves are objects of the configuration
// document (fwctl export / apply: `{name, fqdn}` in addresses).
import type { AddressModel } from '../../config/render/objects';
import { EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';

export async function fqdn(api: ApiClient, json: boolean): Promise<number> {
  const all = await api.request<Record<string, AddressModel>>('GET', '/api/addresses');
  const rows = Object.values(all).filter((a) => a.fqdn !== undefined);
  if (json) {
    printJson(rows.map(({ name, fqdn: f, resolved, resolvedAt, changedAt, lastError }) => ({ name, fqdn: f, resolved, resolvedAt, changedAt, lastError })));
    return EXIT.ok;
  }
  if (rows.length === 0) {
    process.stdout.write('no FQDN addresses in the running version\n');
    return EXIT.ok;
  }
  process.stdout.write(table(['ADDRESS', 'FQDN', 'RESOLVED', 'RESOLVED AT', 'CHANGED AT', 'LAST ERROR'],
    rows.map((a) => [a.name, a.fqdn!, a.resolved?.join(' ') || '-', a.resolvedAt ?? 'never', a.changedAt ?? '-', a.lastError ?? '-'])));
  return EXIT.ok;
}
