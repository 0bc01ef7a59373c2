// YAML documents as the export writes them, read at JSON's pace. The `yaml` library builds a
// syntax tree and a document model before its values: about a second for a 400 KB export,
// fifty times JSON.parse. Exports (and most hand-edited files) use a small part of YAML: block
// mappings and sequences, plain, quoted and empty-flow scalars. This reads that part line by
// line and gives up (NOT_SIMPLE) on anything else (comments, anchors, tags, flow collections,
// block scalars, multi-line scalars, duplicate keys, non-decimal numbers...), which the caller
// then hands to the `yaml` library: a result of this reader is always the library's result.
// test/unit/yaml-fast.test.ts checks that against the library on generated documents.

export const NOT_SIMPLE = Symbol('not simple YAML');

class NotSimple extends Error {}
const bail = (): never => {
  throw new NotSimple();
};

interface Line {
  indent: number;
  text: string;
}

/** Plain scalars YAML 1.2's core schema reads as something other than a string. */
const CORE_SPECIAL = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|null|Null|NULL|~|true|True|TRUE|false|False|FALSE)$/;
/** Plain strings this reader takes: safe first character, no ": ", " #", flow or quote characters. */
const PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./@+=-]*(?::+[A-Za-z0-9_./@+=-]+)*$/;
const DECIMAL = /^-?(?:0|[1-9][0-9]*)$/;
/** A double-quoted scalar as JSON writes one (YAML reads JSON's escapes the same way). */
const JSON_STRING = /^"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/;

function scalar(text: string): unknown {
  if (text === '[]') return [];
  if (text === '{}') return {};
  if (text[0] === '"') {
    const m = JSON_STRING.exec(text);
    if (!m || m[0].length !== text.length) bail();
    return JSON.parse(text);
  }
  if (text[0] === "'") {
    if (text.length < 2 || text[text.length - 1] !== "'" || /'(?!')/.test(text.slice(1, -1).replace(/''/g, ''))) bail();
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (DECIMAL.test(text)) {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || text === '-0') bail();
    return n;
  }
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (CORE_SPECIAL.test(text) || !PLAIN.test(text)) bail();
  return text;
}

/** `key: rest` (rest possibly empty) or null when the text is not a mapping entry. */
function entry(text: string): { key: string; rest: string } | null {
  let key: string;
  let after: string;
  if (text[0] === '"') {
    const m = JSON_STRING.exec(text);
    if (!m) bail();
    key = JSON.parse(m![0]) as string;
    after = text.slice(m![0].length);
  } else {
    const colon = text.search(/:(?: |$)/);
    if (colon < 0) return null;
    key = text.slice(0, colon);
    if (!PLAIN.test(key) || CORE_SPECIAL.test(key) || DECIMAL.test(key)) bail();
    after = text.slice(colon);
  }
  if (after === ':') return { key, rest: '' };
  if (!after.startsWith(': ')) return after === '' ? null : bail();
  return { key, rest: after.slice(2).trim() };
}

class Reader {
  i = 0;
  constructor(readonly lines: Line[]) {}

  /** The node whose first line is the current one, at its indent. */
  node(indent: number): unknown {
    const line = this.lines[this.i];
    if (line.text === '-' || line.text.startsWith('- ')) return this.sequence(indent);
    if (entry(line.text)) return this.mapping(indent);
    this.i++;
    return scalar(line.text);
  }

  /** The value after "key:" or "-" with nothing more on the line: the block below it, or null. */
  nested(parent: number, sequenceAtSameIndent: boolean): unknown {
    const next = this.lines[this.i];
    if (next && next.indent > parent) return this.node(next.indent);
    if (sequenceAtSameIndent && next && next.indent === parent && (next.text === '-' || next.text.startsWith('- '))) return this.sequence(parent);
    return null;
  }

  sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (let line = this.lines[this.i]; line && line.indent === indent && (line.text === '-' || line.text.startsWith('- ')); line = this.lines[this.i]) {
      if (line.text === '-') {
        this.i++;
        out.push(this.nested(indent, false));
        continue;
      }
      // "- x": x is a node at the column after the dash; the line is read again as that node
      const rest = line.text.slice(1);
      const pad = rest.length - rest.trimStart().length;
      this.lines[this.i] = { indent: indent + 1 + pad, text: rest.trimStart() };
      out.push(this.node(indent + 1 + pad));
    }
    if (this.lines[this.i] && this.lines[this.i].indent > indent) bail();
    return out;
  }

  mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let line = this.lines[this.i]; line && line.indent === indent; line = this.lines[this.i]) {
      const e = entry(line.text);
      if (!e || e.key === '__proto__' || Object.prototype.hasOwnProperty.call(out, e.key)) bail();
      this.i++;
      out[e!.key] = e!.rest === '' ? this.nested(indent, true) : scalar(e!.rest);
    }
    if (this.lines[this.i] && this.lines[this.i].indent > indent) bail();
    return out;
  }
}

/** Characters that start what this reader does not take (outside quotes; [] and {} alone excepted). */
const SPECIAL = /[\t#&*!|>%@`{}[\]]/;

function withoutQuotesAndEmptyFlow(body: string): string {
  return body.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '""').replace(/^(- )*(\[\]|\{\})$|: (\[\]|\{\})$/, '');
}

/** The document's lines; anything this reader does not take (tabs, comments, directives) bails. */
function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const body = l.trimStart();
    if (body === '') continue;
    if (SPECIAL.test(body) && SPECIAL.test(withoutQuotesAndEmptyFlow(body))) bail();
    if (body.startsWith('---') || body.startsWith('...') || body.startsWith('? ')) bail();
    lines.push({ indent: l.length - body.length, text: body.trimEnd() });
  }
  return lines;
}

/** The value of a YAML document in the simple subset, or NOT_SIMPLE. */
export function parseSimpleYaml(text: string): unknown {
  try {
    const lines = linesOf(text);
    if (lines.length === 0) return null;
    const r = new Reader(lines);
    const value = r.node(lines[0].indent);
    if (r.i !== lines.length) bail();
    return value;
  } catch (e) {
    if (e instanceof NotSimple) return NOT_SIMPLE;
    throw e;
  }
}
