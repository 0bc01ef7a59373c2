// What a candidate adds, changes and deletes against the running configuration. Used by
// GET /api/config/diff and for the change summary recorded with each version.
import type { ConfigDoc } from './types';

export interface DiffItem {
  kind: string; // address, service, zone, interface, vlan, dhcp, route, policy, nat
  key: string; // name, interface or id
}

export interface ConfigDiff {
  added: DiffItem[];
  changed: DiffItem[];
  deleted: DiffItem[];
  /** rule tables whose order changed: "policies", "nat" */
  reordered: string[];
}

type Keyed = { key: string; value: unknown };

function entries(doc: ConfigDoc): Record<string, Keyed[]> {
  const named = (m: Map<string, unknown>) => [...m].map(([key, value]) => ({ key, value }));
  const byId = (a: Array<{ id: number }>) => a.map((value) => ({ key: String(value.id), value }));
  return {
    address: named(doc.addresses),
    service: named(doc.services),
    'address-group': named(doc.addressGroups),
    'service-group': named(doc.serviceGroups),
    zone: named(doc.zones),
    interface: named(doc.interfaces),
    vlan: named(doc.vlans),
    dhcp: named(doc.dhcp),
    route: byId(doc.routes),
    policy: byId(doc.policies),
    nat: byId(doc.nat),
  };
}

export function diffDocs(running: ConfigDoc, candidate: ConfigDoc): ConfigDiff {
  const out: ConfigDiff = { added: [], changed: [], deleted: [], reordered: [] };
  const before = entries(running);
  const after = entries(candidate);
  for (const kind of Object.keys(before)) {
    const old = new Map(before[kind].map((e) => [e.key, e.value]));
    const neu = new Map(after[kind].map((e) => [e.key, e.value]));
    for (const [key, value] of neu) {
      const was = old.get(key);
      if (was === undefined) out.added.push({ kind, key });
      // a candidate shares the objects it did not change with its base (session/service.ts)
      else if (was !== value && JSON.stringify(was) !== JSON.stringify(value)) out.changed.push({ kind, key });
    }
    for (const key of old.keys()) if (!neu.has(key)) out.deleted.push({ kind, key });
  }
  if (orderChanged(before.policy, after.policy)) out.reordered.push('policies');
  if (orderChanged(before.nat, after.nat)) out.reordered.push('nat');
  return out;
}

/** True when the rules present in both tables are not in the same relative order. */
function orderChanged(before: Keyed[], after: Keyed[]): boolean {
  const inAfter = new Set(after.map((e) => e.key));
  const inBefore = new Set(before.map((e) => e.key));
  const a = before.filter((e) => inAfter.has(e.key)).map((e) => e.key);
  const b = after.filter((e) => inBefore.has(e.key)).map((e) => e.key);
  return a.join(',') !== b.join(',');
}

export function diffSummary(d: ConfigDiff): string {
  const parts = [`${d.added.length} added`, `${d.changed.length} changed`, `${d.deleted.length} deleted`];
  if (d.reordered.length) parts.push(`reordered ${d.reordered.join(' and ')}`);
  return parts.join(', ');
}
