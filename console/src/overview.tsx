// The first page: what runs, who holds the lock, the cluster, the data plane, and what the
// analysis found, each count a link to the rules it names.
import { api } from './api';
import { status } from './state';
import type { Analysis, ClusterNode, PoolLeases } from './types';
import { when } from './format';
import { ErrorBox, Link, Page, useLoad } from './ui';
import { VirtualTable } from './virtual-table';
import { HaCard } from './ha-card';

export function Overview() {
  const s = status.value;
  const nodes = useLoad(() => api<ClusterNode[]>('GET', '/api/cluster/nodes'), []);
  const analysis = useLoad(() => api<Analysis>('GET', '/api/analysis'), []);
  const leases = useLoad(() => api<PoolLeases[]>('GET', '/api/dhcp/leases'), []);
  const a = analysis.data;
  const session = s?.session;
  return (
    <Page title="Overview">
      {!s && <p>Loading…</p>}
      {s && (
        <div class="cards">
          <section class="card" aria-labelledby="ov-running">
            <h2 id="ov-running">Running version</h2>
            <dl>
              <dt>Version</dt><dd data-testid="running-version">{s.version}</dd>
              <dt>Author</dt><dd>{s.lastCommit.author}</dd>
              <dt>Committed</dt><dd>{when(s.lastCommit.time)}</dd>
              <dt>Description</dt><dd>{s.lastCommit.description || '—'}</dd>
            </dl>
            <Link href="/versions">All versions</Link>
          </section>
          <section class="card" aria-labelledby="ov-session">
            <h2 id="ov-session">Session lock</h2>
            {session === null && <p>The store cannot be reached: the lock is unknown.</p>}
            {session && !session.active && <p>Free: nobody is changing the configuration.</p>}
            {session && session.active && (
              <dl>
                <dt>Held by</dt><dd data-testid="lock-owner">{session.owner}</dd>
                <dt>Since</dt><dd>{when(session.started_at)}</dd>
                <dt>Idle expiry</dt><dd>{when(session.expires_at)}</dd>
                <dt>Changes pending</dt><dd>{session.changes}</dd>
              </dl>
            )}
            <Link href="/session">Session</Link>
          </section>
          <section class="card" aria-labelledby="ov-dp">
            <h2 id="ov-dp">Data plane</h2>
            <dl>
              <dt>Mode</dt><dd>{s.dataplane.mode}</dd>
              <dt>Applied version</dt><dd>{s.dataplane.applied_version ?? '—'}</dd>
              <dt>Applied</dt><dd>{when(s.dataplane.applied_at) || '—'}</dd>
              <dt>Error</dt><dd class={s.dataplane.error ? 'bad' : undefined}>{s.dataplane.error ?? 'none'}</dd>
              <dt>Store</dt><dd>{s.store}{s.store_reachable ? '' : ' (unreachable)'}</dd>
            </dl>
            {(s.store_warnings ?? []).map((w) => <p class="bad" role="alert" data-testid="store-warning">{w}</p>)}
          </section>
          <HaCard />
          <section class="card" aria-labelledby="ov-analysis">
            <h2 id="ov-analysis">Analysis of version {a?.version ?? s.version}</h2>
            <ErrorBox text={analysis.error} />
            {a && (
              <ul class="plain">
                <li><Link href="/policies?show=shadowed">{a.shadowed.length} shadowed</Link></li>
                <li><Link href="/policies?show=redundant">{a.redundant.length} redundant</Link></li>
                <li><Link href="/policies?show=partial">{a.partiallyShadowed.length} partially shadowed</Link></li>
                <li>{a.neverHit ? <Link href="/policies?show=never-hit">{a.neverHit.length} never hit</Link> : 'never hit: no data plane counters'}</li>
                <li><Link href="/nat?show=unreachable">{a.unreachableNat.length} unreachable NAT rules</Link></li>
                <li>{a.unusedAddresses.length} unused addresses, {a.unusedServices.length} unused services</li>
                <li>{a.pass === 'deep' ? 'deep pass' : 'quick pass'}{a.complete ? '' : ' (incomplete)'}</li>
              </ul>
            )}
          </section>
          <section class="card wide" aria-labelledby="ov-leases">
            <h2 id="ov-leases">DHCP leases</h2>
            <ErrorBox text={leases.error} />
            {leases.data?.length === 0 && <p>No DHCP pool.</p>}
            {!!leases.data?.length && (
              <div data-testid="leases">
                <VirtualTable label="DHCP leases table" caption="DHCP leases per pool" keyOf={(r) => `${r.pool} ${r.address}`}
                  rows={leases.data.flatMap((p) => (p.leases.length
                    ? p.leases.map((l) => ({ pool: p.interface, address: l.address, mac: l.mac, host: l.hostname ?? '—', expires: l.expires_at ? when(l.expires_at) : 'never' }))
                    : [{ pool: p.interface, address: 'no lease', mac: '', host: '', expires: '' }]))}
                  columns={[
                    { label: 'Pool', width: 8, rowHeader: true, cell: (r) => r.pool },
                    { label: 'Address', cell: (r) => r.address },
                    { label: 'MAC', cell: (r) => r.mac },
                    { label: 'Host name', cell: (r) => r.host, title: (r) => r.host || undefined },
                    { label: 'Expires', width: 14, cell: (r) => r.expires },
                  ]} />
              </div>
            )}
          </section>
          <section class="card wide" aria-labelledby="ov-nodes">
            <h2 id="ov-nodes">Cluster nodes</h2>
            <ErrorBox text={nodes.error} />
            <table class="grid">
              <thead><tr><th scope="col">Node</th><th scope="col">Address</th><th scope="col">Version</th><th scope="col">Data plane</th><th scope="col">Last heartbeat</th><th scope="col">Live</th></tr></thead>
              <tbody>
                {(nodes.data ?? []).map((n) => (
                  <tr key={n.id}>
                    <th scope="row">{n.id}{n.self ? ' (this one)' : ''}</th><td>{n.address}</td><td>{n.version}</td>
                    <td>{n.dataplane.mode}{n.dataplane.applied_version !== null ? ` v${n.dataplane.applied_version}` : ''}</td>
                    <td>{when(n.last_heartbeat)}</td><td>{n.live ? 'yes' : 'no'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </div>
      )}
    </Page>
  );
}
