// The audit trail, newest first, filtered by user and action, a page at a time.
import { useState } from 'preact/hooks';
import { api } from './api';
import type { AuditEntries } from './types';
import { when } from './format';
import { ErrorBox, Field, Page, Pager, useLoad } from './ui';

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
      <table class="grid">
        <caption class="sr-only">Audit entries, newest first</caption>
        <thead><tr><th scope="col">Id</th><th scope="col">Time</th><th scope="col">User</th><th scope="col">Action</th><th scope="col">Details</th><th scope="col">Request</th></tr></thead>
        <tbody>
          {(page.data?.entries ?? []).map((e) => (
            <tr key={e.id}><th scope="row">{e.id}</th><td>{when(e.time)}</td><td>{e.user}</td><td>{e.action}</td><td>{e.details}</td><td class="mono">{e.requestId}</td></tr>
          ))}
        </tbody>
      </table>
      <Pager stack={pages} setStack={setPages} next={page.data?.next} back="Newer" forward="Older" />
    </Page>
  );
}
