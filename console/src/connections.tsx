// Live connections of the data plane (GET /api/sessions): filters, pages, and ending the
// selected ones (DELETE /api/sessions?id=..., operator and admin). Named "connections" here:
// "session" in the console is the configuration session.
import { useState } from 'preact/hooks';
import { api } from './api';
import type { LiveSession, LiveSessionPage } from './types';
import { allowed } from './state';
import { attempt, ErrorBox, Field, Page, Pager, useLoad } from './ui';
import { NodePicker } from './node-picker';
import { VirtualTable } from './virtual-table';
import { endpoint as end } from './format';
import { NO_CONNTRACK } from './no-dataplane';

const FILTERS = [
  ['address', 'Address or prefix', 'either end, before or after NAT'],
  ['port', 'Port', ''],
  ['protocol', 'Protocol', 'tcp, udp, icmp or a number'],
  ['zone', 'Zone', 'source or destination'],
  ['policy', 'Policy id', ''],
  ['state', 'State', 'e.g. established'],
] as const;
type Filters = Record<(typeof FILTERS)[number][0], string>;
const NO_FILTERS: Filters = { address: '', port: '', protocol: '', zone: '', policy: '', state: '' };


function natText(s: LiveSession): string {
  return [s.nat.snat && `snat ${end(s.nat.snat.ip, s.nat.snat.port)}`, s.nat.dnat && `dnat ${end(s.nat.dnat.ip, s.nat.dnat.port)}`].filter(Boolean).join(', ') || '-';
}

export function ConnectionsPage() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<string[]>([]); // the cursor of each page after the first
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [node, setNode] = useState('');
  const q = new URLSearchParams({ limit: '100' });
  for (const [k, v] of Object.entries(applied)) if (v.trim()) q.set(k, v.trim());
  if (node) q.set('node', node);
  const onNode = node ? `&node=${encodeURIComponent(node)}` : '';
  const cursor = cursors[cursors.length - 1];
  if (cursor) q.set('cursor', cursor);
  const page = useLoad(() => api<LiveSessionPage>('GET', `/api/sessions?${q}`), [q.toString()]);
  const canEnd = allowed('configure');
  const toggle = (id: string, on: boolean) => {
    const next = new Set(picked);
    if (on) next.add(id);
    else next.delete(id);
    setPicked(next);
  };
  const endPicked = async () => {
    const ids = [...picked];
    const ok = await attempt(async () => {
      for (const id of ids) await api('DELETE', `/api/sessions?id=${encodeURIComponent(id)}${onNode}`);
    }, `${ids.length} connection${ids.length === 1 ? '' : 's'} ended`);
    if (ok) setPicked(new Set());
    page.reload();
  };
  return (
    <Page title="Connections" actions={canEnd && <button type="button" disabled={picked.size === 0} onClick={() => void endPicked()}>End selected ({picked.size})</button>}>
      <form class="card inline" aria-label="Connection filters" onSubmit={(e) => { e.preventDefault(); setCursors([]); setPicked(new Set()); setApplied(draft); }}>
        <NodePicker value={node} onChange={(n) => { setCursors([]); setPicked(new Set()); setNode(n); }} />
        {FILTERS.map(([k, label, hint]) => <Field key={k} label={label} value={draft[k]} onInput={(v) => setDraft({ ...draft, [k]: v })} hint={hint || undefined} />)}
        <button type="submit">Apply filters</button>
      </form>
      <ErrorBox text={page.error} />
      {page.data && (page.data.dataplane === 'none' && page.data.total === 0
        ? <p class="notice" aria-live="polite" data-testid="no-dataplane">{NO_CONNTRACK}{node ? ` (node ${node})` : ''}</p>
        : <p aria-live="polite">{page.data.total} connection{page.data.total === 1 ? '' : 's'}{node ? ` on node ${node}` : ''}</p>)}
      <VirtualTable label="Connections table" caption="Live connections" rows={page.data?.sessions ?? []} keyOf={(s) => String(s.id)} columns={[
        ...(canEnd ? [{ label: 'End', width: 3.5, cell: (s: LiveSession) => <input type="checkbox" aria-label={`select connection ${s.id}`} checked={picked.has(s.id)} onChange={(e) => toggle(s.id, (e.target as HTMLInputElement).checked)} /> }] : []),
        { label: 'Id', width: 5, rowHeader: true, cellClass: () => 'mono', cell: (s) => s.id },
        { label: 'Protocol', width: 5.5, cell: (s) => s.protocol },
        { label: 'Source', cellClass: () => 'mono', cell: (s) => end(s.original.src, s.original['src-port']) },
        { label: 'Destination', cellClass: () => 'mono', cell: (s) => end(s.original.dst, s.original['dst-port']) },
        { label: 'State', width: 7, cell: (s) => (s.cut ? 'cut' : s.state ?? '-') },
        { label: 'Zones', width: 9, cell: (s) => `${s.srcZone ?? '-'} → ${s.dstZone ?? '-'}` },
        { label: 'Policy', width: 4.5, cell: (s) => s.policy ?? '-' },
        { label: 'NAT', cellClass: () => 'mono', cell: (s) => natText(s) },
        { label: 'Packets', width: 5.5, num: true, cell: (s) => s.packets },
        { label: 'Bytes', width: 6, num: true, cell: (s) => s.bytes },
        { label: 'Age (s)', width: 5, num: true, cell: (s) => s.age ?? '-' },
      ]} />
      <Pager stack={cursors} setStack={setCursors} next={page.data?.next} back="Previous" forward="Next" />
    </Page>
  );
}
