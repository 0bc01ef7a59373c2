// The parse threads (parse-pool.ts): a YAML body becomes JSON text here, so that neither the
// time nor the memory of the yaml library (~100 bytes a byte of YAML) is the HTTP thread's;
// a large JSON body is parsed and checked here and crosses back in pieces (json-pieces.ts).
import { isFwError, type ErrorCode } from '../errors';
import { checkStrings, decodeBody, parseJsonText } from '../config/document-text';
import { splitJson, type JsonPart } from '../config/json-pieces';
import { yamlValue } from '../config/yaml-text';

export interface ParseTask {
  bytes: Uint8Array;
}

/** The document as JSON text in pieces (json-pieces.ts; null: a blank JSON body), or the refusal (a FwError's code and details). */
export type ParseReply = { ok: true; parts: JsonPart[] | null } | { ok: false; code: ErrorCode; details: string };

/**
 * Invalid UTF-8 bytes arrive as lone surrogates (decodeBody), which js-yaml refuses as a whole
 * ("non-printable characters") before the field they are in is known: they cross the parse
 * as private-use characters (U+F780-U+F7FF) and come back, so that checkStrings names the
 * field. Only in a body that is not valid UTF-8, which is refused either way.
 */
const LONE_BYTE = /[\udc80-\udcff]/g;
const CARRIED_BYTE = /[\uf780-\uf7ff]/g;
const shift = (from: number) => (c: string) => String.fromCharCode(c.charCodeAt(0) - from);

function restoreBytes(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(CARRIED_BYTE, shift(0xf780 - 0xdc80));
  if (Array.isArray(value)) return value.map(restoreBytes);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [restoreBytes(k) as string, restoreBytes(v)]));
  }
  return value;
}

export default function parseYaml(task: ParseTask): ParseReply {
  try {
    const { text, utf8 } = decodeBody(task.bytes);
    const value = utf8 ? yamlValue(text) : restoreBytes(yamlValue(text.replace(LONE_BYTE, shift(0xdc80 - 0xf780))));
    checkStrings(value);
    return { ok: true, parts: splitJson(value) };
  } catch (e) {
    if (isFwError(e)) return { ok: false, code: e.code, details: e.details };
    throw e;
  }
}

/** A JSON body, checked as on the HTTP thread (the same function, the same refusals), in pieces. */
export function parseJson(task: ParseTask): ParseReply {
  try {
    const value = parseJsonText(task.bytes);
    return { ok: true, parts: value === undefined ? null : splitJson(value) };
  } catch (e) {
    if (isFwError(e)) return { ok: false, code: e.code, details: e.details };
    throw e;
  }
}
