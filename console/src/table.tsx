// Filter and sort of any table: one text filter over every column's text, one sort column.
import { useMemo, useState } from 'preact/hooks';
import type { Column } from './resources';
import { Field } from './ui';

export interface Sorting {
  col: number; // -1: the API's order (evaluation order for rules)
  dir: 1 | -1;
}

export function useSortFilter<M>(rows: M[] | null, columns: Column<M>[], extra?: (m: M) => string) {
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<Sorting>({ col: -1, dir: 1 });
  // each row's text once per data: filtering 20,000 rules is a substring test per row
  const texts = useMemo(() => (rows ?? []).map((m) => {
    const cells = columns.map((c) => c.text(m));
    return { m, cells, all: (cells.join(' ') + ' ' + (extra ? extra(m) : '')).toLowerCase() };
  }), [rows]);
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    let out = needle ? texts.filter((t) => t.all.includes(needle)) : texts.slice();
    if (sort.col >= 0) {
      const c = sort.col;
      const cmp = new Intl.Collator(undefined, { numeric: true }).compare;
      out = out.sort((a, b) => sort.dir * cmp(a.cells[c], b.cells[c]));
    }
    return out;
  }, [texts, filter, sort]);
  const toggle = (col: number) => setSort(sort.col === col ? { col, dir: sort.dir === 1 ? -1 : 1 } : { col, dir: 1 });
  return { filter, setFilter, sort, setSort, toggle, shown };
}

export function FilterBox(p: { value: string; onInput: (v: string) => void; label?: string }) {
  return <Field label={p.label ?? 'Filter'} type="search" value={p.value} onInput={p.onInput} />;
}
