// A YAML document as JSON values, read with js-yaml (YAML 1.2's core schema: strings,
// numbers, booleans, null; no timestamps, no merge keys), with the daemon's limits: nesting
// bounded while the parser descends (js-yaml's maxDepth: a million "[" is refused at the first
// level past the bound, with its line and column, before anything deeper is built), and
// aliases bounded by what they would expand to (a "billion laughs" document is refused).
// js-yaml replaced the `yaml` library plus a hand-written reader of the export's subset: one
// description with a space or one non-ASCII name sent a whole document to the library, 14-39x
// JSON's time (issue 43; bench/yaml.ts, docs/performance.md). Runs in the parse thread
// (src/workers/parse-worker.ts).
import { CORE_SCHEMA, load, YAMLException, type LoadOptions } from 'js-yaml';
import { FwError } from '../errors';
import { MAX_DEPTH, tooDeep } from './document-text';

/** Alias uses at most (the bound the `yaml` library's maxAliasCount gave before) */
const MAX_ALIAS_COUNT = 100;
/** Nodes that aliases may stand for in all, beyond the document's own */
const MAX_ALIASED_NODES = 100_000;

/** The values of a YAML document (strings, numbers, booleans, null, arrays, plain objects), or 400 ERR_NET_1004. */
export function yamlValue(text: string): unknown {
  let value: unknown;
  try {
    // one level more than MAX_DEPTH: js-yaml counts the scalar inside the deepest collection
    value = load(text, { schema: CORE_SCHEMA, maxDepth: MAX_DEPTH + 1 } as LoadOptions);
  } catch (e) {
    throw refusal(e);
  }
  checkAliases(value); // first: it bounds what the walks after it (this one included) visit
  if (!nestedWithin(value, MAX_DEPTH)) throw tooDeep('in the document');
  return value ?? null;
}

/** js-yaml's error as the contract's ERR_NET_1004, with its line and column. */
function refusal(e: unknown): FwError {
  if (!(e instanceof YAMLException)) throw e;
  const where = e.mark ? `line ${e.mark.line + 1}, column ${e.mark.column + 1}` : '';
  if (/maxDepth/.test(e.reason)) return tooDeep(where);
  const reason = e.reason === 'expected a document end' || /single document/.test(e.message) ? 'the body holds more than one document' : e.reason;
  return new FwError('ERR_NET_1004', `malformed YAML: ${reason}${where ? ` at ${where}` : ''}`);
}

function nestedWithin(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (levels === 0) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (!nestedWithin(v, levels - 1)) return false;
  return true;
}

/**
 * js-yaml resolves an alias to the same object as its anchor: the value is a graph whose
 * expansion (JSON.stringify, every walk of the document) can be exponential. Each object met
 * again is an alias use, counted with the nodes it stands for; the walk itself is linear.
 */
function checkAliases(value: unknown): void {
  const sizes = new Map<object, number>();
  let uses = 0;
  let aliased = 0;
  const size = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 1;
    const known = sizes.get(v);
    if (known !== undefined) {
      uses++;
      aliased += known;
      if (uses > MAX_ALIAS_COUNT || aliased > MAX_ALIASED_NODES) {
        throw new FwError('ERR_NET_1004', `malformed YAML: aliases stand for more than ${uses > MAX_ALIAS_COUNT ? `${MAX_ALIAS_COUNT} uses` : `${MAX_ALIASED_NODES} nodes`}`);
      }
      return known;
    }
    sizes.set(v, 1); // a cycle (an alias inside its own anchor) counts as a use of one node
    let n = 1;
    for (const c of Array.isArray(v) ? v : Object.values(v)) n += size(c);
    sizes.set(v, n);
    return n;
  };
  size(value);
}
