// fwctl leases: the DHCP leases handed out, per pool (GET /api/dhcp/leases).
import type { PoolLeases } from '../../dataplane/leases';
import { EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';

export async function leases(api: ApiClient, json: boolean): Promise<number> {
  const pools = await api.request<PoolLeases[]>('GET', '/api/dhcp/leases');
  if (json) {
    printJson(pools);
    return EXIT.ok;
  }
  const rows = pools.flatMap((p) => (p.leases.length ? p.leases.map((l) => [p.interface, l.address, l.mac, l.hostname ?? '-', l.expires_at ?? 'never']) : [[p.interface, '(no lease)', '', '', '']]));
  process.stdout.write(pools.length ? table(['POOL', 'ADDRESS', 'MAC', 'HOST', 'EXPIRES'], rows) : 'no DHCP pool\n');
  return EXIT.ok;
}
