// The ordered rule tables (policies, NAT) in evaluation order: hit counters, the analysis as
// badges naming the covering rules, reordering by drag and drop or by keyboard (the move
// API), and only the visible rows in the DOM, so that 20,000 rules scroll smoothly.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { removeObject, ResourceForm } from './form';
import { RESOURCE_DEFS } from './resources';
import { allowed, ensureSession, refreshStatus, route, traced, view } from './state';
import { FilterBox, useSortFilter } from './table';
import type { Analysis, Move, NatModel, PolicyModel } from './types';
import { attempt, ErrorBox, Field, Page, SortHeader, useLoad } from './ui';
import { ViewSwitch } from './view-switch';

type Kind = 'policies' | 'nat';
type Rule = PolicyModel | NatModel;
type Hits = { packets: number; bytes: number } | null;

/** One row's height in pixels (style.css .rules tr): the window of rows is computed from it. */
export const ROW_HEIGHT = 36;
const OVERSCAN = 10;

export interface Badge {
  kind: 'shadowed' | 'redundant' | 'partial' | 'never-hit' | 'unreachable';
  text: string;
}

/** The analysis as badges per rule id. */
export function badgesOf(kind: Kind, a: Analysis | null): Map<number, Badge[]> {
  const out = new Map<number, Badge[]>();
  if (!a) return out;
  const add = (id: number, b: Badge) => out.set(id, [...(out.get(id) ?? []), b]);
  if (kind === 'nat') {
    for (const u of a.unreachableNat) add(u.id, { kind: 'unreachable', text: `unreachable: covered by ${u.coveredBy.join(', ')}` });
    return out;
  }
  for (const s of a.shadowed) add(s.id, { kind: 'shadowed', text: `shadowed by ${s.coveredBy.join(', ')}` });
  for (const r of a.redundant) add(r.id, { kind: 'redundant', text: `redundant: covered by ${r.coveredBy.join(', ')}` });
  for (const p of a.partiallyShadowed) add(p.id, { kind: 'partial', text: `partially shadowed by ${p.by}` });
  for (const id of a.neverHit ?? []) add(id, { kind: 'never-hit', text: 'never hit' });
  return out;
}

const SHOW = ['all', 'shadowed', 'redundant', 'partial', 'never-hit', 'unreachable'] as const;
const SHOW_LABEL: Record<(typeof SHOW)[number], string> = {
  all: 'all rules', shadowed: 'shadowed', redundant: 'redundant', partial: 'partially shadowed', 'never-hit': 'never hit', unreachable: 'unreachable',
};

interface Data {
  rules: Rule[];
  hits: Map<number, Hits>;
  analysis: Analysis | null;
}

async function loadRules(kind: Kind, which: 'running' | 'candidate'): Promise<Data> {
  const def = RESOURCE_DEFS[kind];
  const q = which === 'candidate' ? '?config=candidate' : '';
  // counters are the kernel's, for the running version; a candidate rule shows its running count
  const [rules, stats, analysis] = await Promise.all([
    kind === 'policies' && which === 'running' ? api<(PolicyModel & { hits?: Hits })[]>('GET', `${def.path}?stats=true`) : api<Rule[]>('GET', def.path + q),
    kind === 'policies' && which === 'candidate' ? api<(PolicyModel & { hits?: Hits })[]>('GET', `${def.path}?stats=true`) : Promise.resolve(null),
    api<Analysis>('GET', `/api/analysis${q}`).catch(() => null),
  ]);
  const hits = new Map<number, Hits>();
  for (const r of (stats ?? rules) as (Rule & { hits?: Hits })[]) if (r.hits !== undefined) hits.set(r.id, r.hits);
  return { rules, hits, analysis };
}

export function RulesPage({ kind }: { kind: Kind }) {
  const def = RESOURCE_DEFS[kind];
  const which = view.value;
  const loaded = useLoad(() => loadRules(kind, which), [kind, which]);
  const badges = useMemo(() => badgesOf(kind, loaded.data?.analysis ?? null), [loaded.data]);
  const columns = def.columns as { label: string; text: (m: Rule) => string }[];
  const badgeText = useMemo(() => (m: Rule) => `#${m.id} ` + (badges.get(m.id) ?? []).map((b) => b.text).join(' '), [badges]);
  const query = new URLSearchParams(route.value.split('?')[1] ?? '');
  // ?filter=: a link to rules (the warning panel's "#2001 ")
  const t = useSortFilter(loaded.data?.rules ?? null, columns, badgeText, query.get('filter') ?? '');
  const initialShow = query.get('show');
  const [show, setShow] = useState<(typeof SHOW)[number]>(SHOW.includes(initialShow as never) ? (initialShow as (typeof SHOW)[number]) : 'all');
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [announce, setAnnounce] = useState('');
  const mayChange = allowed('configure');
  const rows = useMemo(() => (show === 'all' ? t.shown : t.shown.filter((r) => badges.get(r.id)?.some((b) => b.kind === show))), [t.shown, show, badges]);
  const inOrder = t.sort.col < 0;
  const tracedId = kind === 'policies' ? traced.value.policy : traced.value.nat;
  const focusAfter = useRef<number | null>(null);
  // the first frame that shows the loaded rules, for bench/console.ts (a User Timing mark)
  useEffect(() => {
    if (loaded.data) requestAnimationFrame(() => performance.mark(`fwd:${kind}-shown`));
  }, [loaded.data]);

  const move = async (id: number, body: Move, said: string) => {
    const ok = await attempt(async () => {
      await ensureSession();
      await api('POST', `${def.path}/${id}/move`, body);
    });
    if (!ok) return;
    focusAfter.current = id;
    setAnnounce(said);
    void refreshStatus();
    loaded.reload();
  };

  const remove = (id: number) => removeObject(def as never, String(id), loaded.reload);

  // the shown rules (filter, "Show") switched on or off in one batch: one change of the session
  const switchShown = async (disabled: boolean) => {
    const ids = rows.filter((r) => (r.disabled ?? false) !== disabled).map((r) => r.id);
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
      {mayChange && <button type="button" class="primary" onClick={() => setEditing('new')}>New {def.noun}</button>}
    </>}>
      {editing && (
        <ResourceForm key={editing === 'new' ? 'new' : editing.id} def={def as never} editing={editing === 'new' ? null : (editing as never)}
          placeAmong={loaded.data?.rules.map((r) => r.id) ?? []}
          onDone={(changed) => { setEditing(null); if (changed) loaded.reload(); }} />
      )}
      <ErrorBox text={loaded.error} />
      <div class="toolbar">
        <FilterBox value={t.filter} onInput={t.setFilter} />
        <Field label="Show" value={show} options={SHOW.filter((s) => (kind === 'nat' ? s === 'all' || s === 'unreachable' : s !== 'unreachable'))}
          onInput={(v) => setShow(v as typeof show)} />
        <span class="count">{rows.length} of {loaded.data?.rules.length ?? 0} in evaluation order{show !== 'all' ? `, ${SHOW_LABEL[show]} only` : ''}</span>
        {!inOrder && <button type="button" onClick={() => t.setSort({ col: -1, dir: 1 })}>Back to evaluation order</button>}
        {mayChange && rows.length > 0 && <>
          <button type="button" onClick={() => void switchShown(true)}>Disable shown</button>
          <button type="button" onClick={() => void switchShown(false)}>Enable shown</button>
        </>}
      </div>
      {mayChange && <p class="help" id={`${kind}-move-help`}>Reorder: drag a row by its handle, or focus the handle and press Arrow Up or Arrow Down (Home, End: to the top, the bottom).{inOrder ? '' : ' Sorted by a column: reordering is off.'}</p>}
      <p class="sr-only" role="status" aria-live="polite">{announce}</p>
      <VirtualRules kind={kind} rows={rows} columns={columns} hits={loaded.data?.hits ?? new Map()} badges={badges}
        sortCol={t.sort.col} sortDir={t.sort.dir} onSort={t.toggle} reorder={mayChange && inOrder} tracedId={tracedId}
        focusAfter={focusAfter} onMove={move} onEdit={(r) => setEditing(r)} onDelete={remove} mayChange={mayChange} />
    </Page>
  );
}

interface VirtualProps {
  kind: Kind;
  rows: Rule[];
  columns: { label: string; text: (m: Rule) => string }[];
  hits: Map<number, Hits>;
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
}

function VirtualRules(p: VirtualProps) {
  const def = RESOURCE_DEFS[p.kind];
  const scroller = useRef<HTMLDivElement>(null);
  // the first row in view: the table re-renders when the window moves by a row, not per pixel
  const [topRow, setTopRow] = useState(0);
  const [height, setHeight] = useState(600);
  const [dragging, setDragging] = useState<number | null>(null);
  const [dropAt, setDropAt] = useState<{ id: number; where: 'before' | 'after' } | null>(null);

  useLayoutEffect(() => {
    const el = scroller.current!;
    const resize = () => setHeight(el.clientHeight);
    resize();
    const ro = new ResizeObserver(resize);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // fewer rows (a filter typed while scrolled down): the scroll position and the window are
  // brought within the new rows, as the browser would clamp a shorter page; else the window
  // stayed past the end and the table showed nothing
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const max = Math.max(0, p.rows.length * ROW_HEIGHT + ROW_HEIGHT - el.clientHeight);
    if (el.scrollTop > max) el.scrollTop = max;
    setTopRow(Math.floor(el.scrollTop / ROW_HEIGHT));
  }, [p.rows.length]);

  // a traced rule is scrolled into the window
  useEffect(() => {
    if (p.tracedId === null) return;
    const i = p.rows.findIndex((r) => r.id === p.tracedId);
    if (i >= 0 && scroller.current) scroller.current.scrollTop = Math.max(0, i * ROW_HEIGHT - 2 * ROW_HEIGHT);
  }, [p.tracedId, p.rows.length > 0]);

  // after a keyboard move, the moved rule's handle keeps the focus (and is scrolled to)
  useEffect(() => {
    const id = p.focusAfter.current;
    if (id === null) return;
    const i = p.rows.findIndex((r) => r.id === id);
    if (i < 0) return;
    const el = scroller.current!;
    if (i * ROW_HEIGHT < el.scrollTop || (i + 1) * ROW_HEIGHT > el.scrollTop + el.clientHeight - ROW_HEIGHT) el.scrollTop = Math.max(0, (i - 3) * ROW_HEIGHT);
    requestAnimationFrame(() => {
      el.querySelector<HTMLButtonElement>(`button[data-handle="${id}"]`)?.focus();
      p.focusAfter.current = null;
    });
  }, [p.rows]);

  const first = Math.max(0, topRow - OVERSCAN);
  const last = Math.min(p.rows.length, topRow + Math.ceil(height / ROW_HEIGHT) + 1 + OVERSCAN);
  const visible = p.rows.slice(first, last);
  const total = p.columns.length + 5 + (p.mayChange ? 1 : 0);

  const keyMove = (e: KeyboardEvent, index: number, id: number) => {
    const rows = p.rows;
    const noun = def.noun;
    let body: Move | null = null;
    let to = index;
    if (e.key === 'ArrowUp' && index > 0) { body = { position: 'before', reference_id: rows[index - 1].id }; to = index - 1; }
    else if (e.key === 'ArrowDown' && index < rows.length - 1) { body = { position: 'after', reference_id: rows[index + 1].id }; to = index + 1; }
    else if (e.key === 'Home' && index > 0) { body = { position: 'top' }; to = 0; }
    else if (e.key === 'End' && index < rows.length - 1) { body = { position: 'bottom' }; to = rows.length - 1; }
    if (!body) return;
    e.preventDefault();
    p.onMove(id, body, `${noun} ${id} moved to position ${to + 1}`);
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

  return (
    <div class="scroller" ref={scroller} onScroll={(e) => setTopRow(Math.floor((e.currentTarget as HTMLDivElement).scrollTop / ROW_HEIGHT))}
      tabIndex={0} role="region" aria-label={`${def.title} table`}>
      <table class="grid rules" aria-rowcount={p.rows.length + 1}>
        <caption class="sr-only">{def.title} in evaluation order</caption>
        <thead>
          <tr aria-rowindex={1}>
            {p.reorder && <th scope="col" class="handle-col"><span class="sr-only">Move</span></th>}
            <SortHeader label="#" active={p.sortCol < 0} dir={1} onSort={() => p.onSort(-1)} class="num" />
            <th scope="col" class="num">Id</th>
            {p.columns.map((c, i) => <SortHeader key={c.label} label={c.label} active={p.sortCol === i} dir={p.sortDir} onSort={() => p.onSort(i)} />)}
            <th scope="col" class="num">Hits</th>
            <th scope="col">Analysis</th>
            {p.mayChange && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {first > 0 && <tr class="spacer" aria-hidden="true" style={{ height: `${first * ROW_HEIGHT}px` }}><td colSpan={total} /></tr>}
          {visible.map((m, j) => {
            const index = first + j;
            const cells = p.columns.map((c) => c.text(m));
            const b = p.badges.get(m.id) ?? [];
            const h = p.hits.get(m.id);
            const isTraced = p.tracedId === m.id;
            const cls = [isTraced ? 'traced' : '', dragging === m.id ? 'dragging' : '', dropAt?.id === m.id ? `drop-${dropAt.where}` : ''].filter(Boolean).join(' ');
            return (
              // keyed by its place in the window: scrolling patches the rows' text in place
              // instead of building new rows (a whole new window each frame at scrollbar speed)
              <tr key={j} data-id={m.id} class={cls || undefined} aria-rowindex={index + 2} aria-current={isTraced ? 'true' : undefined}
                onDragOver={(e) => onDragOver(e, m.id)} onDrop={(e) => onDrop(e, m.id)}>
                {p.reorder && (
                  <td class="handle-col">
                    <button type="button" class="handle" draggable data-handle={m.id} aria-label={`Move ${def.noun} ${m.id}`}
                      aria-describedby={`${p.kind}-move-help`}
                      onDragStart={(e) => { setDragging(m.id); e.dataTransfer?.setData('text/plain', String(m.id)); if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move'; }}
                      onDragEnd={() => { setDragging(null); setDropAt(null); }}
                      onKeyDown={(e) => keyMove(e, index, m.id)}>⠿</button>
                  </td>
                )}
                <td class="num">{index + 1}</td>
                <th scope="row" class="num">{m.id}</th>
                {cells.map((c, i) => <td key={i} class={i === 0 ? `action-${c}` : undefined}>{c}</td>)}
                <td class="num" title={h ? `${h.bytes} bytes` : undefined}>{h ? h.packets.toLocaleString() : '–'}</td>
                <td class="badges">{b.map((x) => <span key={x.kind} class={`badge badge-${x.kind}`}>{x.text}</span>)}</td>
                {p.mayChange && (
                  <td class="row-actions">
                    <button type="button" onClick={() => p.onEdit(m)} aria-label={`Edit ${def.noun} ${m.id}`}>Edit</button>
                    <button type="button" class="danger" onClick={() => p.onDelete(m.id)} aria-label={`Delete ${def.noun} ${m.id}`}>Delete</button>
                  </td>
                )}
              </tr>
            );
          })}
          {last < p.rows.length && <tr class="spacer" aria-hidden="true" style={{ height: `${(p.rows.length - last) * ROW_HEIGHT}px` }}><td colSpan={total} /></tr>}
        </tbody>
      </table>
      {p.rows.length === 0 && <p class="empty">No {def.title === 'NAT' ? 'NAT rules' : 'policies'} to show.</p>}
    </div>
  );
}
