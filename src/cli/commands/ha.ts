// fwctl ha [status|failover|resume] [--node ID]: the HA pair's state (GET /api/ha/status) and a
// controlled step-down of a node for maintenance, or its return (POST /api/ha/failover).
import type { HaStatus } from '../../dataplane/ha-types';
import { CliError, EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';

export const HA_ACTIONS = ['status', 'failover', 'resume'] as const;

export async function ha(api: ApiClient, args: { action: string | undefined; node?: string; json: boolean }): Promise<number> {
  const action = args.action ?? 'status';
  if (!(HA_ACTIONS as readonly string[]).includes(action)) throw new CliError(`unknown action "${action}": one of ${HA_ACTIONS.join(', ')} (fwctl ha --help)`, EXIT.usage);
  const query = args.node ? `?node=${encodeURIComponent(args.node)}` : '';
  if (action !== 'status') {
    const r = await api.request<{ message: string; node: string }>('POST', `/api/ha/failover${query}`, { body: { action: action === 'failover' ? 'step-down' : 'resume' } });
    if (args.json) printJson(r);
    else process.stdout.write(`${r.message} (${r.node})\n`);
    return EXIT.ok;
  }
  const s = await api.request<HaStatus>('GET', `/api/ha/status${query}`);
  if (args.json) {
    printJson(s);
    return EXIT.ok;
  }
  const lines = [
    `node ${s.node}: ${s.state}${s.since ? ` since ${s.since}` : ''}${s.maintenance ? ' (maintenance: stepped down)' : ''}${s.enabled ? '' : ' (no enabled pair names this node)'}`,
    `data plane: ${s.dataplane_ok ? 'holds the running version' : 'FAILED: kept out of the master role'}`,
    `peer: ${s.peer ? `${s.peer.node} (priority ${s.peer.priority})` : '-'}`,
    `sync ${s.sync.interface || '-'}: ${s.sync.running ? (s.sync.connected ? 'connected' : 'not connected') : 'not running'}, sent ${s.sync.sent}, received ${s.sync.received}, errors ${s.sync.errors}, external cache ${s.sync.external_cache}, internal cache ${s.sync.internal_cache}`,
    '',
  ].join('\n');
  process.stdout.write(lines);
  if (s.virtual_addresses.length) {
    process.stdout.write(table(['INTERFACE', 'VRID', 'ADDRESS', 'HELD'], s.virtual_addresses.map((v) => [v.interface, String(v.vrid), v.address, v.held ? 'yes' : 'no'])));
  }
  return EXIT.ok;
}
