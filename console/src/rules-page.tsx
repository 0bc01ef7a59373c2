// The ordered rule tables (policies, NAT) in evaluation order: hit counters, the analysis as
// badges naming the covering rules, reordering by drag and drop or by keyboard (the move
// API), and only the visible rows in the DOM, so that 20,000 rules scroll smoothly.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useMoveQueue } from './move-queue';
import { api } from './api';
import { removeObject, ResourceForm } from './form';
import { RESOURCE_DEFS, type Column } from './resources';
import { allowed, ensureSession, refreshStatus, route, traced, view } from './state';
import { FilterBox, useSortFilter } from './table';
import type { Analysis, HitsReply, Move, NatModel, PolicyModel, RuleHits, Schedule } from './types';
import { attempt, ErrorBox, Field, Page, useLoad } from './ui';
import { ACTIONS, ROW_HEIGHT, RowActions, scrollRowIntoView, VirtualTable, type VColumn } from './virtual-table';
import { ViewSwitch } from './view-switch';
import { lockAttrs, lockedBy, LockNote } from './lock';
import { ColumnChooser, useColumnChoice } from './column-chooser';
import { useFreshAnalysis } from './fresh-analysis';
import { addTiming } from './schedule-badges';

type Kind = 'policies' | 'nat';
type Rule = PolicyModel | NatModel;
type Hits = { packets: number; bytes: number } | null;


export interface Badge {
  kind: 'shadowed' | 'redundant' | 'partial' | 'never-hit' | 'unreachable' | 'stale' | 'off-schedule' | 'expired';
  text: string;
  title?: string;
}

/** Covering rules named in a badge: the first three, then a count (the title has them all). */
const ids = (list: number[]) => (list.length <= 3 ? list.join(', ') : `${list.slice(0, 3).join(', ')} +${list.length - 3}`);

/** The analysis as badges per rule id; `title`: the whole list of covering rules. */
export function badgesOf(kind: Kind, a: Analysis | null): Map<number, Badge[]> {
  const out = new Map<number, Badge[]>();
  if (!a) return out;
  const add = (id: number, b: Badge) => out.set(id, [...(out.get(id) ?? []), b]);
  if (kind === 'nat') {
    for (const u of a.unreachableNat) add(u.id, { kind: 'unreachable', text: `unreachable: covered by ${ids(u.coveredBy)}`, title: u.coveredBy.join(', ') });
    return out;
  }
  for (const s of a.shadowed) add(s.id, { kind: 'shadowed', text: `shadowed by ${ids(s.coveredBy)}`, title: s.coveredBy.join(', ') });
  for (const r of a.redundant) add(r.id, { kind: 'redundant', text: `redundant: covered by ${ids(r.coveredBy)}`, title: r.coveredBy.join(', ') });
  for (const p of a.partiallyShadowed) add(p.id, { kind: 'partial', text: `partially shadowed by ${p.by}` });
  for (const id of a.neverHit ?? []) add(id, { kind: 'never-hit', text: 'never hit' });
  return out;
}

const SHOW = ['all', 'shadowed', 'redundant', 'partial', 'never-hit', 'unreachable', 'stale', 'off-schedule', 'expired'] as const;
const SHOW_LABEL: Record<(typeof SHOW)[number], string> = {
  all: 'all rules', shadowed: 'shadowed', redundant: 'redundant', partial: 'partially shadowed', 'never-hit': 'never hit', unreachable: 'unreachable', stale: 'no hit for N days',
  'off-schedule': 'off by schedule now', expired: 'expired',
};
const DAY_MS = 86_400_000;
/** The table's own optional columns around the resource's (position before, counters after). */
const OWN_OPTIONAL_BEFORE = ['#'];
const OWN_OPTIONAL_AFTER = ['Hits', 'Last hit'];

/**
 * "no hit for N days" per rule: no hit since N days ago by the sampled hit times, as GET
 * /api/analysis/unused counts it (a rule never hit counts too: the auditor's list is every rule
 * without a hit in the period). Nothing without a kernel (no times).
 */
export function addStale(badges: Map<number, Badge[]>, times: Map<number, RuleHits> | null, days: number, now: number): Map<number, Badge[]> {
  if (!times || !(days >= 1)) return badges;
  const since = new Date(now - days * DAY_MS).toISOString();
  const out = new Map(badges);
  for (const [id, r] of times) {
    if (r.lastHitAt !== null && r.lastHitAt >= since) continue;
    out.set(id, [...(out.get(id) ?? []), { kind: 'stale', text: `no hit for ${days} day${days === 1 ? '' : 's'}`, title: r.lastHitAt ? `last hit ${r.lastHitAt}` : 'no hit recorded' }]);
  }
  return out;
}

/** A hit time as an age: "4 min ago", "3 days ago" (the exact time is the cell's title). */
export function ago(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} days ago`;
}

interface Data {
  rules: Rule[];
  /** the schedules (policies only: issue 40 item 4), with whether each is on now */
  schedules: Schedule[];
  hits: Map<number, Hits>;
  /** hits with their times (GET /api/analysis/hits); null without a kernel */
  times: Map<number, RuleHits> | null;
}

async function loadRules(kind: Kind, which: 'running' | 'candidate'): Promise<Data> {
  const def = RESOURCE_DEFS[kind];
  const q = which === 'candidate' ? '?config=candidate' : '';
  // counters are the kernel's, for the running version; a candidate rule shows its running count
  // the analysis comes after, on its own (fresh-analysis.ts): the rows never wait for it
  const [rules, stats, sampled, schedules] = await Promise.all([
    kind === 'policies' && which === 'running' ? api<(PolicyModel & { hits?: Hits })[]>('GET', `${def.path}?stats=true`) : api<Rule[]>('GET', def.path + q),
    kind === 'policies' && which === 'candidate' ? api<(PolicyModel & { hits?: Hits })[]>('GET', `${def.path}?stats=true`) : Promise.resolve(null),
    api<HitsReply>('GET', '/api/analysis/hits').catch(() => null),
    kind === 'policies' ? api<Schedule[]>('GET', `/api/schedules${q}`) : Promise.resolve([]),
  ]);
  const hits = new Map<number, Hits>();
  for (const r of (stats ?? rules) as (Rule & { hits?: Hits })[]) if (r.hits !== undefined) hits.set(r.id, r.hits);
  const ruleKind = kind === 'policies' ? 'policy' : 'nat';
  const times = sampled?.rules ? new Map(sampled.rules.filter((r) => r.kind === ruleKind).map((r) => [r.id, r])) : null;
  // NAT has no ?stats=true: its hits (connections translated) come with the times
  if (kind === 'nat' && times) for (const [id, r] of times) hits.set(id, { packets: r.hits, bytes: r.bytes });
  return { rules, hits, times, schedules };
}

export function RulesPage({ kind }: { kind: Kind }) {
  const def = RESOURCE_DEFS[kind];
  const which = view.value;
  const loaded = useLoad(() => loadRules(kind, which), [kind, which]);
  const query0 = new URLSearchParams(route.value.split('?')[1] ?? '');
  const [days, setDays] = useState(query0.get('days') ?? '90');
  const fresh = useFreshAnalysis(which, loaded.data);
  const badges = useMemo(() => addTiming(addStale(badgesOf(kind, fresh.analysis), loaded.data?.times ?? null, Number(days), Date.now()), loaded.data?.rules ?? [], loaded.data?.schedules ?? [], Date.now()),
    [fresh.analysis, loaded.data, days]);
  const columns = def.columns as Column<Rule>[];
  const badgeText = useMemo(() => (m: Rule) => `#${m.id} ` + (badges.get(m.id) ?? []).map((b) => `${b.text} ${b.title ?? ''}`).join(' '), [badges]);
  const query = query0;
  const [announce, setAnnounce] = useState('');
  const focusAfter = useRef<number | null>(null);
  const send = (id: number, body: Move) => attempt(async () => {
    await ensureSession();
    await api('POST', `${def.path}/${id}/move`, body);
    void refreshStatus();
  });
  const moves = useMoveQueue(loaded.data?.rules ?? null, send, loaded.reload);
  // ?filter=: a link to rules (the warning panel's "#2001 ")
  const t = useSortFilter(moves.rules, columns, badgeText, query.get('filter') ?? '');
  const initialShow = query.get('show');
  const [show, setShow] = useState<(typeof SHOW)[number]>(SHOW.includes(initialShow as never) ? (initialShow as (typeof SHOW)[number]) : 'all');
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const mayChange = allowed('configure');
  const choice = useColumnChoice(kind, useMemo(() => [...OWN_OPTIONAL_BEFORE, ...columns.filter((c) => c.optional).map((c) => c.label), ...OWN_OPTIONAL_AFTER], [kind]), []);
  const rows = useMemo(() => (show === 'all' ? t.shown : t.shown.filter((r) => badges.get(r.id)?.some((b) => b.kind === show))), [t.shown, show, badges]);
  const inOrder = t.sort.col < 0;
  const tracedId = kind === 'policies' ? traced.value.policy : traced.value.nat;
  // the first frame that shows the loaded rules, for bench/console.ts (a User Timing mark)
  useEffect(() => {
    if (loaded.data) requestAnimationFrame(() => performance.mark(`fwd:${kind}-shown`));
  }, [loaded.data]);

  // the status says "moved" once the API has taken the move; a refused one is undone and the
  // notice says why (issue 43)
  const move = (id: number, body: Move, said: string) => {
    if (lockedBy.value) return;
    focusAfter.current = id;
    setAnnounce('');
    fresh.markPending();
    moves.enqueue(id, body, () => setAnnounce(said));
  };

  const remove = (id: number) => removeObject(def as never, String(id), loaded.reload);

  // the shown rules (filter, "Show") switched on or off in one batch: one change of the session.
  // Every shown rule, whatever its state in the last load: a click made before the previous
  // switch's reload arrived found no rule to change in the stale rows
  const switchShown = async (disabled: boolean) => {
    const ids = rows.map((r) => r.id);
    const ok = ids.length > 0 && await attempt(async () => {
      await ensureSession();
      await api('POST', '/api/config/batch', { operations: ids.map((id) => ({ method: 'PUT', path: `${def.path}/${id}`, body: { disabled } })) });
    }, `${ids.length} ${ids.length === 1 ? def.noun : def.title.toLowerCase()} ${disabled ? 'disabled' : 'enabled'}`);
    if (!ok) return;
    void refreshStatus();
    loaded.reload();
  };

  return (
    <Page title={def.title} actions={<>
      <ViewSwitch />
      {mayChange && <button type="button" class="primary" {...lockAttrs()} onClick={() => setEditing('new')}>New {def.noun}</button>}
    </>}>
      {editing && (
        <ResourceForm key={editing === 'new' ? 'new' : editing.id} def={def as never} editing={editing === 'new' ? null : (editing as never)}
          placeAmong={loaded.data?.rules.map((r) => r.id) ?? []}
          onDone={(changed) => { setEditing(null); if (changed) loaded.reload(); }} />
      )}
      <ErrorBox text={loaded.error} />
      <div class="toolbar">
        <FilterBox value={t.filter} onInput={t.setFilter} />
        <Field label="Show" value={show} options={SHOW.filter((s) => (kind === 'nat' ? s === 'all' || s === 'unreachable' || s === 'stale' : s !== 'unreachable'))}
          onInput={(v) => setShow(v as typeof show)} />
        {loaded.data?.times && <Field label="No hit for (days)" type="number" value={days} onInput={setDays} />}
        <span class="count">{rows.length} of {loaded.data?.rules.length ?? 0} in evaluation order{show !== 'all' ? `, ${SHOW_LABEL[show]} only` : ''}
          {fresh.pending && loaded.data && <span class="analysis-pending" role="status" data-testid="analysis-pending"> · analysis recomputing…</span>}</span>
        <ColumnChooser choice={choice} />
        {!inOrder && <button type="button" onClick={() => t.setSort({ col: -1, dir: 1 })}>Back to evaluation order</button>}
        {mayChange && rows.length > 0 && <>
          <button type="button" {...lockAttrs()} onClick={() => void switchShown(true)}>Disable shown</button>
          <button type="button" {...lockAttrs()} onClick={() => void switchShown(false)}>Enable shown</button>
        </>}
      </div>
      {mayChange && <LockNote />}
      {mayChange && <p class="help" id={`${kind}-move-help`}>Reorder: drag a row by its handle, or focus the handle and press Arrow Up or Arrow Down (Home, End: to the top, the bottom).{inOrder ? '' : ' Sorted by a column: reordering is off.'}</p>}
      <p class="sr-only" role="status" aria-live="polite">{announce}</p>
      <RulesTable kind={kind} rows={rows} columns={columns} hits={loaded.data?.hits ?? new Map()} times={loaded.data?.times ?? null} badges={badges} badgesPending={fresh.pending}
        sortCol={t.sort.col} sortDir={t.sort.dir} onSort={t.toggle} reorder={mayChange && inOrder} tracedId={tracedId}
        shown={choice.shown} focusAfter={focusAfter} onMove={move} onEdit={(r) => setEditing(r)} onDelete={remove} mayChange={mayChange} />
    </Page>
  );
}

interface TableProps {
  kind: Kind;
  rows: Rule[];
  columns: Column<Rule>[];
  hits: Map<number, Hits>;
  times: Map<number, RuleHits> | null;
  badges: Map<number, Badge[]>;
  sortCol: number;
  sortDir: 1 | -1;
  onSort: (col: number) => void;
  reorder: boolean;
  mayChange: boolean;
  tracedId: number | null;
  focusAfter: { current: number | null };
  onMove: (id: number, body: Move, said: string) => void;
  onEdit: (r: Rule) => void;
  onDelete: (id: number) => void;
  /** the badges are older than the rows: shown as pending */
  badgesPending: boolean;
  /** the optional columns chosen (column-chooser.tsx) */
  shown: Set<string>;
}

function RulesTable(p: TableProps) {
  const def = RESOURCE_DEFS[p.kind];
  const scroller = useRef<HTMLDivElement>(null);
  const [dragging, setDragging] = useState<number | null>(null);
  const [dropAt, setDropAt] = useState<{ id: number; where: 'before' | 'after' } | null>(null);
  // the rows as last rendered: a key press reads its neighbours from them, never from a stale closure
  const current = useRef(p.rows);
  current.current = p.rows;

  // a traced rule is scrolled into the window
  useEffect(() => {
    if (p.tracedId === null) return;
    const i = p.rows.findIndex((r) => r.id === p.tracedId);
    if (i >= 0 && scroller.current) scroller.current.scrollTop = Math.max(0, i * ROW_HEIGHT - 2 * ROW_HEIGHT);
  }, [p.tracedId, p.rows.length > 0]);

  // after a move the moved rule's handle has the focus, in the same frame as the new order (a
  // layout effect: before the browser takes the next key press, which must reach this rule)
  useLayoutEffect(() => {
    const id = p.focusAfter.current;
    if (id === null) return;
    const i = p.rows.findIndex((r) => r.id === id);
    const el = scroller.current;
    if (i < 0 || !el) return;
    const handle = () => el.querySelector<HTMLButtonElement>(`button[data-handle="${id}"]`);
    scrollRowIntoView(el, i);
    // once: a later change of the rows (a filter typed) must not take the focus back
    p.focusAfter.current = null;
    // a rule moved out of the rendered window (Home, End) is there after the scroll's render
    if (handle()) handle()!.focus();
    else requestAnimationFrame(() => handle()?.focus());
  }, [p.rows]);

  const keyMove = (e: KeyboardEvent, id: number) => {
    const rows = current.current;
    const index = rows.findIndex((r) => r.id === id);
    let body: Move | null = null;
    let to = index;
    if (e.key === 'ArrowUp' && index > 0) { body = { position: 'before', reference_id: rows[index - 1].id }; to = index - 1; }
    else if (e.key === 'ArrowDown' && index >= 0 && index < rows.length - 1) { body = { position: 'after', reference_id: rows[index + 1].id }; to = index + 1; }
    else if (e.key === 'Home' && index > 0) { body = { position: 'top' }; to = 0; }
    else if (e.key === 'End' && index >= 0 && index < rows.length - 1) { body = { position: 'bottom' }; to = rows.length - 1; }
    if (!body) return;
    e.preventDefault();
    p.onMove(id, body, `${def.noun} ${id} moved to position ${to + 1}`);
  };

  const onDrop = (e: DragEvent, target: number) => {
    e.preventDefault();
    const id = dragging ?? Number(e.dataTransfer?.getData('text/plain'));
    const where = dropAt?.where ?? 'before';
    setDragging(null);
    setDropAt(null);
    if (!id || id === target) return;
    p.onMove(id, { position: where, reference_id: target }, `${def.noun} ${id} moved ${where} ${target}`);
  };

  const onDragOver = (e: DragEvent, target: number) => {
    if (dragging === null) return;
    e.preventDefault();
    const tr = e.currentTarget as HTMLElement;
    const box = tr.getBoundingClientRect();
    const where = e.clientY < box.top + box.height / 2 ? 'before' : 'after';
    if (dropAt?.id !== target || dropAt.where !== where) setDropAt({ id: target, where });
  };

  const cols: VColumn<Rule>[] = [
    ...(p.reorder ? [{
      label: 'Move', width: 2.5, hiddenLabel: true, cellClass: () => 'handle-col', cell: (m: Rule) => (
        <button type="button" class="handle" draggable={!lockedBy.value} {...lockAttrs()} data-handle={m.id} aria-label={`Move ${def.noun} ${m.id}`} aria-describedby={`${p.kind}-move-help`}
          onDragStart={(e) => { setDragging(m.id); e.dataTransfer?.setData('text/plain', String(m.id)); if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move'; }}
          onDragEnd={() => { setDragging(null); setDropAt(null); }}
          onKeyDown={(e) => keyMove(e, m.id)}>⠿</button>
      ),
    }] : []),
    ...(p.shown.has('#') ? [{ label: '#', width: 5, num: true, sort: { active: p.sortCol < 0, dir: 1 as const, onSort: () => p.onSort(-1) }, cell: (_m: Rule, index: number) => index + 1 }] : []),
    // 5 rem: a six-digit id whole (issue 43: "19..." at 1920)
    { label: 'Id', width: 5.5, num: true, rowHeader: true, cell: (m) => m.id },
    ...p.columns.flatMap((c, i): VColumn<Rule>[] => (c.optional && !p.shown.has(c.label) ? [] : [{
      label: c.label, width: c.width, min: c.min, text: c.text,
      cellClass: c.label === 'Action' || c.label === 'Type' ? (m) => `action-${c.text(m)}` : undefined,
      sort: { active: p.sortCol === i, dir: p.sortDir, onSort: () => p.onSort(i) },
    }])),
    ...(p.shown.has('Hits') ? [{
      label: 'Hits', width: 6, num: true, title: (m: Rule) => { const h = p.hits.get(m.id); return h ? `${h.bytes} bytes` : undefined; },
      cell: (m: Rule) => { const h = p.hits.get(m.id); return h ? h.packets.toLocaleString() : '–'; },
    }] : []),
    ...(p.shown.has('Last hit') ? [{
      label: 'Last hit', width: 7.5, title: (m: Rule) => p.times?.get(m.id)?.lastHitAt ?? undefined,
      cell: (m: Rule) => { const t = p.times?.get(m.id); return t ? ago(t.lastHitAt, Date.now()) : '–'; },
    }] : []),
    {
      label: 'Analysis', width: p.kind === 'nat' ? 13 : 14, sticky: true, cellClass: () => 'badges', title: (m) => (p.badges.get(m.id) ?? []).map((b) => b.title ? `${b.kind}: ${b.title}` : b.text).join('; ') || undefined,
      cell: (m) => (p.badges.get(m.id) ?? []).map((x) => <span key={x.kind} class={`badge badge-${x.kind}${p.badgesPending ? ' badge-pending' : ''}`} title={p.badgesPending ? 'recomputing: this may no longer hold' : undefined}>{x.text}</span>),
    },
    ...(p.mayChange ? [{
      ...ACTIONS, cell: (m: Rule) => (
        <RowActions>
          <button type="button" {...lockAttrs()} onClick={() => p.onEdit(m)} aria-label={`Edit ${def.noun} ${m.id}`}>Edit</button>
          <button type="button" class="danger" {...lockAttrs()} onClick={() => p.onDelete(m.id)} aria-label={`Delete ${def.noun} ${m.id}`}>Delete</button>
        </RowActions>
      ),
    }] : []),
  ];

  return (
    <VirtualTable label={`${def.title} table`} caption={`${def.title} in evaluation order`} class="rules" scroller={scroller}
      rows={p.rows} columns={cols} keyOf={(m) => String(m.id)}
      rowProps={(m) => {
        const isTraced = p.tracedId === m.id;
        const cls = [isTraced ? 'traced' : '', m.disabled ? 'rule-disabled' : '', dragging === m.id ? 'dragging' : '', dropAt?.id === m.id ? `drop-${dropAt.where}` : ''].filter(Boolean).join(' ');
        return {
          'data-id': m.id, class: cls || undefined, 'aria-current': isTraced ? 'true' : undefined,
          onDragOver: (e: DragEvent) => onDragOver(e, m.id), onDrop: (e: DragEvent) => onDrop(e, m.id),
        } as never;
      }}
      empty={`No ${p.kind === 'nat' ? 'NAT rules' : 'policies'} to show.`} />
  );
}
