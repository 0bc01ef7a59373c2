// The parse thread (parse-pool.ts): a YAML body becomes JSON text here, so that neither the
// time nor the memory of the yaml library (~100 bytes a byte of YAML) is the HTTP thread's.
import { isFwError, type ErrorCode } from '../errors';
import { checkStrings, decodeBody } from '../config/document-text';
import { yamlValue } from '../config/yaml-text';

export interface ParseTask {
  bytes: Uint8Array;
}

/** The document as JSON text, or the refusal (a FwError's code and details). */
export type ParseReply = { ok: true; json: string } | { ok: false; code: ErrorCode; details: string };

export default function parseYaml(task: ParseTask): ParseReply {
  try {
    const value = yamlValue(decodeBody(task.bytes).text);
    checkStrings(value);
    return { ok: true, json: JSON.stringify(value) };
  } catch (e) {
    if (isFwError(e)) return { ok: false, code: e.code, details: e.details };
    throw e;
  }
}
