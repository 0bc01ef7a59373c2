// Creating, copying and (de)serializing configuration documents.
import type { ConfigDoc, InterfaceObj } from './types';
import type { HaConfig } from './ha';

export function emptyDoc(interfaceNames: string[] = []): ConfigDoc {
  const interfaces = new Map<string, InterfaceObj>();
  for (const name of [...new Set(interfaceNames)].sort()) {
    interfaces.set(name, { name, ip: '', management: [], state: 'up', zone: '' });
  }
  return {
    addresses: new Map(),
    services: new Map(),
    addressGroups: new Map(),
    serviceGroups: new Map(),
    dynamicSets: new Map(),
    schedules: new Map(),
    zones: new Map(),
    interfaces,
    vlans: new Map(),
    dhcp: new Map(),
    routes: [],
    policies: [],
    nat: [],
    localPolicies: [],
    counters: { policy: 0, nat: 0, route: 0 },
    ha: undefined,
  };
}

/** Serialized form: named collections as arrays sorted by key, so equal docs give equal JSON. */
export interface SerializedDoc {
  addresses: unknown[];
  services: unknown[];
  /** absent in documents stored before groups existed, and when empty */
  addressGroups?: unknown[];
  serviceGroups?: unknown[];
  /** absent when there are none (issue 40) */
  dynamicSets?: unknown[];
  /** absent when there are none (issue 40 item 4) */
  schedules?: unknown[];
  zones: unknown[];
  interfaces: unknown[];
  vlans: unknown[];
  dhcp: unknown[];
  routes: unknown[];
  policies: unknown[];
  nat: unknown[];
  /** issue 41: absent in documents stored before local policies, and when empty */
  localPolicies?: unknown[];
  counters: ConfigDoc['counters'];
  /** the HA pair (issue 39): absent in documents without one */
  ha?: HaConfig;
}

/** The document's named collections (maps by name), in the order they are written. */
export const NAMED_COLLECTIONS = ['addresses', 'services', 'addressGroups', 'serviceGroups', 'dynamicSets', 'schedules', 'zones', 'interfaces', 'vlans', 'dhcp'] as const;
const NAMED = NAMED_COLLECTIONS;

function sortedValues<T>(m: Map<string, T>): T[] {
  return [...m.keys()].sort().map((k) => m.get(k) as T);
}

export function serializeDoc(doc: ConfigDoc): SerializedDoc {
  return {
    addresses: sortedValues(doc.addresses),
    services: sortedValues(doc.services),
    // written only when there are groups: a document without any serializes as it did before
    ...(doc.addressGroups.size ? { addressGroups: sortedValues(doc.addressGroups) } : {}),
    ...(doc.serviceGroups.size ? { serviceGroups: sortedValues(doc.serviceGroups) } : {}),
    ...(doc.dynamicSets.size ? { dynamicSets: sortedValues(doc.dynamicSets) } : {}),
    ...(doc.schedules?.size ? { schedules: sortedValues(doc.schedules) } : {}),
    zones: sortedValues(doc.zones),
    interfaces: sortedValues(doc.interfaces),
    vlans: sortedValues(doc.vlans),
    dhcp: sortedValues(doc.dhcp),
    routes: doc.routes,
    policies: doc.policies,
    nat: doc.nat,
    // written only when there are local policies: a document without any serializes as it did
    ...(doc.localPolicies.length ? { localPolicies: doc.localPolicies } : {}),
    counters: doc.counters,
    ...(doc.ha ? { ha: doc.ha } : {}),
  };
}

export function parseDoc(s: SerializedDoc): ConfigDoc {
  const doc = emptyDoc();
  for (const key of NAMED) {
    const map = doc[key] as Map<string, unknown>;
    for (const item of (s[key] ?? []) as Array<Record<string, unknown>>) {
      const k = key === 'dhcp' ? item.interface : item.name;
      map.set(String(k), item);
    }
  }
  doc.routes = s.routes as ConfigDoc['routes'];
  doc.policies = s.policies as ConfigDoc['policies'];
  doc.nat = s.nat as ConfigDoc['nat'];
  doc.localPolicies = (s.localPolicies ?? []) as ConfigDoc['localPolicies'];
  doc.counters = { ...s.counters };
  doc.ha = s.ha;
  return doc;
}

/** A deep copy: a rollback's document, which shares no object with the version it restores. */
export function cloneDoc(doc: ConfigDoc): ConfigDoc {
  return parseDoc(structuredClone(serializeDoc(doc)));
}

/**
 * A working copy: its tables are new, its objects shared, since changes replace objects and
 * never edit them (src/config/undo.ts relies on it too). A change of many steps (a load, a
 * batch) leaves `doc` as it was until the copy's fields are assigned back; a new candidate
 * on a committed version leaves the version as it was, where a deep copy would cost 100-200
 * ms at 20,000 policies on every begin and every rebuild of the candidate.
 */
export function workingCopy(doc: ConfigDoc): ConfigDoc {
  return {
    addresses: new Map(doc.addresses),
    services: new Map(doc.services),
    addressGroups: new Map(doc.addressGroups),
    serviceGroups: new Map(doc.serviceGroups),
    dynamicSets: new Map(doc.dynamicSets),
    schedules: new Map(doc.schedules),
    zones: new Map(doc.zones),
    interfaces: new Map(doc.interfaces),
    vlans: new Map(doc.vlans),
    dhcp: new Map(doc.dhcp),
    routes: doc.routes,
    policies: doc.policies,
    nat: doc.nat,
    localPolicies: doc.localPolicies,
    counters: { ...doc.counters },
    ha: doc.ha,
  };
}
