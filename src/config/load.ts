// A whole configuration document (export.ts's format, edited or generated) loaded into the
// candidate as one change (PUT /api/config/candidate). Every object goes through its
// resource's own create or update operation, so a loaded document obeys exactly the checks of
// the single requests; every problem is collected with its place in the document
// ("policies[12].dst-addr: address "web" does not exist") and, if there is any, nothing
// changes. The work happens on a working copy whose tables replace the candidate's at the end.
//
// replace: the candidate becomes the document: objects it does not list are gone, interfaces
//   it does not list are reset (no address, no zone, up); rule tables are in document order.
// merge: objects the document lists are created, or updated as a PUT with the same body
//   would (fields present replace, fields absent keep theirs); nothing is deleted. A rule
//   whose id exists is updated in place; other rules are added at the bottom in document order.
// A rule with an id keeps it (ids are unique per table); a rule without one takes, in replace
// mode, the id of the replaced rule of the same name or content (matchIds), else the next
// free id, after every id the document or the candidate has used. Zones are written without
// `interfaces`: membership is each interface's and VLAN's `zone`.
import { FwError, isFwError, type ErrorCode } from '../errors';
import { emptyDoc, workingCopy } from './document';
import { COLLECTIONS, EXPORT_FORMAT, type Collection } from './export';
import { isPlainObject } from './json';
import type { ResourceKind } from './changes';
import type { ResourceOps, Rule, RuleTable } from './resource';
import { RESOURCES } from './resources';
import { repeatedNames } from './rule-meta';
import { dependencyOrder } from './groups';
import { collectingRefs } from './validate';
import type { ConfigDoc } from './types';

export type LoadMode = 'replace' | 'merge';
export const LOAD_MODES: readonly LoadMode[] = ['replace', 'merge'];

/** At most this many problems are listed; the rest are counted. */
const MAX_PROBLEMS = 200;

/** A collection of the document: its resource, its table and the field that names an object. */
interface Part {
  collection: Collection;
  kind: ResourceKind;
  /** name-keyed objects: the field naming one, and the table */
  key?: 'name' | 'interface';
  table?: 'addresses' | 'services' | 'addressGroups' | 'serviceGroups' | 'dynamicSets' | 'zones' | 'interfaces' | 'vlans' | 'dhcp';
}

/** In the order they are loaded: everything an object references is loaded before it. */
const PARTS: Part[] = [
  { collection: 'zones', kind: 'zone', key: 'name', table: 'zones' },
  { collection: 'interfaces', kind: 'interface', key: 'name', table: 'interfaces' },
  { collection: 'addresses', kind: 'address', key: 'name', table: 'addresses' },
  { collection: 'address-groups', kind: 'address-group', key: 'name', table: 'addressGroups' },
  { collection: 'dynamic-sets', kind: 'dynamic-set', key: 'name', table: 'dynamicSets' },
  { collection: 'services', kind: 'service', key: 'name', table: 'services' },
  { collection: 'service-groups', kind: 'service-group', key: 'name', table: 'serviceGroups' },
  { collection: 'vlans', kind: 'vlan', key: 'name', table: 'vlans' },
  { collection: 'dhcp', kind: 'dhcp', key: 'interface', table: 'dhcp' },
  { collection: 'routes', kind: 'route' },
  { collection: 'policies', kind: 'policy' },
  { collection: 'nat', kind: 'nat' },
  { collection: 'local-policies', kind: 'local-policy' }, // issue 41
];

/** The problems found so far, each with its place in the document, and their codes. */
class Problems {
  readonly lines: string[] = [];
  readonly codes = new Set<ErrorCode>();
  count = 0;

  add(code: ErrorCode, line: string): void {
    this.count++;
    this.codes.add(code);
    if (this.lines.length < MAX_PROBLEMS) this.lines.push(line);
  }

  /** A refusal of a resource operation, placed: `field "x": why` becomes `where.x: why`. */
  addError(where: string, e: unknown): void {
    if (!isFwError(e)) throw e;
    const m = /^field "([^"]*)": ([\s\S]*)$/.exec(e.details);
    if (m && m[1] !== '') this.add(e.code, `${where}.${m[1]}: ${m[2]}`);
    else this.add(e.code, `${where}: ${m ? m[2] : e.details || e.message}`);
  }

  /** The refusal of the whole load: one code when all problems share it, else ERR_NET_1004. */
  error(): FwError {
    const code = this.codes.size === 1 ? [...this.codes][0] : 'ERR_NET_1004';
    const more = this.count > this.lines.length ? [`... and ${this.count - this.lines.length} more problems`] : [];
    return new FwError(code, [...this.lines, ...more].join('\n'));
  }
}

/**
 * Builds one object, recording every unknown reference it makes (not only the first) and any
 * other refusal under `where`; undefined when it has a problem. A crash after an unknown
 * reference is its consequence: the references explain it.
 */
function attempt<T>(where: string, problems: Problems, build: () => T): T | undefined {
  const r = collectingRefs(build);
  for (const e of r.refs) problems.addError(where, e);
  if ('error' in r && (isFwError(r.error) || r.refs.length === 0)) problems.addError(where, r.error);
  return r.refs.length || 'error' in r ? undefined : r.value;
}

/** The document's collections as arrays of objects (shape problems recorded). */
function collectionsOf(input: unknown, problems: Problems): Partial<Record<Collection, unknown[]>> {
  const out: Partial<Record<Collection, unknown[]>> = {};
  if (!isPlainObject(input)) {
    problems.add('ERR_NET_1004', 'the document must be an object');
    return out;
  }
  const known = new Set<string>(['format', 'version', 'ha', ...COLLECTIONS]);
  for (const k of Object.keys(input)) if (!known.has(k)) problems.add('ERR_NET_1004', `unknown field "${k}"`);
  if (input.format !== undefined && input.format !== EXPORT_FORMAT) {
    problems.add('ERR_NET_1004', `format: "${String(input.format)}" is not "${EXPORT_FORMAT}"`);
  }
  if (input.version !== undefined && !(Number.isSafeInteger(input.version) && (input.version as number) >= 0)) {
    problems.add('ERR_NET_1004', 'version: not a version number');
  }
  for (const c of COLLECTIONS) {
    const v = input[c];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) problems.add('ERR_NET_1004', `${c}: must be an array`);
    else out[c] = v;
  }
  return out;
}

/** The order a collection's items load in: a group after the groups it holds (a file may list them in any order), else as given. */
function loadOrder(part: Part, items: unknown[]): number[] {
  if (part.kind !== 'address-group' && part.kind !== 'service-group') return items.map((_it, i) => i);
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return dependencyOrder(items.map((it) => (isPlainObject(it)
    ? { name: str(it.name), members: Array.isArray(it.members) ? it.members.map(str) : [] }
    : { name: '', members: [] })));
}

/** Loads the name-keyed objects of one collection: create, or update (merge) what exists. */
function* loadNamed(work: ConfigDoc, part: Part, items: unknown[], merge: boolean, problems: Problems): Generator<void, void> {
  const ops: ResourceOps = RESOURCES[part.kind];
  const table = work[part.table!] as Map<string, unknown>;
  const seen = new Set<string>();
  for (const i of loadOrder(part, items)) {
    yield;
    const item = items[i];
    const where = `${part.collection}[${i}]`;
    const key = isPlainObject(item) ? item[part.key!] : undefined;
    if (typeof key === 'string') {
      if (seen.has(key)) {
        problems.add('ERR_NET_2006', `${where}.${part.key}: "${key}" appears twice in the document`);
        continue;
      }
      seen.add(key);
    }
    if (part.kind === 'zone' && isPlainObject(item) && item.interfaces !== undefined) {
      problems.add('ERR_NET_1004', `${where}.interfaces: membership is written as each interface's and VLAN's "zone"`);
      continue;
    }
    // interfaces are a fixed inventory: always an update (404 for one the firewall has not)
    if (part.kind === 'interface' || (merge && typeof key === 'string' && table.has(key))) attempt(where, problems, () => ops.update!(work, key as string, item));
    else attempt(where, problems, () => ops.create!(work, item));
  }
}

/** The id a rule of the document gives, or undefined; a bad or repeated one is a problem. */
function givenId(item: unknown, where: string, seen: Set<number>, problems: Problems): number | undefined | null {
  if (!isPlainObject(item) || item.id === undefined) return undefined;
  const id = item.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
    problems.add('ERR_NET_1004', `${where}.id: must be a positive integer`);
    return null;
  }
  if (seen.has(id)) {
    problems.add('ERR_NET_2006', `${where}.id: ${id} appears twice in the document`);
    return null;
  }
  seen.add(id);
  return id;
}

/** A rule's body without its id (the load places the rule; the create and update bodies have none). */
function withoutId(item: unknown): unknown {
  if (!isPlainObject(item) || item.id === undefined) return item;
  const { id: _id, ...body } = item;
  return body;
}

/** A rule's name, for the rule tables that have one ("" when none). */
function nameOf(rule: Rule): string {
  const name = (rule as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}

/** A rule's content without its id: equal for two rules that match the same packets the same way. */
function contentOf(rule: Rule): string {
  return JSON.stringify({ ...rule, id: 0 });
}

/**
 * Ids for the rules a replacing document gives without one, from the table it replaces: the
 * rule of the same name, else of the same content, that no id of the document claims. So a
 * file written without ids plans and loads as the rules it repeats, not as a delete and a
 * re-create of each (which would also lose their hit counters).
 */
function* matchIds(previous: readonly Rule[], added: Array<{ rule: Rule; id: number | undefined }>, claimed: Set<number>): Generator<void, void> {
  const byName = new Map<string, number[]>();
  const byContent = new Map<string, number[]>();
  const push = (m: Map<string, number[]>, k: string, id: number) => { const l = m.get(k); if (l) l.push(id); else m.set(k, [id]); };
  // a step every 256 rules: 20,000 rules' contents are 40-50 ms of one piece (issue 38)
  let n = 0;
  for (const r of previous) {
    if (++n % 256 === 0) yield;
    if (claimed.has(r.id)) continue;
    if (nameOf(r)) push(byName, nameOf(r), r.id);
    push(byContent, contentOf(r), r.id);
  }
  const taken = new Set<number>();
  const take = (ids: number[] | undefined): number | undefined => {
    while (ids?.length) {
      const id = ids.shift()!;
      if (!taken.has(id)) return taken.add(id), id;
    }
    return undefined;
  };
  const open = added.filter((a) => a.id === undefined);
  for (const a of open) if (nameOf(a.rule)) a.id = take(byName.get(nameOf(a.rule)));
  for (const a of open) {
    if (++n % 256 === 0) yield;
    if (a.id === undefined) a.id = take(byContent.get(contentOf(a.rule)));
  }
}

/** Loads one rule table: every rule checked, ids kept, matched (replace) or handed out, the table assigned once. */
function* loadRules(work: ConfigDoc, previous: readonly Rule[], part: Part, items: unknown[], merge: boolean, problems: Problems): Generator<void, void> {
  const rt: RuleTable = RESOURCES[part.kind].rules!;
  const current = (merge ? work[rt.table] : []) as Rule[];
  const byId = new Map<number, number>(current.map((r, i) => [r.id, i]));
  const seen = new Set<number>();
  const updated = current.slice();
  const added: Array<{ rule: Rule; id: number | undefined }> = [];
  let maxId = work.counters[rt.counter] ?? 0;
  for (let i = 0; i < items.length; i++) {
    if (i % 16 === 0) yield;
    const item = items[i];
    const where = `${part.collection}[${i}]`;
    const id = givenId(item, where, seen, problems);
    if (id === null) continue;
    const body = withoutId(item);
    const at = id === undefined ? undefined : byId.get(id);
    const rule = attempt(where, problems, () => (at !== undefined ? rt.build(work, body, current[at]) : rt.build(work, body)));
    if (rule !== undefined) {
      if (at !== undefined) updated[at] = rule;
      else added.push({ rule, id });
    }
    if (id !== undefined && id > maxId) maxId = id;
  }
  if (!merge) yield* matchIds(previous, added, seen);
  for (const a of added) a.rule.id = a.id ?? ++maxId;
  const rules = [...updated, ...added.map((a) => a.rule)];
  if (rt.table === 'routes') rules.sort((a, b) => a.id - b.id);
  // rule names are unique in the table the load makes (each build saw only the old table)
  else for (const { name, ids } of repeatedNames(rules)) problems.add('ERR_NET_2006', `${part.collection}: the name "${name}" is given to rules ${ids.join(', ')}`);
  (work as unknown as Record<string, Rule[]>)[rt.table] = rules;
  work.counters = { ...work.counters, [rt.counter]: maxId };
}

/**
 * Makes `doc` what `input` (a parsed export document) says, as `mode` says. Throws a FwError
 * listing every problem, one per line, and leaves `doc` as it was; else replaces its tables.
 */
export function loadDocument(doc: ConfigDoc, input: unknown, mode: LoadMode): void {
  const steps = loadSteps(doc, input, mode);
  let r = steps.next();
  while (!r.done) r = steps.next();
  Object.assign(doc, r.value);
}

/**
 * The document `doc` becomes by loading `input`, made in slices of about `sliceMs` with the
 * event loop turning in between (issue 38: a 20 MB load held the HTTP thread for 48 s, and
 * /healthz timed out meanwhile). `doc` is read at the call only (its tables copied then): the
 * caller applies the result with Object.assign if `doc` has not changed since, else loads again.
 */
export async function prepareLoad(doc: ConfigDoc, input: unknown, mode: LoadMode, sliceMs = 10): Promise<ConfigDoc> {
  const steps = loadSteps(doc, input, mode);
  let r = steps.next(); // runs to the first item: everything read from doc is read now
  let since = performance.now();
  while (!r.done) {
    if (performance.now() - since >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    r = steps.next();
  }
  return r.value;
}

/** The load, one item a step: the new tables (a working document), or a FwError listing every problem. */
function* loadSteps(doc: ConfigDoc, input: unknown, mode: LoadMode): Generator<void, ConfigDoc> {
  const problems = new Problems();
  const parts = collectionsOf(input, problems);
  const merge = mode === 'merge';
  const work = merge ? workingCopy(doc) : emptyDoc([...doc.interfaces.keys()]);
  if (!merge) work.counters = { ...doc.counters };
  if (!merge) work.ha = undefined;
  // the rule tables replaced, as they are now (tables are replaced by changes, never mutated)
  const previous = { policies: doc.policies, nat: doc.nat, routes: doc.routes, localPolicies: doc.localPolicies } as Record<string, readonly Rule[]>;
  for (const part of PARTS) {
    const items = parts[part.collection];
    if (!items) continue;
    if (part.table) yield* loadNamed(work, part, items, merge, problems);
    else yield* loadRules(work, previous[RESOURCES[part.kind].rules!.table], part, items, merge, problems);
  }
  // the HA pair last: it names links (issue 39); absent, a replace has none and a merge keeps it
  if (isPlainObject(input) && input.ha !== undefined) {
    try {
      RESOURCES.ha.update!(work, 'ha', input.ha);
    } catch (e) {
      problems.addError('ha', e);
    }
  }
  if (problems.count) throw problems.error();
  return work;
}
