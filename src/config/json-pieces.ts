// A large JSON document crossing from the parse thread to the HTTP thread in pieces (issue 38,
// item 2). JSON.parse of a 15 MB load held the HTTP thread 0.35-1.3 s in one go, and
// JSON.stringify of its journal entry another 50-100 ms. The parse thread parses and checks the
// whole text (document-text.ts parseJsonText: depth, UTF-8, strings), then cuts the value into
// runs of items of its top-level arrays, each the JSON text of a few hundred kilobytes; the
// HTTP thread parses the runs one by one with the event loop turning in between (joinJson).
// The text the runs make up is JSON.stringify of the value, so it is kept with the value
// (knownText) and a journal entry carrying it is written without stringifying it again
// (stringifyKnown). A structured clone of the value would not do: its deserialization is one
// piece of work on the receiving thread, as long as the parse.
import { randomUUID } from 'node:crypto';

/** One top-level member (key null: the document itself): an array as runs of items, or any other value as its text. */
export type JsonPart = { key: string | null; runs: string[] } | { key: string | null; text: string };

/** About this many characters of items in a run: a few milliseconds of JSON.parse. */
export const RUN_CHARS = 256 * 1024;

/** The runs of an array: its items' JSON texts joined with commas, about `runChars` each. */
function runsOf(items: unknown[], runChars: number): string[] {
  const runs: string[] = [];
  let run: string[] = [];
  let size = 0;
  for (const item of items) {
    const t = JSON.stringify(item) ?? 'null'; // as JSON.stringify writes an array's undefined
    run.push(t);
    size += t.length + 1;
    if (size >= runChars) {
      runs.push(run.join(','));
      run = [];
      size = 0;
    }
  }
  if (run.length) runs.push(run.join(','));
  return runs;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The pieces of a parsed JSON value (in the parse thread). */
export function splitJson(value: unknown, runChars = RUN_CHARS): JsonPart[] {
  if (Array.isArray(value)) return [{ key: null, runs: runsOf(value, runChars) }];
  if (!isPlain(value)) return [{ key: null, text: JSON.stringify(value) }];
  return Object.keys(value).map((key) => {
    const v = value[key];
    return Array.isArray(v) ? { key, runs: runsOf(v, runChars) } : { key, text: JSON.stringify(v) };
  });
}

/** The JSON text of each value joined here: JSON.stringify of the value, never computed again. */
const known = new WeakMap<object, string>();

/** The JSON text a value was joined from (joinJson), if it is one. */
export function knownText(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? known.get(value) : undefined;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The value of `parts` (splitJson's), parsed run by run in slices of about `sliceMs` with the
 * event loop turning in between. The value's text is kept (knownText): the caller must not
 * change the value afterwards.
 */
export async function joinJson(parts: JsonPart[], sliceMs = 10): Promise<unknown> {
  const textOf = (p: JsonPart) => ('runs' in p ? `[${p.runs.join(',')}]` : p.text);
  const whole = parts.length === 1 && parts[0].key === null;
  // the skeleton holds every array empty; parsing it (not assigning keys) keeps JSON.parse's
  // semantics for every key, "__proto__" included
  const skeletonOf = (p: JsonPart) => ('runs' in p ? '[]' : p.text);
  const skeleton = whole ? skeletonOf(parts[0]) : `{${parts.map((p) => `${JSON.stringify(p.key)}:${skeletonOf(p)}`).join(',')}}`;
  const value = JSON.parse(skeleton) as unknown;
  let since = performance.now();
  for (const p of parts) {
    if (!('runs' in p)) continue;
    const into = (whole ? value : (value as Record<string, unknown>)[p.key!]) as unknown[];
    for (const run of p.runs) {
      if (performance.now() - since >= sliceMs) {
        await turn();
        since = performance.now();
      }
      for (const item of JSON.parse(`[${run}]`) as unknown[]) into.push(item);
    }
  }
  // string concatenation makes a rope: no copy of the document here
  const text = whole ? textOf(parts[0]) : `{${parts.map((p) => `${JSON.stringify(p.key)}:${textOf(p)}`).join(',')}}`;
  if (typeof value === 'object' && value !== null) known.set(value, text);
  return value;
}

const MARK = `fwd-known-json-${randomUUID()}-`;
const MARKED = new RegExp(`"${MARK}(\\d+)"`);

/** Whether `value` or a value among its own, up to `depth` levels down, has a known text. */
function holdsKnown(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (known.has(value)) return true;
  return depth > 0 && !Array.isArray(value) && Object.values(value).some((v) => holdsKnown(v, depth - 1));
}

/**
 * JSON.stringify(value), with each value of a known text (up to two levels down: a journal
 * entry's change's document) written as that text instead of being serialized again. The
 * result is a rope of the small rest and the texts: no copy of the document is made here.
 */
export function stringifyKnown(value: unknown): string {
  if (!holdsKnown(value, 2)) return JSON.stringify(value);
  const texts: string[] = [];
  const skeleton = JSON.stringify(value, (_k, v: unknown) => {
    const t = knownText(v);
    if (t === undefined) return v;
    texts.push(t);
    return `${MARK}${texts.length - 1}`;
  });
  // split keeps the captured index between the pieces around each mark
  const pieces = skeleton.split(new RegExp(MARKED.source, 'g'));
  let out = '';
  for (let i = 0; i < pieces.length; i++) out += i % 2 ? texts[Number(pieces[i])] : pieces[i];
  return out;
}

/** Pieces of a long text to encode, hash or write one per turn: at most this many characters. */
export const TEXT_PIECE = 1024 * 1024;

/** `text` in pieces of at most `size` characters, never cutting a surrogate pair (its UTF-8 would break). */
export function* textPieces(text: string, size = TEXT_PIECE): Generator<string> {
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && end - 1 > at && last >= 0xd800 && last <= 0xdbff) end--;
    yield text.slice(at, end);
    at = end;
  }
}
