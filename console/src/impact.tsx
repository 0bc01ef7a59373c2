// What committing the candidate would do to live connections (GET /api/config/impact), shown
// beside the pending diff before a commit (issue 28): how many connections it would cut, by
// the policy (or the default deny) that would deny them, each cut connection, and those
// whose NAT the candidate answers differently (they keep theirs).
import { api } from './api';
import type { ImpactReply, LiveSession } from './types';
import { ErrorBox, useLoad } from './ui';
import { VirtualTable } from './virtual-table';
import { endpoint as end } from './format';

const flow = (s: LiveSession) => `${s.protocol} ${end(s.original.src, s.original['src-port'])} → ${end(s.original.dst, s.original['dst-port'])}`;
const by = (policy: number | null, reason: string) => (policy === null ? reason : `policy ${policy}`);

/** `changes`: the session's change count, so that every edit reads the impact again. */
export function ImpactView({ changes }: { changes: number }) {
  const impact = useLoad(() => api<ImpactReply>('GET', '/api/config/impact'), [changes]);
  const i = impact.data;
  return (
    <section class="card" aria-labelledby="impact-h">
      <h2 id="impact-h">Impact on live connections</h2>
      <ErrorBox text={impact.error} />
      {i && (
        <>
          <p data-testid="impact-summary">
            {i.cut.length === 0 ? `No live connection would be cut (${i.total} evaluated).`
              : `${i.cut.length} of ${i.total} live connection${i.total === 1 ? '' : 's'} would be cut${i.rematch ? '' : ' if FW_SESSION_REMATCH were on (it is off: they flow on)'}.`}
            {i.natChanged.length > 0 && ` ${i.natChanged.length} would keep a NAT the candidate answers differently.`}
          </p>
          {i.perPolicy.length > 0 && (
            <ul class="plain">{i.perPolicy.map((p) => <li key={`${p.policy}-${p.reason}`}>{by(p.policy, p.reason)}: {p.connections} connection{p.connections === 1 ? '' : 's'}</li>)}</ul>
          )}
          {i.cut.length > 0 && (
            <VirtualTable label="Connections the commit would cut table" caption="Connections the commit would cut" rows={i.cut} keyOf={(s) => String(s.id)} columns={[
              { label: 'Connection', rowHeader: true, cellClass: () => 'mono', cell: (s) => flow(s), title: (s) => flow(s) },
              { label: 'Accepted by', width: 8, cell: (s) => (s.policy === null ? '-' : `policy ${s.policy}`) },
              { label: 'Denied by', width: 10, cell: (s) => by(s.deniedBy.policy, s.deniedBy.reason) },
            ]} />
          )}
        </>
      )}
    </section>
  );
}
