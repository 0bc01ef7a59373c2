// What a change can read or write in the candidate, as keys, so that a shared store can append
// changes made on different instances without making each wait for the others' (issue 20):
// two changes whose footprints share no key commute, and each is valid after the other
// exactly when it is valid alone. The store then accepts a change built on a candidate that
// lacks some other instance's entries as long as none of them touched its keys.
//
// Only changes whose reach is known exactly get keys; everything else is null ("may touch
// anything") and is appended only on a candidate that has seen every entry before it:
// - an address or a service (create, update, delete) reads and writes that one named object.
//   Its delete also reads every policy and NAT rule (are they referring to it?), and policy
//   and NAT changes are null, so they never pass by a delete unseen. No other resource reads
//   addresses or services, and the named tables are sets (listed and stored sorted by name),
//   so creates landing in another order give the same document.
// - address and service groups (create, update, delete): null. A group reads its members and
//   its kind's namespace, and an address or service delete reads the groups holding it; as
//   a '*' entry a group change is never passed by unseen, so that delete stays exact.
// - policies, NAT rules and routes share their order and id counters: null. Zones, interfaces,
//   VLANs and DHCP pools read each other's membership: null. A load or a rollback: null.
// - a batch: the union of its operations' keys, null if any is null.
import type { Change, ObjectChange } from './changes';

/** Beyond this many keys a change is treated as touching anything (bounds one store call). */
export const MAX_FOOTPRINT_KEYS = 4096;

const NAMED = new Set(['address', 'service']);

/** The keys of the objects `change` reads or writes; null when it may touch anything. */
export function footprint(change: Change): string[] | null {
  if (change.op === 'batch') return unionFootprint(change.changes.map(objectFootprint));
  if (change.op === 'rollback' || change.op === 'load') return null;
  return objectFootprint(change);
}

function objectFootprint(change: ObjectChange): string[] | null {
  const key = objectKey(change);
  return key === null ? null : [key];
}

/** `kind:name` of the one named object an address or service change touches. */
function objectKey(change: ObjectChange): string | null {
  if (!NAMED.has(change.kind) || change.op === 'move') return null;
  const name = change.op === 'create' ? (change.body as { name?: unknown } | null)?.name : change.key;
  return typeof name === 'string' ? `${change.kind}:${name}` : null;
}

/** The union of several changes' footprints (a group appended together); null if any is null. */
export function unionFootprint(footprints: Array<string[] | null>): string[] | null {
  const keys = new Set<string>();
  for (const f of footprints) {
    if (f === null) return null;
    for (const k of f) keys.add(k);
    if (keys.size > MAX_FOOTPRINT_KEYS) return null;
  }
  return [...keys];
}
