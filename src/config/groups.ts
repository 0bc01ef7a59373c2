// Address groups and service groups: named lists of members, each an object of the base kind
// (an address, a service) or another group of the same kind. A group name shares the
// namespace of its base kind, so wherever a rule names an address (src-addr, dst-addr) or a
// service (services, service) it may name a group instead.
//
// Everything that matches packets (the reference evaluator, the compiled classifier, the
// analysis, the data plane) sees a group flattened: an address group as the union of its
// members' networks, a service group as the set of services it holds at any depth. Each
// consumer builds one GroupFlattener per document it works on, which flattens every group
// once (a nested group's result is reused by every group that holds it), never per reference:
// 20,000 policies naming 2,000 groups cost 2,000 flattenings.
//
// Decisions (issue 27 leaves them open):
// - a group has 1-1,024 members, each named once (repeated: 400 ERR_NET_1004);
// - an unknown member: 400 ERR_NET_2003; a member that holds the group itself (a cycle):
//   400 ERR_NET_2003 naming the path; nesting deeper than 8 (a group of base objects has depth
//   1): 400 ERR_NET_1008. Each names the field (`members[i]`).
import type { AddressObj, ConfigDoc, GroupObj } from './types';
import { FwError } from '../errors';

/** Whether an address changes at run time (issue 40): an FQDN address or an external list. */
export function isRuntimeAddress(a: AddressObj | undefined): boolean {
  return !!(a?.fqdn || a?.url);
}

/** Whether a document holds an external list (issue 40). */
export function hasList(doc: ConfigDoc): boolean {
  for (const a of doc.addresses.values()) if (a.url) return true;
  return false;
}

/** Whether a document holds an FQDN address (issue 40). */
export function hasFqdn(doc: ConfigDoc): boolean {
  for (const a of doc.addresses.values()) if (a.fqdn) return true;
  return false;
}

export const MAX_GROUP_DEPTH = 8;
export const MAX_GROUP_MEMBERS = 1024;

/**
 * The flattened view of one document's groups; each group is flattened once per instance, and
 * only when something asks for it (issue 38: 6,000 groups each holding only a group of 65,536
 * prefixes, referenced by nothing, were all flattened by every compile: 6,000 x 65,536
 * strings). A group whose members add nothing to one member's networks (a group holding one
 * group) shares that member's array instead of copying it.
 */
export class GroupFlattener {
  private readonly addrMemo = new Map<string, AddressObj>();
  private readonly svcMemo = new Map<string, readonly string[]>();
  private flatMap: ReadonlyMap<string, AddressObj> | null = null;

  constructor(private readonly doc: ConfigDoc) {}

  /** An address as it is, or a group as a pseudo-address holding every network of its members (first seen order, each once). */
  address(name: string): AddressObj | undefined {
    const a = this.doc.addresses.get(name);
    // an FQDN address (issue 40) as everything: what its name may resolve to (like a dynamic set)
    if (a) return isRuntimeAddress(a) ? { name, ips: ['0.0.0.0/0', '::/0'] } : a;
    const g = this.doc.addressGroups.get(name);
    if (!g) return this.dynamicSet(name);
    let flat = this.addrMemo.get(name);
    if (!flat) this.addrMemo.set(name, (flat = { name, ips: this.flatten(g.members) }));
    return flat;
  }

  /** The networks of `members`, each once in first seen order; the first member's own array when the others add nothing. */
  private flatten(members: readonly string[]): string[] {
    const lists = members.map((m) => this.address(m)?.ips ?? []);
    const first = lists[0] ?? [];
    // an address's list holds each network once (checkCidrList), and so does a group's
    if (lists.length === 1) return first as string[];
    const ips = new Set<string>();
    for (const list of lists) for (const ip of list) ips.add(ip);
    return ips.size === first.length && sameStart(ips, first) ? (first as string[]) : [...ips];
  }

  /**
   * A dynamic set (issue 40) as everything of its family: what its contents may grow to. The
   * analysis sees this and drops every claim that depends on it (eval/dynamic-claims.ts);
   * eval and the packet tracer see the current entries instead (dynamic/overlay.ts), and the
   * kernel a named set of its own (dataplane/nft.ts).
   */
  private dynamicSet(name: string): AddressObj | undefined {
    const d = this.doc.dynamicSets?.get(name);
    return d && { name, ips: [d.family === 'ipv4' ? '0.0.0.0/0' : '::/0'] };
  }

  /**
   * Every address, address group and dynamic set by name (groups flattened when looked up):
   * what matchers look names up in. Iterating it flattens every group; lookups flatten one.
   */
  addresses(): ReadonlyMap<string, AddressObj> {
    if (this.doc.addressGroups.size === 0 && !this.doc.dynamicSets?.size && !hasFqdn(this.doc) && !hasList(this.doc)) return this.doc.addresses;
    return (this.flatMap ??= new LazyAddresses(this.doc, this));
  }

  /** The services a service or a service group stands for (sorted, each once); [] for an unknown name. */
  serviceLeaves(name: string): readonly string[] {
    if (this.doc.services.has(name)) return [name];
    const g = this.doc.serviceGroups.get(name);
    if (!g) return [];
    let flat = this.svcMemo.get(name);
    if (!flat) {
      const out = new Set<string>();
      for (const m of g.members) for (const s of this.serviceLeaves(m)) out.add(s);
      this.svcMemo.set(name, (flat = [...out].sort()));
    }
    return flat;
  }

  /** A rule's list of service names with every group replaced by its services (each once, sorted when a group was expanded). */
  services(names: readonly string[]): string[] {
    if (this.doc.serviceGroups.size === 0 || !names.some((n) => this.doc.serviceGroups.has(n))) return names as string[];
    const out = new Set<string>();
    for (const n of names) {
      if (n === '' || n === 'any') out.add(n);
      else for (const s of this.serviceLeaves(n)) out.add(s);
    }
    return [...out].sort();
  }

  /** True when `name` is a service group. */
  isServiceGroup(name: string): boolean {
    return this.doc.serviceGroups.has(name);
  }
}

/** Whether the set (in insertion order) starts with exactly the items of `list`. */
function sameStart(set: ReadonlySet<string>, list: readonly string[]): boolean {
  let i = 0;
  for (const x of set) {
    if (i >= list.length) return true;
    if (x !== list[i++]) return false;
  }
  return true;
}

/** The addresses and the groups of a document as one read-only map whose groups flatten on lookup. */
class LazyAddresses implements ReadonlyMap<string, AddressObj> {
  constructor(private readonly doc: ConfigDoc, private readonly groups: GroupFlattener) {}

  get size(): number {
    return this.doc.addresses.size + this.doc.addressGroups.size + (this.doc.dynamicSets?.size ?? 0);
  }

  get(name: string): AddressObj | undefined {
    return this.groups.address(name);
  }

  has(name: string): boolean {
    return this.doc.addresses.has(name) || this.doc.addressGroups.has(name) || (this.doc.dynamicSets?.has(name) ?? false);
  }

  *keys(): MapIterator<string> {
    yield* this.doc.addresses.keys();
    yield* this.doc.addressGroups.keys();
    yield* this.doc.dynamicSets?.keys() ?? [];
  }

  *values(): MapIterator<AddressObj> {
    for (const k of this.keys()) yield this.groups.address(k)!;
  }

  *entries(): MapIterator<[string, AddressObj]> {
    for (const k of this.keys()) yield [k, this.groups.address(k)!];
  }

  [Symbol.iterator](): MapIterator<[string, AddressObj]> {
    return this.entries();
  }

  forEach(fn: (value: AddressObj, key: string, map: ReadonlyMap<string, AddressObj>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}

/** What a group resource works on: its table, the base objects beside it, and their names. */
export interface GroupKind {
  what: string; // "address group"
  base: string; // "address"
  groups(doc: ConfigDoc): Map<string, GroupObj>;
  bases(doc: ConfigDoc): ReadonlyMap<string, unknown>;
}

/** The depth of a group (1: base members only) in `groups`; Infinity is never returned because the graph is acyclic when checked. */
function depthOf(groups: ReadonlyMap<string, GroupObj>, name: string, memo: Map<string, number>): number {
  const known = memo.get(name);
  if (known !== undefined) return known;
  let d = 1;
  for (const m of groups.get(name)?.members ?? []) if (groups.has(m)) d = Math.max(d, 1 + depthOf(groups, m, memo));
  memo.set(name, d);
  return d;
}

/** A path of groups from `from` down to `to` through members, or null (a cycle when `to` is the group being written). */
function pathTo(groups: ReadonlyMap<string, GroupObj>, from: string, to: string, seen = new Set<string>()): string[] | null {
  if (from === to) return [to];
  if (seen.has(from)) return null;
  seen.add(from);
  for (const m of groups.get(from)?.members ?? []) {
    if (!groups.has(m)) continue;
    const p = pathTo(groups, m, to, seen);
    if (p) return [from, ...p];
  }
  return null;
}

/**
 * Checks a group's member list for the group `name` about to be written into `kind`'s table
 * of doc: shape, existence, no cycle, and that no group (this one or one holding it) nests
 * deeper than MAX_GROUP_DEPTH after the write. Returns the members to store.
 */
export function checkMembers(doc: ConfigDoc, kind: GroupKind, name: string, members: string[]): string[] {
  if (members.length === 0) throw new FwError('ERR_NET_1004', 'field "members": at least one member is required');
  if (members.length > MAX_GROUP_MEMBERS) throw new FwError('ERR_NET_1008', `field "members": at most ${MAX_GROUP_MEMBERS} members`);
  const groups = kind.groups(doc);
  const bases = kind.bases(doc);
  const seen = new Set<string>();
  members.forEach((m, i) => {
    const field = `members[${i}]`;
    if (seen.has(m)) throw new FwError('ERR_NET_1004', `field "${field}": "${m}" appears twice`);
    seen.add(m);
    if (!bases.has(m) && !groups.has(m)) throw new FwError('ERR_NET_2003', `field "${field}": ${kind.base} or ${kind.what} "${m}" does not exist`);
    if ((bases.get(m) as { url?: string } | undefined)?.url) throw new FwError('ERR_NET_1004', `field "${field}": address "${m}" is an external list, which cannot be a group member (docs/dynamic-objects.md)`);
    if ((bases.get(m) as { fqdn?: string } | undefined)?.fqdn) throw new FwError('ERR_NET_1004', `field "${field}": address "${m}" is an FQDN address, which cannot be a group member (docs/dynamic-objects.md)`);
    const cycle = groups.has(m) ? pathTo(groups, m, name) : null;
    if (cycle) throw new FwError('ERR_NET_2003', `field "${field}": ${kind.what} "${m}" holds "${name}" (${[name, ...cycle].join(' -> ')}): a group cannot hold itself`);
  });
  const memo = new Map<string, number>();
  // a base member counts 0, a group its depth
  const depth = (g: ReadonlyMap<string, GroupObj>, m: string) => (g.has(m) ? depthOf(g, m, memo) : 0);
  const deepest = (g: ReadonlyMap<string, GroupObj>) => {
    let at = 0;
    members.forEach((m, i) => { if (depth(g, m) > depth(g, members[at])) at = i; });
    return at;
  };
  const tooDeep = (g: string, d: number, at: number) =>
    new FwError('ERR_NET_1008', `field "members[${at}]": ${kind.what} "${g}" would nest ${d} deep, more than ${MAX_GROUP_DEPTH}`);
  if (!groups.has(name)) {
    // a new group: nothing holds it yet, so only its own depth can be too much (and no copy
    // of the table: a load creates thousands of groups)
    const at = deepest(groups);
    const d = 1 + depth(groups, members[at]);
    if (d > MAX_GROUP_DEPTH) throw tooDeep(name, d, at);
    return members;
  }
  // an edit: the group and every group holding it may get deeper
  const after = new Map(groups);
  after.set(name, { name, members, description: '' });
  for (const g of after.keys()) {
    if (g !== name && !pathTo(after, g, name)) continue;
    const d = depthOf(after, g, memo);
    if (d > MAX_GROUP_DEPTH) throw tooDeep(g, d, deepest(after));
  }
  return members;
}

/** The groups of `groups` whose members name `member` ("address-group web" style referrers). */
export function groupsHolding(groups: ReadonlyMap<string, GroupObj>, member: string): string[] {
  const out: string[] = [];
  for (const g of groups.values()) if (g.members.includes(member)) out.push(g.name);
  return out.sort();
}

/**
 * The names among `names` listed so that every group comes after the groups it holds (a
 * whole document loads its groups in this order); names in a cycle keep their place at the end.
 */
export function dependencyOrder(items: ReadonlyArray<{ name: string; members: readonly string[] }>): number[] {
  const index = new Map(items.map((it, i) => [it.name, i]));
  const state = new Map<number, 1 | 2>();
  const out: number[] = [];
  const visit = (i: number) => {
    if (state.get(i)) return;
    state.set(i, 1);
    for (const m of items[i].members) {
      const j = index.get(m);
      if (j !== undefined && state.get(j) !== 1) visit(j);
    }
    state.set(i, 2);
    out.push(i);
  };
  items.forEach((_it, i) => visit(i));
  return out;
}
