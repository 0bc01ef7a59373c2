// The configuration session: begin, the pending diff, validate, commit with a description,
// discard (another user's session only with the force permission).
import { useState } from 'preact/hooks';
import { api, login } from './api';
import { allowed, ownSession, refreshStatus, say, status } from './state';
import type { Diff } from './types';
import { when } from './format';
import { attempt, ErrorBox, Field, Page, useLoad } from './ui';

export function SessionPage() {
  const s = status.value?.session ?? null;
  const own = ownSession.value;
  const mayConfigure = allowed('configure');
  const mayForce = allowed('force');
  const [description, setDescription] = useState('');
  const [validation, setValidation] = useState<string | null>(null);
  const diff = useLoad(() => (own ? api<Diff>('GET', '/api/config/diff') : Promise.resolve(null)), [own]);
  const other = s?.active && s.owner !== login.value?.username;

  const act = (fn: () => Promise<unknown>, done: string) => attempt(async () => {
    await fn();
    await refreshStatus();
    diff.reload();
  }, done);

  const commit = async (e: Event) => {
    e.preventDefault();
    const ok = await act(async () => {
      const r = await api<{ message: string; version: string; warnings?: string }>('POST', '/api/config/commit', { description });
      say(`Committed version ${r.version}${r.warnings ? ` (warnings: ${r.warnings})` : ''}`);
    }, '');
    if (ok) setDescription('');
  };

  const validate = () => act(async () => {
    const r = await api<{ message: string; warnings?: string }>('POST', '/api/config/validate');
    setValidation(`${r.message}${r.warnings ? `; warnings: ${r.warnings}` : ''}`);
  }, 'Validation passed');

  const d = diff.data;
  const empty = d && d.added.length + d.changed.length + d.deleted.length + d.reordered.length === 0;
  return (
    <Page title="Session">
      <section class="card" aria-labelledby="lock-h">
        <h2 id="lock-h">Lock</h2>
        {!s?.active && <p>No session: the configuration is not locked.</p>}
        {s?.active && (
          <dl>
            <dt>Held by</dt><dd>{s.owner}{own ? ' (you)' : ''}</dd>
            <dt>Since</dt><dd>{when(s.started_at)}</dd>
            <dt>Idle expiry</dt><dd>{when(s.expires_at)}</dd>
            <dt>Changes</dt><dd>{s.changes}</dd>
          </dl>
        )}
        <div class="buttons">
          {mayConfigure && !s?.active && <button type="button" class="primary" onClick={() => act(() => api('POST', '/api/config/begin'), 'Session started')}>Begin session</button>}
          {mayConfigure && own && <button type="button" class="danger" onClick={() => confirm('Discard every change of this session?') && act(() => api('POST', '/api/config/discard'), 'Session discarded')}>Discard</button>}
          {mayForce && other && <button type="button" class="danger" onClick={() => confirm(`Discard ${s?.owner}'s session and changes?`) && act(() => api('POST', '/api/config/discard?force=true'), `${s?.owner}'s session discarded`)}>Force discard</button>}
        </div>
      </section>
      {own && (
        <>
          <section class="card" aria-labelledby="diff-h">
            <h2 id="diff-h">Pending changes</h2>
            <ErrorBox text={diff.error} />
            {empty && <p>No changes yet.</p>}
            {d && !empty && <DiffView diff={d} />}
            <div class="buttons"><button type="button" onClick={validate}>Validate</button></div>
            {validation && <p role="status">{validation}</p>}
          </section>
          <form class="card" aria-labelledby="commit-h" onSubmit={commit}>
            <h2 id="commit-h">Commit</h2>
            <Field label="Description" value={description} onInput={setDescription} hint="what this change is for (at most 1024 characters)" />
            <div class="buttons"><button type="submit" class="primary">Commit</button></div>
          </form>
        </>
      )}
    </Page>
  );
}

export function DiffView({ diff }: { diff: Diff }) {
  const groups: [string, { kind: string; key: string }[]][] = [['Added', diff.added], ['Changed', diff.changed], ['Deleted', diff.deleted]];
  return (
    <div class="diff">
      <table class="grid">
        <caption class="sr-only">Changes against version {diff.base_version}</caption>
        <thead><tr><th scope="col">Change</th><th scope="col">Kind</th><th scope="col">Object</th></tr></thead>
        <tbody>
          {groups.flatMap(([label, items]) => items.map((i) => (
            <tr key={`${label}-${i.kind}-${i.key}`} class={`diff-${label.toLowerCase()}`}><td>{label}</td><td>{i.kind}</td><th scope="row">{i.key}</th></tr>
          )))}
          {diff.reordered.map((t) => <tr key={`re-${t}`} class="diff-reordered"><td>Reordered</td><td>{t}</td><th scope="row">order of {t}</th></tr>)}
        </tbody>
      </table>
    </div>
  );
}
