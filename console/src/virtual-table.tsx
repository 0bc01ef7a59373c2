// The one table of every list page: only the rows in view (and OVERSCAN above and below) are
// in the DOM, between two spacer rows that keep the scroll height, so 300 addresses or 20,000
// rules cost the same ~30 rows. Every column has a fixed width (a <colgroup> under
// `table-layout: fixed`), so the widths never follow the rows that happen to be in view while
// scrolling; flexible columns share what is left and below their minimum the table scrolls
// sideways inside its region, never the page. Screen readers still get the table's size
// (aria-rowcount) and each row's place (aria-rowindex).
import type { ComponentChildren, HTMLAttributes, Ref } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/** One row's height in pixels (style.css --row): the window of rows is computed from it. */
export const ROW_HEIGHT = 36;
const OVERSCAN = 10;
/** The least width of a column without one of its own (rem). */
const FLEX_MIN_REM = 7.5;
/** The Actions column: Edit and Delete whole at any window width (rem). */
export const ACTIONS_WIDTH = 9;
/** The Actions column of any table: fixed width, kept in view when the table scrolls sideways. */
export const ACTIONS = { label: 'Actions', width: ACTIONS_WIDTH, sticky: true } as const;

export interface VColumn<R> {
  label: string;
  /** a fixed width in rem; absent: shares the width left over (at least `min` or FLEX_MIN_REM) */
  width?: number;
  /** a flexible column's least width in rem */
  min?: number;
  num?: boolean;
  /** the header only for screen readers (the drag handle's column) */
  hiddenLabel?: boolean;
  /** a sortable header: a button in the th, aria-sort on it */
  sort?: { active: boolean; dir: 1 | -1; onSort: () => void };
  /** the cell is the row's header (th scope="row") */
  rowHeader?: boolean;
  cell?: (r: R, index: number) => ComponentChildren;
  /** a plain-text cell: its text is also its title (the whole of a cut value), computed once */
  text?: (r: R) => string;
  cellClass?: (r: R) => string | undefined;
  title?: (r: R) => string | undefined;
  /** kept at the right edge when the table scrolls sideways (the analysis, row actions): only the last columns */
  sticky?: boolean;
}

export interface VirtualTableProps<R> {
  /** the scrolling region's name ("Addresses table") */
  label: string;
  caption: string;
  rows: R[];
  columns: VColumn<R>[];
  /** each row's data-key: the object's name or id */
  keyOf: (r: R) => string;
  /** more attributes of a row (class, data-id, aria-current, drag and drop handlers) */
  rowProps?: (r: R, index: number) => HTMLAttributes<HTMLTableRowElement>;
  /** shown under the header when there are no rows */
  empty?: ComponentChildren;
  class?: string;
  scroller?: Ref<HTMLDivElement>;
}

/** The first row in view and the region's height, following scrolling and resizing. */
function useRowWindow(el: { current: HTMLDivElement | null }, count: number) {
  // the window moves by whole rows: the table re-renders once per row scrolled, not per pixel
  const [topRow, setTopRow] = useState(0);
  const [height, setHeight] = useState(600);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const node = el.current!;
    const resize = () => { setHeight(node.clientHeight); setWidth(node.clientWidth); };
    resize();
    const ro = new ResizeObserver(resize);
    ro.observe(node);
    return () => ro.disconnect();
  }, []);
  // fewer rows (a filter typed while scrolled down): the scroll position and the window are
  // brought within the new rows, as the browser would clamp a shorter page; else the window
  // stayed past the end and the table showed nothing
  useLayoutEffect(() => {
    const node = el.current;
    if (!node) return;
    const max = Math.max(0, count * ROW_HEIGHT + ROW_HEIGHT - node.clientHeight);
    if (node.scrollTop > max) node.scrollTop = max;
    setTopRow(Math.floor(node.scrollTop / ROW_HEIGHT));
  }, [count]);
  const onScroll = (e: Event) => setTopRow(Math.floor((e.currentTarget as HTMLDivElement).scrollTop / ROW_HEIGHT));
  const first = Math.max(0, topRow - OVERSCAN);
  const last = Math.min(count, topRow + Math.ceil(height / ROW_HEIGHT) + 1 + OVERSCAN);
  return { first, last, onScroll, width };
}

/** Brings row `index` of the region into view (a traced rule, a moved one). */
export function scrollRowIntoView(el: HTMLDivElement, index: number): void {
  const top = index * ROW_HEIGHT; // the header row takes the first ROW_HEIGHT
  if (top < el.scrollTop || top + 2 * ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = Math.max(0, top - 3 * ROW_HEIGHT);
}

export function VirtualTable<R>(p: VirtualTableProps<R>) {
  const own = useRef<HTMLDivElement>(null);
  const el = (p.scroller as { current: HTMLDivElement | null } | undefined) ?? own;
  const { first, last, onScroll, width } = useRowWindow(el, p.rows.length);
  const least = p.columns.reduce((s, c) => s + (c.width ?? c.min ?? FLEX_MIN_REM), 0);
  const minWidth = `${least}rem`;
  // the flexible columns share what the fixed ones leave in proportion to their least widths
  // (equal shares gave "Destination" less than its header needs while "Name" had room to spare)
  const fixed = p.columns.reduce((s, c) => s + (c.width ?? 0), 0);
  const flexTotal = least - fixed;
  const remPx = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const spare = Math.max(flexTotal, width / remPx - fixed);
  const widthOf = (c: VColumn<R>) => (c.width !== undefined ? `${c.width}rem` : width > 0 ? `${(((c.min ?? FLEX_MIN_REM) / flexTotal) * spare).toFixed(3)}rem` : undefined);
  const span = p.columns.length;
  // sticky columns (the last ones) keep their place at the right edge, each left of those after it
  const stickAt = new Map<string, string>();
  let right = 0;
  for (const c of [...p.columns].reverse()) {
    if (!c.sticky) break;
    stickAt.set(c.label, `${right}rem`);
    right += c.width ?? 0;
  }
  const stick = (c: VColumn<R>) => (stickAt.has(c.label) ? { right: stickAt.get(c.label) } : undefined);
  // a short table is as tall as its rows; a long one fills the page (style.css .page > .scroller)
  const lowest = `${Math.min(p.rows.length + 1, 6) * ROW_HEIGHT + 2}px`;
  return (
    <div class="scroller" ref={el as Ref<HTMLDivElement>} onScroll={onScroll} tabIndex={0} role="region" aria-label={p.label} style={{ minHeight: lowest }}>
      <table class={`grid virtual ${p.class ?? ''}`} aria-rowcount={p.rows.length + 1} style={{ minWidth }}>
        <caption class="sr-only">{p.caption}</caption>
        <colgroup>{p.columns.map((c) => <col key={c.label} style={widthOf(c) === undefined ? undefined : { width: widthOf(c) }} />)}</colgroup>
        <thead>
          <tr aria-rowindex={1}>
            {p.columns.map((c) => (
              <th key={c.label} scope="col" class={[c.num ? 'num' : '', c.sticky ? 'sticky-end' : ''].filter(Boolean).join(' ') || undefined} style={stick(c)}
                aria-sort={c.sort ? (c.sort.active ? (c.sort.dir === 1 ? 'ascending' : 'descending') : 'none') : undefined}>
                {c.hiddenLabel ? <span class="sr-only">{c.label}</span>
                  : c.sort ? <button type="button" class="sort" onClick={c.sort.onSort}>{c.label}{c.sort.active ? (c.sort.dir === 1 ? ' ▲' : ' ▼') : ''}</button>
                  : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {first > 0 && <tr class="spacer" aria-hidden="true" style={{ height: `${first * ROW_HEIGHT}px` }}><td colSpan={span} /></tr>}
          {p.rows.slice(first, last).map((r, j) => {
            const index = first + j;
            return (
              // keyed by its place in the window: scrolling patches the rows' text in place
              // instead of building new rows (a whole new window each frame at scrollbar speed)
              <tr key={j} data-key={p.keyOf(r)} aria-rowindex={index + 2} {...(p.rowProps ? p.rowProps(r, index) : {})}>
                {p.columns.map((c) => {
                  const cls = [c.num ? 'num' : '', c.sticky ? 'sticky-end' : '', c.cellClass?.(r) ?? ''].filter(Boolean).join(' ') || undefined;
                  const text = c.text?.(r);
                  const content = text ?? c.cell?.(r, index);
                  const title = text !== undefined ? text || undefined : c.title?.(r);
                  return c.rowHeader
                    ? <th key={c.label} scope="row" class={cls} title={title} style={stick(c)}>{content}</th>
                    : <td key={c.label} class={cls} title={title} style={stick(c)}>{content}</td>;
                })}
              </tr>
            );
          })}
          {last < p.rows.length && <tr class="spacer" aria-hidden="true" style={{ height: `${(p.rows.length - last) * ROW_HEIGHT}px` }}><td colSpan={span} /></tr>}
        </tbody>
      </table>
      {p.rows.length === 0 && p.empty && <p class="empty">{p.empty}</p>}
    </div>
  );
}

/** Edit and Delete (or any buttons) of a row, in a box inside the cell: a flex td is no table cell. */
export function RowActions(p: { children: ComponentChildren }) {
  return <div class="row-actions">{p.children}</div>;
}
