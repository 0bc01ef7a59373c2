// What every request body must be before its values reach a handler: UTF-8 text, nested at
// most MAX_DEPTH levels, with no NUL and no lone surrogate in any string. Used on the HTTP
// thread for JSON and in the parse thread for YAML (src/workers/parse-worker.ts); no
// dependency beyond the error catalogue.
import { isUtf8 } from 'node:buffer';
import { FwError } from '../errors';

/**
 * Arrays and objects inside each other, at most. The deepest body the API defines is a batch
 * operation's ips (5 levels); deeper documents only serve to make parsers and the code that
 * walks their values recurse (a YAML document of a million "[" killed the daemon).
 */
export const MAX_DEPTH = 64;

/**
 * The body as text. Invalid UTF-8 is not replaced by U+FFFD (which would pass unnoticed): each
 * byte of an invalid sequence becomes a lone surrogate (U+DC80-U+DCFF, as Python's
 * surrogateescape), which checkStrings refuses with the place of the string it landed in.
 */
export function decodeBody(raw: Uint8Array): { text: string; utf8: boolean } {
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (isUtf8(buf)) return { text: buf.toString('utf8'), utf8: true };
  let out = '';
  let start = 0;
  for (let i = 0; i < buf.length;) {
    const n = sequenceLength(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += buf.toString('utf8', start, i) + String.fromCharCode(0xdc00 | buf[i]);
    start = ++i;
  }
  return { text: out + buf.toString('utf8', start), utf8: false };
}

/** The length of the valid UTF-8 sequence at `i` (RFC 3629: no overlong form, no surrogate), 0 when invalid. */
function sequenceLength(b: Buffer, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Refuses a JSON text nested deeper than MAX_DEPTH before it is parsed: one pass over the
 * bytes, strings skipped (JSON's quoting is unambiguous, so nothing can hide a bracket).
 */
export function checkJsonDepth(raw: Uint8Array): void {
  if (raw.length <= MAX_DEPTH) return; // too short to nest that deep
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > MAX_DEPTH) throw tooDeep(`at byte ${i}`);
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
}

/** The refusal of a document nested too deep; `where` says where the limit was crossed. */
export function tooDeep(where: string): FwError {
  return new FwError('ERR_NET_1004', `the document nests arrays and objects deeper than ${MAX_DEPTH} levels (${where})`);
}

/** Whether JSON text may hold a NUL or a lone surrogate: only a \u escape writes one in valid UTF-8. */
export function mayHoldBadStrings(text: string): boolean {
  return text.includes('\\u');
}

// a NUL, or a surrogate without its pair
const BAD_CHAR = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string is refused, or null. */
function badString(s: string): string | null {
  const m = BAD_CHAR.exec(s);
  if (m === null) return null;
  return m[0] === '\0' ? 'contains a NUL character' : 'is not valid UTF-8 text';
}

/** A path step: `.name` for plain names, `[3]` for indexes, `["odd key"]` for the rest. */
function step(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/**
 * Refuses (400 ERR_NET_1004, the field named) a string value or key with a NUL or that is
 * not valid UTF-8 text, anywhere in `value`. Iterative: the depth is checked before, but the
 * walk does not depend on it.
 */
export function checkStrings(value: unknown): void {
  const todo: Array<{ v: unknown; path: string }> = [{ v: value, path: '' }];
  while (todo.length > 0) {
    const { v, path } = todo.pop()!;
    if (typeof v === 'string') {
      const why = badString(v);
      if (why !== null) throw new FwError('ERR_NET_1004', `field "${path}": ${why}`);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) todo.push({ v: v[i], path: step(path, i) });
    } else if (typeof v === 'object' && v !== null) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const at = step(path, keys[i]);
        const why = badString(keys[i]);
        if (why !== null) throw new FwError('ERR_NET_1004', `field "${at}": the name ${why}`);
        todo.push({ v: (v as Record<string, unknown>)[keys[i]], path: at });
      }
    }
  }
}

/** A JSON body's value: undefined when empty or blank; 400 ERR_NET_1004 when malformed, too deep or with a bad string. */
export function parseJsonText(raw: Uint8Array): unknown {
  const { text, utf8 } = decodeBody(raw);
  if (text.trim() === '') return undefined;
  checkJsonDepth(raw);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new FwError('ERR_NET_1004', `malformed JSON: ${(e as Error).message}`);
  }
  if (!utf8 || mayHoldBadStrings(text)) checkStrings(value);
  return value;
}
