// The expansion budget (issue 38): what a document makes the compile materialise, counted
// without materialising it, and a limit on it. Group size and depth are capped per group
// (groups.ts), but a document of many rules naming many big groups was not: the compile, the
// analysis and the data plane's sets are built per rule and per named address, so a 1.4 MB
// document could ask for tens of millions of prefixes and hold a compile thread for minutes.
//
// What counts (the compile's work, docs/operations.md "The expansion budget"):
// - each policy and NAT rule: 1;
// - each address or address group named by a rule (src-addr, dst-addr), once however many
//   rules name it: its prefixes as flattening walks them, a group the sum of its members (a
//   prefix reached through two members counts twice: the walk visits it twice).
// Groups named by no rule cost nothing: the compile never flattens them (groups.ts).
//
// Where it is checked: every change that can grow it (the API's create, edit, batch, load and
// rollback: 400 ERR_NET_1008), the plan of a load, and validate and commit (400 ERR_SYS_3003,
// the same line among the other problems). A change that does not grow the count is let
// through even over the limit (a limit lowered after a load must leave a way back down).
import type { ConfigDoc } from './types';
import { FwError, type ErrorCode } from '../errors';

/** The default limit: what a 2-core appliance compiles well inside the commit timeout (docs/performance.md). */
export const DEFAULT_MAX_EXPANSION = 2_000_000;

/** How many of the biggest named addresses and groups a refusal lists. */
const TOP = 5;

export interface Contributor {
  name: string;
  kind: 'address' | 'address group';
  prefixes: number;
  /** the rules naming it */
  rules: number;
}

export interface Expansion {
  /** rules + prefixes */
  total: number;
  rules: number;
  prefixes: number;
  /** the biggest named addresses and groups, biggest first */
  top: Contributor[];
}

/** What `doc` expands to (linear in its rules and groups' members; nothing flattened). */
export function expansionOf(doc: ConfigDoc): Expansion {
  const named = new Map<string, number>(); // name -> rules naming it
  const name = (n: string) => {
    if (n !== '' && n !== 'any') named.set(n, (named.get(n) ?? 0) + 1);
  };
  for (const p of doc.policies) {
    name(p.srcAddr);
    if (p.dstAddr !== p.srcAddr) name(p.dstAddr);
  }
  for (const n of doc.nat) {
    name(n.srcAddr);
    if (n.dstAddr !== n.srcAddr) name(n.dstAddr);
  }
  const sizes = new Map<string, number>();
  const sizeOf = (n: string, depth = 0): number => {
    const a = doc.addresses.get(n);
    if (a) return a.ips.length;
    const known = sizes.get(n);
    if (known !== undefined) return known;
    const g = doc.addressGroups.get(n);
    sizes.set(n, 0); // a cycle (never stored: groups.ts refuses it) counts nothing
    let s = 0;
    if (g && depth < 64) for (const m of g.members) s += sizeOf(m, depth + 1);
    sizes.set(n, s);
    return s;
  };
  const all: Contributor[] = [];
  let prefixes = 0;
  for (const [n, rules] of named) {
    const size = sizeOf(n);
    prefixes += size;
    all.push({ name: n, kind: doc.addressGroups.has(n) ? 'address group' : 'address', prefixes: size, rules });
  }
  all.sort((a, b) => b.prefixes - a.prefixes || (a.name < b.name ? -1 : 1));
  const rules = doc.policies.length + doc.nat.length;
  return { total: rules + prefixes, rules, prefixes, top: all.slice(0, TOP) };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The line a refusal carries: the limit, what the document needs, and its biggest contributors. */
export function overBudgetLine(e: Expansion, limit: number): string {
  const top = e.top.filter((c) => c.prefixes > 0)
    .map((c) => `${c.kind} "${c.name}" ${fmt(c.prefixes)} prefixes (named by ${fmt(c.rules)} rule${c.rules === 1 ? '' : 's'})`);
  return `the configuration expands to ${fmt(e.total)} prefixes and rules, over the limit of ${fmt(limit)} (FW_MAX_EXPANSION): `
    + `${fmt(e.rules)} rules and ${fmt(e.prefixes)} prefixes of the addresses and groups they name`
    + (top.length ? `; biggest: ${top.join(', ')}` : '');
}

/** The problem line when `doc` is over `limit`, else null. */
export function expansionProblem(doc: ConfigDoc, limit: number): string | null {
  const e = expansionOf(doc);
  return e.total > limit ? overBudgetLine(e, limit) : null;
}

/**
 * Refuses (400 `code`) when `after` is over `limit` and expands to more than `before` did
 * (`before`: the total of the document the change started from, or undefined: always checked).
 */
export function checkExpansion(after: ConfigDoc, limit: number, before?: number, code: ErrorCode = 'ERR_NET_1008'): void {
  const e = expansionOf(after);
  if (e.total > limit && (before === undefined || e.total > before)) throw new FwError(code, overBudgetLine(e, limit));
}
