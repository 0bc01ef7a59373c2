// The committed versions: list, compare any two (object by object), roll back (the version
// is loaded into the candidate; the commit makes it running).
import { useState } from 'preact/hooks';
import { api } from './api';
import { allowed, ensureSession, navigate, refreshStatus } from './state';
import type { Version, VersionConfig } from './types';
import { when } from './format';
import { attempt, ErrorBox, Field, Page, useLoad } from './ui';
import { ACTIONS, RowActions, VirtualTable } from './virtual-table';

type Tables = Omit<VersionConfig['config'], 'counters'>;
const KEYS: Record<keyof Tables, string> = {
  addresses: 'name', services: 'name', addressGroups: 'name', serviceGroups: 'name', zones: 'name', interfaces: 'name', vlans: 'name', dhcp: 'interface', routes: 'id', policies: 'id', nat: 'id', localPolicies: 'id',
};

interface Change { table: string; key: string; change: 'added' | 'deleted' | 'changed' | 'reordered' }

/** What differs from version a's configuration to b's, object by object, plus reorders. */
export function compareConfigs(a: VersionConfig['config'], b: VersionConfig['config']): { changes: Change[]; reordered: string[] } {
  const changes: Change[] = [];
  const reordered: string[] = [];
  for (const table of Object.keys(KEYS) as (keyof Tables)[]) {
    const k = KEYS[table];
    const keyOf = (o: Record<string, unknown>) => String(o[k]);
    // the group tables are absent from a version without groups
    const before = new Map((a[table] ?? []).map((o) => [keyOf(o), JSON.stringify(o)]));
    const after = new Map((b[table] ?? []).map((o) => [keyOf(o), JSON.stringify(o)]));
    for (const [key, v] of after) {
      if (!before.has(key)) changes.push({ table, key, change: 'added' });
      else if (before.get(key) !== v) changes.push({ table, key, change: 'changed' });
    }
    for (const key of before.keys()) if (!after.has(key)) changes.push({ table, key, change: 'deleted' });
    if (table === 'policies' || table === 'nat') {
      const common = (xs: Record<string, unknown>[], other: Map<string, string>) => xs.map(keyOf).filter((x) => other.has(x));
      if (common(a[table], after).join() !== common(b[table], before).join()) reordered.push(table);
    }
  }
  return { changes, reordered };
}

export function VersionsPage() {
  const list = useLoad(() => api<Version[]>('GET', '/api/config/versions'), []);
  const versions = [...(list.data ?? [])].sort((x, y) => y.version - x.version);
  const numbers = versions.map((v) => String(v.version));
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [result, setResult] = useState<{ from: string; to: string; changes: Change[]; reordered: string[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const mayRollBack = allowed('configure');
  const a = from || numbers[1] || numbers[0] || '';
  const b = to || numbers[0] || '';

  const compare = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const [va, vb] = await Promise.all([a, b].map((n) => api<VersionConfig>('GET', `/api/config/versions/${n}`)));
      setResult({ from: a, to: b, ...compareConfigs(va.config, vb.config) });
    } catch (err) {
      setError(String((err as Error).message));
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
          {result.changes.length + result.reordered.length === 0 && <p>The two versions hold the same configuration.</p>}
          <VirtualTable label="Version comparison table" caption={`Version ${result.from} to ${result.to}`}
            rows={[...result.changes, ...result.reordered.map((t): Change => ({ table: t, key: 'order', change: 'reordered' }))]}
            keyOf={(c) => `${c.table}/${c.key}`} rowProps={(c) => ({ class: `diff-${c.change}` })} columns={[
              { label: 'Change', width: 8, cell: (c) => c.change },
              { label: 'Kind', width: 9, cell: (c) => c.table },
              { label: 'Object', rowHeader: true, cell: (c) => c.key },
            ]} />
        </section>
      )}
      <VirtualTable label="Versions table" caption="Committed versions, newest first" rows={versions} keyOf={(v) => String(v.version)} columns={[
        { label: 'Version', width: 5.5, num: true, rowHeader: true, cell: (v) => v.version },
        { label: 'Author', width: 8, cell: (v) => v.author },
        { label: 'Time', width: 14, cell: (v) => when(v.time) },
        { label: 'Description', cell: (v) => v.description, title: (v) => v.description },
        { label: 'Summary', cell: (v) => v.summary, title: (v) => v.summary },
        ...(mayRollBack ? [{ ...ACTIONS, cell: (v: Version) => <RowActions><button type="button" onClick={() => rollBack(v.version)} aria-label={`Roll back to version ${v.version}`}>Roll back</button></RowActions> }] : []),
      ]} />
    </Page>
  );
}
