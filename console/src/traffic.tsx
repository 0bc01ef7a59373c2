// The traffic log (GET /api/logs/traffic): logged connections, newest first, filtered, by
// pages; "Live" follows new records as they come (GET /api/events?types=traffic with the same
// filters, read with fetch() and the token as every stream of the console). A record's policy
// links to it in the policy table.
import { useEffect, useState } from 'preact/hooks';
import { api, login } from './api';
import type { TrafficPage, TrafficRecord } from './types';
import { ErrorBox, Field, Link, Page, Pager, useLoad } from './ui';
import { NodePicker } from './node-picker';
import { endpoint as end } from './format';
import { SseParser } from '../../src/cli/sse-parser';
import { status } from './state';
import { NO_DATAPLANE } from './no-dataplane';

const FILTERS = [
  ['address', 'Address or prefix', 'source, destination or NAT'],
  ['port', 'Port', ''],
  ['protocol', 'Protocol', 'tcp, udp, icmp or a number'],
  ['policy', 'Policy id', 'or "default" for the default deny'],
  ['action', 'Action', 'allow or deny'],
  ['zone', 'Zone', 'source or destination'],
] as const;
type Filters = Record<(typeof FILTERS)[number][0], string>;
const NO_FILTERS: Filters = { address: '', port: '', protocol: '', policy: '', action: '', zone: '' };
/** Live records kept on the page (the newest). */
const LIVE_KEEP = 500;


/** Reads the live tail until `signal` aborts, handing each record to `add`; a dropped stream resumes with Last-Event-ID. */
async function tail(query: string, signal: AbortSignal, add: (r: TrafficRecord) => void, setError: (e: string | null) => void): Promise<void> {
  let last: string | null = null;
  while (!signal.aborted) {
    try {
      const headers: Record<string, string> = { Authorization: `Bearer ${login.value?.token ?? ''}`, Accept: 'text/event-stream' };
      if (last !== null) headers['Last-Event-ID'] = last;
      const res = await fetch(`/api/events?types=traffic&${query}`, { headers, signal });
      if (!res.ok || !res.body) {
        setError(((await res.json().catch(() => null)) as { details?: string } | null)?.details ?? `live tail refused (${res.status})`);
        return;
      }
      setError(null);
      const parser = new SseParser((m) => {
        if (m.id !== null) last = m.id;
        if (m.event === 'traffic') add(JSON.parse(m.data) as TrafficRecord);
      });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (let r = await reader.read(); !r.done; r = await reader.read()) parser.push(decoder.decode(r.value, { stream: true }));
    } catch {
      // dropped (or stopped): resumed below unless stopped
    }
    if (!signal.aborted) await new Promise((r) => setTimeout(r, 3000));
  }
}

function Row({ r }: { r: TrafficRecord }) {
  const nat = r.nat ? `${r.nat.type} ${r.nat.translatedIP}${r.nat.translatedPort ? `:${r.nat.translatedPort}` : ''}` : '-';
  return (
    <tr>
      <td class="mono">{r.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</td>
      <td>{r.action}</td>
      <td>{r.policy === null ? 'default deny' : <Link href={`/policies?filter=%23${r.policy}%20`}>{`#${r.policy}${r.policyName ? ` ${r.policyName}` : ''}`}</Link>}</td>
      <td>{r.protocol}</td>
      <td class="mono">{end(r.src, r['src-port'])}</td><td class="mono">{end(r.dst, r['dst-port'])}</td>
      <td>{r.srcZone ?? '-'} → {r.dstZone ?? '-'}</td><td>{r.inInterface ?? '-'} → {r.outInterface ?? '-'}</td>
      <td class="mono">{nat}</td>
    </tr>
  );
}

function Records(p: { caption: string; records: TrafficRecord[] }) {
  return (
    <table class="grid">
      <caption class="sr-only">{p.caption}</caption>
      <thead><tr>
        <th scope="col">Time</th><th scope="col">Action</th><th scope="col">Policy</th><th scope="col">Protocol</th><th scope="col">Source</th>
        <th scope="col">Destination</th><th scope="col">Zones</th><th scope="col">Interfaces</th><th scope="col">NAT</th>
      </tr></thead>
      <tbody>{p.records.map((r) => <Row key={r.id} r={r} />)}</tbody>
    </table>
  );
}

export function TrafficPageView() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<string[]>([]);
  const [live, setLive] = useState(false);
  const [liveRecords, setLiveRecords] = useState<TrafficRecord[]>([]);
  const [liveError, setLiveError] = useState<string | null>(null);
  const [node, setNode] = useState('');
  const filters = new URLSearchParams();
  for (const [k, v] of Object.entries(applied)) if (v.trim()) filters.set(k, v.trim());
  if (node) filters.set('node', node);
  const q = new URLSearchParams(filters);
  q.set('limit', '100');
  const cursor = cursors[cursors.length - 1];
  if (cursor) q.set('cursor', cursor);
  const page = useLoad(() => api<TrafficPage>('GET', `/api/logs/traffic?${q}`), [q.toString()]);
  // this node without a data plane logs nothing: said so, not "0 records" (issue 43)
  const noDataPlane = !node && status.value?.dataplane?.mode === 'none' && (page.data?.records.length ?? 0) === 0;
  useEffect(() => {
    if (!live) return;
    const stop = new AbortController();
    setLiveRecords([]);
    void tail(filters.toString(), stop.signal, (r) => setLiveRecords((rs) => [r, ...rs].slice(0, LIVE_KEEP)), setLiveError);
    return () => stop.abort();
  }, [live, filters.toString()]);
  return (
    <Page title="Traffic log" actions={<label><input type="checkbox" checked={live} onChange={(e) => setLive((e.target as HTMLInputElement).checked)} /> Live</label>}>
      <form class="card inline" aria-label="Traffic log filters" onSubmit={(e) => { e.preventDefault(); setCursors([]); setApplied(draft); }}>
        <NodePicker value={node} onChange={(n) => { setCursors([]); setNode(n); }} />
        {FILTERS.map(([k, label, hint]) => <Field key={k} label={label} value={draft[k]} onInput={(v) => setDraft({ ...draft, [k]: v })} hint={hint || undefined} />)}
        <button type="submit">Apply filters</button>
      </form>
      {live && (
        <section aria-label="Live records">
          <h2>Live</h2>
          <ErrorBox text={liveError} />
          <p aria-live="polite">{liveRecords.length} new record{liveRecords.length === 1 ? '' : 's'}</p>
          <Records caption="Records as they come" records={liveRecords} />
        </section>
      )}
      <ErrorBox text={page.error} />
      {noDataPlane ? <p class="notice" data-testid="no-dataplane">{NO_DATAPLANE}</p>
        : page.data && <p>{page.data.records.length} record{page.data.records.length === 1 ? '' : 's'} of node {page.data.node}{cursors.length ? ' (older page)' : ''}</p>}
      <Records caption="Logged connections, newest first" records={page.data?.records ?? []} />
      <Pager stack={cursors} setStack={setCursors} next={page.data?.next} back="Newer" forward="Older" />
    </Page>
  );
}
