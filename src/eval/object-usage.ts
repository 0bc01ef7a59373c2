// Address and service objects no policy or NAT rule names, directly or through a group, with
// the policies' references counted per name so that the next analysis follows a change
// instead of reading every policy again: at 100,000 policies, collecting their names into sets
// was 10-15 ms of a one-change analysis (issue 30), more than the rest of the copied decisions.
import type { ConfigDoc, GroupObj, PolicyObj } from '../config/types';

/** How many times the policies name each address and service object (a memo: never changed). */
export interface PolicyUsage {
  /** the policy table the counts are of (its objects, compared by identity with the next) */
  policies: readonly PolicyObj[];
  addr: ReadonlyMap<string, number>;
  svc: ReadonlyMap<string, number>;
}

function add(m: Map<string, number>, name: string, by: number): void {
  const c = (m.get(name) ?? 0) + by;
  if (c === 0) m.delete(name);
  else m.set(name, c);
}

function count(addr: Map<string, number>, svc: Map<string, number>, p: PolicyObj, by: number): void {
  add(addr, p.srcAddr, by);
  add(addr, p.dstAddr, by);
  for (const s of p.services) add(svc, s, by);
}

const sameRefs = (a: PolicyObj, b: PolicyObj) => a.srcAddr === b.srcAddr && a.dstAddr === b.dstAddr &&
  a.services.length === b.services.length && a.services.every((s, k) => s === b.services[k]);

/**
 * The counts of `policies`, from `prev`'s when the table has the same length: a policy object
 * that is not the previous one at its position has its old names taken off and its new ones
 * counted (documents share their unchanged objects, so this is a pass of identity tests). The
 * previous counts are copied before any change: an older memo may still be used.
 */
export function policyUsage(policies: readonly PolicyObj[], prev: PolicyUsage | null): PolicyUsage {
  if (prev && prev.policies.length === policies.length) {
    let addr: Map<string, number> | null = null, svc: Map<string, number> | null = null;
    for (let i = 0; i < policies.length; i++) {
      const p = policies[i], o = prev.policies[i];
      if (p === o || sameRefs(p, o)) continue;
      addr ??= new Map(prev.addr);
      svc ??= new Map(prev.svc);
      count(addr, svc, o, -1);
      count(addr, svc, p, 1);
    }
    return { policies, addr: addr ?? prev.addr, svc: svc ?? prev.svc };
  }
  const addr = new Map<string, number>(), svc = new Map<string, number>();
  for (const p of policies) count(addr, svc, p, 1);
  return { policies, addr, svc };
}

/** The names of `objects` and `groups` neither named by a policy (`counts`) or NAT rule (`nat`)
 * nor held, at any depth, by a group that is. */
function unused(objects: ReadonlyMap<string, unknown>, groups: ReadonlyMap<string, GroupObj>, counts: ReadonlyMap<string, number>, nat: ReadonlySet<string>): string[] {
  const named = (n: string) => counts.has(n) || nat.has(n);
  const held = new Set<string>();
  const todo: string[] = [];
  for (const g of groups.keys()) if (named(g)) todo.push(g);
  while (todo.length) {
    for (const m of groups.get(todo.pop()!)?.members ?? []) {
      if (!held.has(m) && !named(m)) {
        held.add(m);
        todo.push(m);
      }
    }
  }
  const out: string[] = [];
  for (const names of [objects.keys(), groups.keys()]) for (const n of names) if (!named(n) && !held.has(n)) out.push(n);
  return out.sort();
}

/**
 * Address and service objects no policy or NAT rule names, directly or through a group. They
 * share their namespace with the groups, so an unused group is listed with them.
 */
export function unusedObjects(doc: ConfigDoc, usage: PolicyUsage = policyUsage(doc.policies, null)): { unusedAddresses: string[]; unusedServices: string[] } {
  const natAddr = new Set<string>(), natSvc = new Set<string>();
  for (const r of doc.nat) {
    natAddr.add(r.srcAddr).add(r.dstAddr);
    natSvc.add(r.service);
  }
  return {
    unusedAddresses: unused(doc.addresses, doc.addressGroups, usage.addr, natAddr),
    unusedServices: unused(doc.services, doc.serviceGroups, usage.svc, natSvc),
  };
}
