// Shape tests of parsed JSON, with no dependency (the compile workers load this too).

/** A JSON object (not an array, not null). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
