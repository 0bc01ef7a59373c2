// Text recorded for people to read (the audit trail), without what could deceive them: control
// characters (a newline that forges a second entry in a log viewer, escape sequences for a
// terminal) and bidirectional formatting characters (U+202E shows "gpj.exe" as "exe.jpg").
// They are removed wherever they came from: a name, a detail, a payload's keys and strings.

// C0 and C1 controls, DEL, the line and paragraph separators, and the bidi marks, embeddings,
// overrides and isolates (Unicode TR9)
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g; // eslint-disable-line no-control-regex

/** `text` without control and bidi formatting characters. */
export function plainText(text: string): string {
  return text.replace(HIDDEN, '');
}

/** A JSON value with plainText applied to every string in it, keys too. */
export function plainValue(value: unknown): unknown {
  if (typeof value === 'string') return plainText(value);
  if (Array.isArray(value)) return value.map(plainValue);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[plainText(k)] = plainValue(v);
  return out;
}
