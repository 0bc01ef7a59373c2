// Filter and sort of any table: one text filter over every column's text, one sort column.
// Nothing is computed per row until a filter or a sort asks for it: the first view of 20,000
// rules renders the visible rows' cells only.
import { useMemo, useState } from 'preact/hooks';
import type { Column } from './resources';
import { Field } from './ui';

export interface Sorting {
  col: number; // -1: the API's order (evaluation order for rules)
  dir: 1 | -1;
}

export function useSortFilter<M extends object>(rows: M[] | null, columns: Column<M>[], extra?: (m: M) => string, initialFilter = '') {
  const [filter, setFilter] = useState(initialFilter);
  const [sort, setSort] = useState<Sorting>({ col: -1, dir: 1 });
  // each row's searchable text, made the first time a filter needs it, kept for the data
  const texts = useMemo(() => new WeakMap<M, string>(), [rows]);
  const textOf = (m: M): string => {
    let t = texts.get(m);
    if (t === undefined) {
      t = (columns.map((c) => c.text(m)).join(' ') + ' ' + (extra ? extra(m) : '')).toLowerCase();
      texts.set(m, t);
    }
    return t;
  };
  const shown = useMemo(() => {
    const all = rows ?? [];
    const needle = filter.trim().toLowerCase();
    if (!needle && sort.col < 0) return all;
    let out = needle ? all.filter((m) => textOf(m).includes(needle)) : all.slice();
    if (sort.col >= 0) {
      const col = columns[sort.col];
      const cmp = new Intl.Collator(undefined, { numeric: true }).compare;
      const keyed = out.map((m) => ({ m, k: col.text(m) }));
      keyed.sort((a, b) => sort.dir * cmp(a.k, b.k));
      out = keyed.map((x) => x.m);
    }
    return out;
  }, [rows, filter, sort, extra]);
  const toggle = (col: number) => setSort(sort.col === col ? { col, dir: sort.dir === 1 ? -1 : 1 } : { col, dir: 1 });
  return { filter, setFilter, sort, setSort, toggle, shown };
}

export function FilterBox(p: { value: string; onInput: (v: string) => void; label?: string }) {
  return <Field label={p.label ?? 'Filter'} type="search" value={p.value} onInput={p.onInput} />;
}
