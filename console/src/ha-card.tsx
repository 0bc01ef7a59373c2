// The HA card of the overview (issue 39): this node's VRRP state, its virtual addresses, the
// sync link, and the step-down / resume of POST /api/ha/failover for operators and admins.
import { api } from './api';
import { allowed } from './state';
import { when } from './format';
import { attempt, ErrorBox, useLoad } from './ui';
import type { HaStatus } from '../../src/dataplane/ha-types';

export function HaCard() {
  const st = useLoad(() => api<HaStatus>('GET', '/api/ha/status'), []);
  const s = st.data;
  const act = (action: 'step-down' | 'resume') =>
    attempt(() => api('POST', '/api/ha/failover', { action }), action === 'step-down' ? 'This node steps down' : 'This node serves again').then(() => st.reload());
  return (
    <section class="card" aria-labelledby="ov-ha">
      <h2 id="ov-ha">High availability</h2>
      <ErrorBox text={st.error} />
      {s && !s.enabled && <p>No enabled HA pair names this node ({s.node || 'no FW_NODE_ID'}).</p>}
      {s && s.enabled && (
        <>
          <dl>
            <dt>Node</dt><dd>{s.node}</dd>
            <dt>State</dt><dd data-testid="ha-state" class={s.state === 'fault' ? 'bad' : undefined}>{s.state}{s.maintenance ? ' (stepped down)' : ''}</dd>
            <dt>Since</dt><dd>{when(s.since) || '—'}</dd>
            <dt>Peer</dt><dd>{s.peer ? `${s.peer.node} (priority ${s.peer.priority})` : '—'}</dd>
            <dt>Sync link</dt><dd class={s.sync.connected ? undefined : 'bad'}>{s.sync.interface}: {s.sync.connected ? 'connected' : 'not connected'}, {s.sync.external_cache} peer connections held</dd>
            <dt>Virtual addresses</dt><dd>{s.virtual_addresses.map((v) => `${v.address} on ${v.interface}${v.held ? ' (held)' : ''}`).join(', ')}</dd>
          </dl>
          {allowed('configure') && (s.maintenance
            ? <button type="button" onClick={() => void act('resume')}>Resume</button>
            : <button type="button" onClick={() => void act('step-down')}>Step down</button>)}
        </>
      )}
    </section>
  );
}
