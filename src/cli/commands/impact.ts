// fwctl impact: what committing the session's candidate would do to live connections
// (GET /api/config/impact): the connections it would cut and the policy that would deny
// each, those whose NAT would differ (kept: a live connection keeps its NAT), counts per
// policy. Exit 2 when it would cut any, as plan's exit 2 for changes: a pipeline can stop.
import type { ImpactReplyModel } from '../../api/routes/sessions';
import { EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';
import { endpoint, type Session } from './sessions';

type Denial = ImpactReplyModel['cut'][number]['deniedBy'];
type Nat = ImpactReplyModel['natChanged'][number]['runningNat'];

const deniedBy = (d: Denial) => (d.policy === null ? d.reason : `policy ${d.policy}`);
const nat = (n: Nat) => (n === null ? 'none' : `${n.type} ${n.translatedIP}${n.translatedPort ? `:${n.translatedPort}` : ''} (rule ${n.id})`);

/** The columns every list of the answer starts with. */
function connection(s: Session): Array<string | number | null> {
  const o = s.original;
  return [s.id, s.protocol, endpoint(o.src, o['src-port']), endpoint(o.dst, o['dst-port']), `${s.srcZone ?? '-'}>${s.dstZone ?? '-'}`, s.policy];
}

const CONNECTION = ['id', 'proto', 'source', 'destination', 'zones', 'policy'];

export async function impact(api: ApiClient, json: boolean): Promise<number> {
  const r = await api.request<ImpactReplyModel>('GET', '/api/config/impact');
  const exit = r.cut.length > 0 ? EXIT.changes : EXIT.ok;
  if (json) {
    printJson(r);
    return exit;
  }
  const effect = r.rematch ? 'would be cut' : 'are denied by the candidate (FW_SESSION_REMATCH is off: they flow on)';
  let out = `running version ${r.version} -> candidate: ${r.total} live connections, ${r.cut.length} ${effect}, ${r.natChanged.length} with another NAT (kept)\n`;
  if (r.cut.length) out += `\n${table([...CONNECTION, 'denied-by'], r.cut.map((s) => [...connection(s), deniedBy(s.deniedBy)]))}`;
  if (r.natChanged.length) {
    out += `\n${table([...CONNECTION, 'running-nat', 'candidate-nat'], r.natChanged.map((s) => [...connection(s), nat(s.runningNat), nat(s.candidateNat)]))}`;
  }
  if (r.perPolicy.length) out += `\n${table(['denied-by', 'connections'], r.perPolicy.map((p) => [deniedBy(p), p.connections]))}`;
  process.stdout.write(out);
  return exit;
}
