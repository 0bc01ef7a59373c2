// The configuration session: begin, the pending diff, validate, commit with a description,
// discard (another user's session only with the force permission).
import { WarningPanel } from './warnings';
import { useEffect, useState } from 'preact/hooks';
import { api, login } from './api';
import { fieldErrorOf } from './field-errors';
import { allowed, ownSession, refreshStatus, say, status } from './state';
import type { DetailedDiff, Diff, PendingConfirm, Session } from './types';
import { when } from './format';
import { attempt, Checkbox, describeError, ErrorBox, Field, Page, useLoad } from './ui';
import { VirtualTable } from './virtual-table';
import { ImpactView } from './impact';
import { loadRuleNames, namesRules, ruleLabel, type RuleNames } from './rule-names';

export function SessionPage() {
  const s = (status.value?.session ?? null) as Session | null;
  const own = ownSession.value;
  const mayConfigure = allowed('configure');
  const mayForce = allowed('force');
  const [description, setDescription] = useState('');
  const [confirmed, setConfirmed] = useState(false);
  const [minutes, setMinutes] = useState('10');
  const [commitError, setCommitError] = useState<Record<string, string>>({});
  // the API offers commit confirmed when its session carries pending_confirm (null or set)
  const offersConfirm = s !== null && 'pending_confirm' in s;
  const pending = s?.pending_confirm ?? null;
  const [validation, setValidation] = useState<string | null>(null);
  const [warnings, setWarnings] = useState<{ title: string; text: string | undefined } | null>(null);
  const diff = useLoad(() => (own ? api<DetailedDiff>('GET', '/api/config/diff?detail=true') : Promise.resolve(null)), [own]);
  const other = s?.active && s.owner !== login.value?.username;
  const names = useLoad(() => (own && diff.data && namesRules([...diff.data.added, ...diff.data.changed, ...diff.data.deleted, ...diff.data.moved]) ? loadRuleNames(true) : Promise.resolve(null)), [own, diff.data]);

  const act = (fn: () => Promise<unknown>, done: string) => attempt(async () => {
    await fn();
    await refreshStatus();
    diff.reload();
  }, done);

  const commit = async (e: Event) => {
    e.preventDefault();
    setCommitError({});
    const body: Record<string, unknown> = { description };
    if (confirmed) body.confirm_timeout = /^\d+$/.test(minutes.trim()) ? Number(minutes.trim()) * 60 : minutes;
    try {
      const r = await api<{ message: string; version: string; warnings?: string; confirm_by?: string; cut?: string }>('POST', '/api/config/commit', body);
      // `cut`: the live connections the new version denies, ended by the commit (a kernel, rematch on)
      const cut = r.cut === undefined ? '' : `; ${r.cut} live connection${r.cut === '1' ? '' : 's'} cut`;
      say(`Committed version ${r.version}${cut}${r.confirm_by ? `: confirm it by ${when(r.confirm_by)} or it is rolled back` : ''}`);
      setWarnings({ title: `Version ${r.version}`, text: r.warnings });
      setDescription('');
      await refreshStatus();
      diff.reload();
    } catch (err) {
      const at = fieldErrorOf(err);
      const field = at?.field === 'description' ? 'description' : at?.field === 'confirm_timeout' ? 'minutes' : '';
      setCommitError({ [field]: field ? at!.text : describeError(err) });
    }
  };

  const validate = () => act(async () => {
    const r = await api<{ message: string; warnings?: string }>('POST', '/api/config/validate');
    setValidation(r.message);
    setWarnings({ title: 'Validation', text: r.warnings });
  }, 'Validation passed');

  const d = diff.data;
  const empty = d && d.added.length + d.changed.length + d.deleted.length + d.reordered.length === 0;
  return (
    <Page title="Session">
      {warnings && <WarningPanel title={warnings.title} text={warnings.text} />}
      {pending && <PendingConfirmation pending={pending} mayConfirm={mayConfigure} onConfirm={() => act(() => api('POST', '/api/config/confirm'), `Version ${pending.version} confirmed`)} />}
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
            {d && !empty && <DiffView diff={d} names={names.data} />}
            <div class="buttons"><button type="button" onClick={validate}>Validate</button></div>
            {validation && <p role="status">{validation}</p>}
          </section>
          {!empty && <ImpactView changes={s?.changes ?? 0} />}
          <form class="card" aria-labelledby="commit-h" onSubmit={commit}>
            <h2 id="commit-h">Commit</h2>
            <ErrorBox text={commitError[''] ?? null} />
            <Field label="Description" value={description} onInput={setDescription} error={commitError.description} hint="what this change is for (at most 1024 characters)" />
            {offersConfirm && <Checkbox label="Commit confirmed (rolled back unless confirmed in time)" checked={confirmed} onChange={setConfirmed} />}
            {offersConfirm && confirmed && <Field label="Confirm within (minutes)" value={minutes} onInput={setMinutes} error={commitError.minutes} />}
            <div class="buttons"><button type="submit" class="primary">Commit</button></div>
          </form>
        </>
      )}
    </Page>
  );
}

/** A commit confirmed waiting: its countdown, and Confirm for the roles that may commit. */
export function PendingConfirmation(p: { pending: PendingConfirm; mayConfirm: boolean; onConfirm: () => void }) {
  const left = useCountdown(p.pending.deadline);
  return (
    <section class="card pending" aria-labelledby="pending-h">
      <h2 id="pending-h">Version {p.pending.version} waits for confirmation</h2>
      <p>Committed by {p.pending.author}. Unless confirmed by {when(p.pending.deadline)} the daemon restores version {p.pending.version - 1}.</p>
      <p class="countdown" role="timer" aria-live="off">{left > 0 ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left` : 'deadline passed: rolling back'}</p>
      {p.mayConfirm && <button type="button" class="primary" onClick={p.onConfirm}>Confirm</button>}
    </section>
  );
}

/** Whole seconds until `iso`, ticking. */
function useCountdown(iso: string): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
}

/** A field's value in words: "none" for an absent value or list (never "null"), a list by commas. */
const valueText = (v: unknown): string => (v === null || v === undefined || (Array.isArray(v) && v.length === 0) ? 'none'
  : Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ') : JSON.stringify(v));
/** A field change as text: `log: true → false`, `tags: none → pci, audit`. */
const fieldText = (f: { field: string; old: unknown; new: unknown }) => `${f.field}: ${valueText(f.old)} → ${valueText(f.new)}`;

interface DiffRow { change: string; kind: string; key: string; details: string }

/**
 * A diff (the session's, or two versions' from GET /api/config/diff?from=&to=) rule by rule:
 * each rule by id and name, changed fields, moves with positions and neighbours. A table's
 * "reordered" shows only when no move explains it (the moves say it rule by rule).
 */
export function DiffView({ diff, names, caption }: { diff: Diff | DetailedDiff; names?: RuleNames | null; caption?: string }) {
  const label = (kind: string, key: string, own?: string) => ruleLabel(kind, key, names, own);
  const place = (kind: string, n: { above: string | null; below: string | null }) =>
    (n.above === null ? 'at the top' : n.below === null ? 'at the bottom' : `between ${label(kind, n.above)} and ${label(kind, n.below)}`);
  type Item = { kind: string; key: string; name?: string; fields?: DetailedDiff['changed'][number]['fields']; position?: number };
  const groups: [string, Item[]][] = [['Added', diff.added], ['Changed', diff.changed], ['Deleted', diff.deleted]];
  const moved = 'moved' in diff ? diff.moved : [];
  // a rule's place says which rule it is as much as its name: where it lands, is, or was
  const where = (change: string, i: Item) => (i.position ? `${change === 'Deleted' ? 'was at' : 'at'} position ${i.position}` : '');
  const details = (change: string, i: Item) => [where(change, i), ...(i.fields ?? []).map(fieldText)].filter(Boolean).join('; ');
  const rows: DiffRow[] = [
    ...groups.flatMap(([change, items]) => items.map((i) => ({ change, kind: i.kind, key: label(i.kind, i.key, i.name), details: details(change, i) }))),
    ...moved.map((m) => ({ change: 'Moved', kind: m.kind, key: label(m.kind, m.key, m.name), details: `position ${m.from} → ${m.to}, now ${place(m.kind, m.new_neighbours)} (was ${place(m.kind, m.old_neighbours)})` })),
    ...diff.reordered.filter((t) => !moved.some((m) => (m.kind === 'policy' ? 'policies' : m.kind) === t)).map((t) => ({ change: 'Reordered', kind: t, key: `order of ${t}`, details: '' })),
  ];
  return (
    <div class="diff">
      <VirtualTable label="Pending changes table" caption={caption ?? `Changes against version ${diff.base_version}`} rows={rows} keyOf={(r) => `${r.change}-${r.kind}-${r.key}`}
        rowProps={(r) => ({ class: `diff-${r.change === 'Moved' ? 'reordered' : r.change.toLowerCase()}` })} columns={[
          { label: 'Change', width: 7, cell: (r) => r.change },
          { label: 'Kind', width: 8, cell: (r) => r.kind },
          { label: 'Object', width: 16, rowHeader: true, cell: (r) => r.key, title: (r) => r.key },
          { label: 'Details', cell: (r) => r.details, title: (r) => r.details || undefined },
        ]} />
    </div>
  );
}
