// The committed versions: list (the running one marked, and not offered for rollback), compare
// any two rule by rule as the session's diff shows a change (GET /api/config/diff?from=&to=:
// changed fields, moves, rules by id and name), roll back (the version is loaded into the
// candidate; the commit makes it running).
import { useState } from 'preact/hooks';
import { api } from './api';
import { allowed, ensureSession, navigate, refreshStatus, status } from './state';
import type { DetailedDiff, Version, VersionConfig } from './types';
import { DiffView } from './session';
import { addNames, type RuleNames } from './rule-names';
import { when } from './format';
import { attempt, describeError, ErrorBox, Field, Page, useLoad } from './ui';
import { ACTIONS, RowActions, VirtualTable } from './virtual-table';

const sameConfig = (d: DetailedDiff) => d.added.length + d.changed.length + d.deleted.length + d.moved.length + d.reordered.length === 0;

export function VersionsPage() {
  const list = useLoad(() => api<Version[]>('GET', '/api/config/versions'), []);
  const versions = [...(list.data ?? [])].sort((x, y) => y.version - x.version);
  const numbers = versions.map((v) => String(v.version));
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [result, setResult] = useState<{ from: string; to: string; diff: DetailedDiff; names: RuleNames } | null>(null);
  const running = status.value?.version ?? null;
  const [error, setError] = useState<string | null>(null);
  const mayRollBack = allowed('configure');
  const a = from || numbers[1] || numbers[0] || '';
  const b = to || numbers[0] || '';

  const compare = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      // the names of the rules from both versions (a deleted rule's from the older)
      const [diff, vb, va] = await Promise.all([
        api<DetailedDiff>('GET', `/api/config/diff?from=${encodeURIComponent(a)}&to=${encodeURIComponent(b)}`),
        api<VersionConfig>('GET', `/api/config/versions/${b}`), api<VersionConfig>('GET', `/api/config/versions/${a}`),
      ]);
      const names = addNames(addNames(new Map(), vb.config.policies as never, vb.config.nat as never), va.config.policies as never, va.config.nat as never);
      setResult({ from: a, to: b, diff, names });
    } catch (err) {
      setError(describeError(err));
    }
  };

  const rollBack = (version: number) => {
    if (!confirm(`Load version ${version} into the candidate? Commit it to make it running.`)) return;
    void attempt(async () => {
      await ensureSession();
      await api('POST', '/api/config/rollback', { version });
      await refreshStatus();
      navigate('/session');
    }, `Version ${version} loaded into the candidate: review the diff and commit`);
  };

  return (
    <Page title="Versions">
      <ErrorBox text={list.error} />
      <form class="card inline" aria-label="Compare versions" onSubmit={compare}>
        <Field label="From version" value={a} options={numbers} onInput={setFrom} />
        <Field label="To version" value={b} options={numbers} onInput={setTo} />
        <button type="submit">Compare</button>
      </form>
      <ErrorBox text={error} />
      {result && (
        <section class="card" aria-labelledby="cmp-h">
          <h2 id="cmp-h">Version {result.from} → {result.to}</h2>
          {sameConfig(result.diff) ? <p>The two versions hold the same configuration.</p>
            : <DiffView diff={result.diff} names={result.names} caption={`Version ${result.from} to ${result.to}`} />}
        </section>
      )}
      <VirtualTable label="Versions table" caption="Committed versions, newest first" rows={versions} keyOf={(v) => String(v.version)} columns={[
        { label: 'Version', width: 8, num: true, rowHeader: true, cell: (v) => (v.version === running ? <>{v.version} <span class="running-tag">running</span></> : v.version) },
        { label: 'Author', width: 8, cell: (v) => v.author, title: (v) => v.author },
        // wide enough for a medium date and time in any locale; the ISO time on hover
        { label: 'Time', width: 17, cell: (v) => when(v.time), title: (v) => v.time },
        { label: 'Description', cell: (v) => v.description, title: (v) => v.description },
        { label: 'Summary', cell: (v) => v.summary, title: (v) => v.summary },
        ...(mayRollBack ? [{ ...ACTIONS, cell: (v: Version) => v.version !== running && <RowActions><button type="button" onClick={() => rollBack(v.version)} aria-label={`Roll back to version ${v.version}`}>Roll back</button></RowActions> }] : []),
      ]} />
    </Page>
  );
}
