// Small pieces every page uses: links that stay in the page, labelled fields that show the
// API's error at the field it names, and data loading that follows the live revision.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';
import { navigate, revision, say } from './state';

export function Link(props: { href: string; children: ComponentChildren; class?: string; current?: boolean }) {
  const onClick = (e: MouseEvent) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} class={props.class} aria-current={props.current ? 'page' : undefined} onClick={onClick}>
      {props.children}
    </a>
  );
}

let fieldIds = 0;
/** A unique id per mounted field, so that each label names its control. */
export function useId(prefix: string): string {
  const [id] = useState(() => `${prefix}-${++fieldIds}`);
  return id;
}

export interface FieldProps {
  label: string;
  value: string;
  onInput: (v: string) => void;
  error?: string | null;
  type?: string;
  options?: readonly string[];
  hint?: string;
  required?: boolean;
  autoComplete?: string;
  /** the id of a datalist of suggestions */
  list?: string;
  readOnly?: boolean;
}

/** A labelled input (or select); the API's complaint about this field below it. */
export function Field(p: FieldProps) {
  const id = useId('f');
  const errId = `${id}-err`;
  const hintId = `${id}-hint`;
  const described = [p.error ? errId : '', p.hint ? hintId : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id, 'aria-invalid': p.error ? ('true' as const) : undefined, 'aria-describedby': described, required: p.required,
  };
  const control = p.options ? (
    <select {...common} value={p.value} onChange={(e) => p.onInput((e.target as HTMLSelectElement).value)}>
      {p.options.map((o) => <option key={o} value={o}>{o === '' ? '(any)' : o}</option>)}
    </select>
  ) : (
    <input {...common} type={(p.type ?? 'text') as 'text'} value={p.value} autoComplete={p.autoComplete} list={p.list} readOnly={p.readOnly}
      onInput={(e) => p.onInput((e.target as HTMLInputElement).value)} />
  );
  return (
    <div class={p.error ? 'field invalid' : 'field'}>
      <label for={id}>{p.label}</label>
      {control}
      {p.hint && <small id={hintId}>{p.hint}</small>}
      {p.error && <span class="field-error" id={errId} role="alert">{p.error}</span>}
    </div>
  );
}

export function Checkbox(p: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  const id = useId('c');
  return (
    <div class="field check">
      <input id={id} type="checkbox" checked={p.checked} onChange={(e) => p.onChange((e.target as HTMLInputElement).checked)} />
      <label for={id}>{p.label}</label>
    </div>
  );
}

/**
 * What an error from the API tells a person: its message and details in words first, the
 * contract's code after them in brackets, for a report or a search (issue 43: "ERR_SEC_5005:
 * invalid credentials" led with the code); 403 plainly.
 */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 403) return `Not allowed for your role (403): ${e.body.details || e.body.message}`;
    const words = e.message ? e.message[0].toUpperCase() + e.message.slice(1) : `Request failed (${e.status})`;
    return e.body.code ? `${words} (${e.body.code})` : words;
  }
  return String((e as Error)?.message ?? e);
}

/** Runs an action; its failure shown as the page's notice. Resolves to whether it worked. */
export async function attempt(action: () => Promise<unknown>, done?: string): Promise<boolean> {
  try {
    await action();
    if (done) say(done);
    return true;
  } catch (e) {
    say(describeError(e), 'error');
    return false;
  }
}

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
}

/** Data for a page, loaded again when `deps` or the live revision change. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [n, setN] = useState(0);
  const rev = revision.value;
  useEffect(() => {
    let live = true;
    load().then(
      (d) => { if (live) { setData(d); setError(null); } },
      (e: unknown) => { if (live) setError(describeError(e)); },
    );
    return () => { live = false; };
  }, [...deps, rev, n]);
  return { data, error, reload: () => setN((x) => x + 1) };
}

export function Page(p: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${p.title} · fwd console`;
  }, [p.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title" tabIndex={-1}>{p.title}</h1>
        <div class="actions">{p.actions}</div>
      </header>
      {p.children}
    </section>
  );
}

/** A column header that sorts: a button inside the th, aria-sort on the th. */
export function SortHeader(p: { label: string; active: boolean; dir: 1 | -1; onSort: () => void; class?: string }) {
  const { label, active, dir, onSort, ...rest } = p;
  return (
    <th scope="col" aria-sort={active ? (dir === 1 ? 'ascending' : 'descending') : 'none'} {...rest}>
      <button type="button" class="sort" onClick={onSort}>{label}{active ? (dir === 1 ? ' ▲' : ' ▼') : ''}</button>
    </th>
  );
}

export function ErrorBox(p: { text: string | null }) {
  return p.text ? <p class="error" role="alert">{p.text}</p> : null;
}

/**
 * Back and forth through pages that the API chains by a token (`next`): `stack` holds the
 * token of every page after the first; the labels name the direction (Older/Newer, Next/Previous).
 */
export function Pager<T>(p: { stack: T[]; setStack: (s: T[]) => void; next: T | null | undefined; back: string; forward: string }) {
  return (
    <div class="buttons">
      {p.stack.length > 0 && <button type="button" onClick={() => p.setStack(p.stack.slice(0, -1))}>{p.back}</button>}
      {p.next != null && <button type="button" onClick={() => p.setStack([...p.stack, p.next!])}>{p.forward}</button>}
    </div>
  );
}
