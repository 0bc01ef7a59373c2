// Request values derived from a JSON Schema of the OpenAPI document (test/api/openapi-contract.test.ts):
// a base value (the required fields, each with the simplest value its schema allows) and
// variants of it, each changing one place. A variant is `invalid` when the document refuses it
// (the server must then refuse it too, with a request error) or a `looseness` probe when the
// document accepts it but a server that checks more than the document says would refuse it.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Variant {
  /** where the change is: "action", "policies[0].action" */
  at: string;
  /** the field name a server's details would name ("action") */
  field: string;
  what: string;
  body: unknown;
  /** true: the document refuses this body; false: the document accepts it */
  invalid: boolean;
}

const PROBE = 'zz-probe-value';

/** The schema with its $ref resolved against `doc`. */
export function resolve(doc: Json, s: Json | undefined): Json {
  let out = s ?? {};
  while (out.$ref) out = out.$ref.split('/').slice(1).reduce((o: Json, k: string) => o[k], doc);
  return out;
}

/** The constants a schema allows (an enum, a const, or a union of them), or null. */
export function constantsOf(s: Json): unknown[] | null {
  if (Array.isArray(s.enum)) return s.enum;
  if ('const' in s) return [s.const];
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches) && branches.length && branches.every((b: Json) => 'const' in b || Array.isArray(b.enum))) {
    return branches.flatMap((b: Json) => ('const' in b ? [b.const] : b.enum));
  }
  return null;
}

/** The JSON type a schema takes (the first branch of a union of several). */
export function typeOf(s: Json): string | undefined {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.find((t: string) => t !== 'null');
  const constants = constantsOf(s);
  if (constants) return typeof constants[0] === 'number' ? (Number.isInteger(constants[0]) ? 'integer' : 'number') : typeof constants[0];
  const branch = (s.anyOf ?? s.oneOf)?.find((b: Json) => b.type !== 'null');
  return branch ? typeOf(branch) : undefined;
}

let unique = 0;

/** The simplest value `s` allows: its example, default, first constant, else one made from its type and bounds. */
export function baseValue(doc: Json, schema: Json, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('default' in s) return s.default;
  const constants = constantsOf(s);
  if (constants) return constants[0];
  if (!s.type && (s.anyOf ?? s.oneOf)) return baseValue(doc, (s.anyOf ?? s.oneOf).find((b: Json) => resolve(doc, b).type !== 'null') ?? {}, depth);
  switch (typeOf(s)) {
    case 'object': {
      const out: Json = {};
      if (depth > 4) return out;
      for (const key of s.required ?? []) out[key] = baseValue(doc, s.properties?.[key] ?? {}, depth + 1);
      return out;
    }
    case 'array': return Array.from({ length: s.minItems ?? 0 }, () => baseValue(doc, s.items ?? {}, depth + 1));
    case 'integer': case 'number': return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean': return false;
    case 'null': return null;
    case 'string': {
      if (s.format === 'date-time') return new Date().toISOString();
      const text = `probe-${++unique}`;
      return s.minLength && text.length < s.minLength ? text.padEnd(s.minLength, 'x') : text.slice(0, s.maxLength ?? text.length);
    }
    default: return `probe-${++unique}`;
  }
}

/** A value of another JSON type than `s` takes. */
function wrongType(s: Json): unknown {
  const t = typeOf(s);
  if (t === 'string') return 12345;
  if (t === 'object' || t === 'array') return PROBE;
  return PROBE; // integer, number, boolean
}

/** The variants of `value` (of `schema`) at `at`, one place changed each, nested into objects and arrays up to `depth`. */
export function variants(doc: Json, schema: Json, value: unknown, at = '', depth = 0): Array<{ at: string; field: string; what: string; value: unknown; invalid: boolean }> {
  const s = resolve(doc, schema);
  const out: Array<{ at: string; field: string; what: string; value: unknown; invalid: boolean }> = [];
  const field = at.replace(/\[\d+\]$/, '').split('.').pop() ?? '';
  const add = (what: string, v: unknown, invalid: boolean) => out.push({ at, field, what, value: v, invalid });
  const type = typeOf(s);
  const constants = constantsOf(s);
  // of a union of types (a protocol: a name or a number), the branch of the type probed
  const own: Json = !constants && (s.anyOf ?? s.oneOf) ? resolve(doc, (s.anyOf ?? s.oneOf).find((b: Json) => resolve(doc, b).type === type) ?? {}) : s;
  const nullable = s.type === 'null' || (s.anyOf ?? s.oneOf ?? []).some((b: Json) => resolve(doc, b).type === 'null');
  if (at !== '' && type && !(s.anyOf && !constants)) {
    add(`a ${typeof wrongType(s) === 'number' ? 'number' : 'string'} where the document says ${type}`, wrongType(s), true);
  }
  if (constants && typeof constants[0] === 'string') {
    add(`"${PROBE}", not one of ${constants.join(', ')}`, PROBE, true);
    for (const c of constants.slice(1)) add(`"${String(c)}", one of the document's values`, c, false);
  } else if (type === 'string' && !nullable && at !== '') {
    if (own.pattern && !new RegExp(own.pattern, 'u').test(PROBE)) add(`"${PROBE}", not matching ${own.pattern}`, PROBE, true);
    else if (!own.format && !own.pattern) add(`"${PROBE}", a string the document allows`, PROBE, false);
    if (own.maxLength !== undefined) add(`a string of ${own.maxLength + 1} characters (maxLength ${own.maxLength})`, 'x'.repeat(own.maxLength + 1), true);
    else if (!own.format && !own.pattern) add('a string of 5,000 characters (the document sets no maxLength)', 'x'.repeat(5000), false);
  }
  if (type === 'integer' && !constants) {
    if (own.minimum !== undefined) add(`${own.minimum - 1}, under the minimum ${own.minimum}`, own.minimum - 1, true);
    else add('-1 (the document sets no minimum)', -1, false);
    if (own.maximum !== undefined) add(`${own.maximum + 1}, over the maximum ${own.maximum}`, own.maximum + 1, true);
    else add('2147483648 (the document sets no maximum)', 2 ** 31, false);
  }
  if (type === 'object' && depth < 3 && value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Json;
    const props: Json = s.properties ?? {};
    for (const key of s.required ?? []) {
      const { [key]: _dropped, ...rest } = v; // eslint-disable-line @typescript-eslint/no-unused-vars
      out.push({ at: join(at, key), field: key, what: `without the required field "${key}"`, value: rest, invalid: true });
    }
    const unknownKey = 'zz_unknown_field';
    out.push({ at: join(at, unknownKey), field: unknownKey, what: 'an unknown field', value: { ...v, [unknownKey]: 1 }, invalid: s.additionalProperties === false });
    for (const [key, prop] of Object.entries(props)) {
      const inner = key in v ? v[key] : baseValue(doc, prop, depth + 1);
      for (const x of variants(doc, prop, inner, join(at, key), depth + 1)) out.push({ ...x, value: { ...v, [key]: x.value } });
    }
  }
  if (type === 'array' && depth < 3 && Array.isArray(value)) {
    const items = resolve(doc, s.items ?? {});
    if (s.maxItems !== undefined && s.maxItems < 10_000) {
      add(`${s.maxItems + 1} items (maxItems ${s.maxItems})`, Array.from({ length: s.maxItems + 1 }, () => baseValue(doc, items, depth + 1)), true);
    }
    const item = value.length ? value[0] : baseValue(doc, items, depth + 1);
    for (const x of variants(doc, items, item, `${at}[0]`, depth + 1)) out.push({ ...x, value: [x.value, ...value.slice(1)] });
  }
  return out;
}

function join(at: string, key: string): string {
  return at === '' ? key : `${at}.${key}`;
}
