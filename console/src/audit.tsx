// The audit trail, newest first, filtered by user and action, a page at a time.
import { useState } from 'preact/hooks';
import { api } from './api';
import type { AuditEntries } from './types';
import { when } from './format';
import { ErrorBox, Field, Page, Pager, useLoad } from './ui';
import { VirtualTable } from './virtual-table';

export function AuditPage() {
  const [user, setUser] = useState('');
  const [action, setAction] = useState('');
  const [applied, setApplied] = useState({ user: '', action: '' });
  const [pages, setPages] = useState<number[]>([]); // the `before` of each page after the first
  const before = pages[pages.length - 1];
  const q = new URLSearchParams({ limit: '100' });
  if (applied.user) q.set('user', applied.user);
  if (applied.action) q.set('action', applied.action);
  if (before) q.set('before', String(before));
  const page = useLoad(() => api<AuditEntries>('GET', `/api/audit?${q}`), [q.toString()]);
  return (
    <Page title="Audit trail">
      <form class="card inline" aria-label="Audit filters" onSubmit={(e) => { e.preventDefault(); setPages([]); setApplied({ user: user.trim(), action: action.trim() }); }}>
        <Field label="User" value={user} onInput={setUser} />
        <Field label="Action" value={action} onInput={setAction} hint="e.g. session, config.commit, change" />
        <button type="submit">Apply filters</button>
      </form>
      <ErrorBox text={page.error} />
      <VirtualTable label="Audit table" caption="Audit entries, newest first" rows={page.data?.entries ?? []} keyOf={(e) => String(e.id)} columns={[
        { label: 'Id', width: 5, rowHeader: true, cell: (e) => e.id },
        { label: 'Time', width: 14, cell: (e) => when(e.time) },
        { label: 'User', width: 8, cell: (e) => e.user, title: (e) => e.user },
        { label: 'Action', width: 11, cell: (e) => e.action, title: (e) => e.action },
        { label: 'Details', cell: (e) => e.details, title: (e) => e.details },
        { label: 'Request', width: 11, cellClass: () => 'mono', cell: (e) => e.requestId, title: (e) => e.requestId },
      ]} empty={page.data ? 'No entries.' : undefined} />
      <Pager stack={pages} setStack={setPages} next={page.data?.next} back="Newer" forward="Older" />
    </Page>
  );
}
