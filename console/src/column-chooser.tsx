// Which of a table's optional columns are shown, chosen by the user and kept per user and table
// in the browser (localStorage: a layout preference, never a secret). At 1280x800 the rule
// tables show what one reads a rule by (id, name, action, zones, addresses, services, the
// analysis) without scrolling sideways; the rest (position, log, tags, hits...) is one click
// away, and the chooser's label says how many more there are (issue 43: a sticky Analysis
// column covered five columns and nothing said they existed).
import { useState } from 'preact/hooks';
import { login } from './api';

const keyOf = (table: string) => `fwd.columns.${login.value?.username ?? ''}.${table}`;

/** The optional columns shown: the stored choice, else `defaults`. */
export function useColumnChoice(table: string, optional: readonly string[], defaults: readonly string[]) {
  const [shown, setShown] = useState<Set<string>>(() => {
    try {
      const stored = JSON.parse(localStorage.getItem(keyOf(table)) ?? 'null') as unknown;
      if (Array.isArray(stored)) return new Set(stored.filter((x): x is string => typeof x === 'string' && optional.includes(x)));
    } catch {
      // a damaged entry: the defaults
    }
    return new Set(defaults);
  });
  const toggle = (label: string, on: boolean) => {
    const next = new Set(shown);
    if (on) next.add(label);
    else next.delete(label);
    setShown(next);
    localStorage.setItem(keyOf(table), JSON.stringify([...next]));
  };
  return { shown, toggle, optional };
}

/** "Columns (6 more)": a disclosure with a checkbox per optional column. */
export function ColumnChooser(p: { choice: ReturnType<typeof useColumnChoice> }) {
  const { shown, toggle, optional } = p.choice;
  const hidden = optional.filter((c) => !shown.has(c)).length;
  return (
    <details class="column-chooser">
      <summary>Columns{hidden > 0 ? ` (${hidden} more)` : ''}</summary>
      <fieldset>
        <legend class="sr-only">Optional columns</legend>
        {optional.map((c) => (
          <label key={c}><input type="checkbox" checked={shown.has(c)} onChange={(e) => toggle(c, (e.target as HTMLInputElement).checked)} /> {c}</label>
        ))}
      </fieldset>
    </details>
  );
}
