// The address and service sets the rule specs of one compile are made of (compile.ts), each
// made once per name or service list. With a BuildMemo (build-memo.ts) a set whose objects
// did not change since the previous build is that build's very set object: the specs made of
// it are then reused whole, and identical sets are what tells the trees' reuse that nothing
// in a rule changed.
import { GroupFlattener } from '../config/groups';
import type { ConfigDoc, ServiceObj } from '../config/types';
import type { AddrEntry, BuildMemo, SvcEntry } from './build-memo';
import { addrFieldSet, serviceSetsOf, sportPiecesOf, type AddrSet } from './sets';

export class SpecSets {
  readonly groups: GroupFlattener;
  private readonly addrs = new Map<string, AddrEntry>();
  private readonly svcs = new Map<string, SvcEntry>();
  private readonly serviceSet: (names: readonly string[]) => Array<[number, number]>;
  private addresses: ReturnType<GroupFlattener['addresses']> | null = null;

  constructor(private readonly doc: ConfigDoc, private readonly memo?: BuildMemo) {
    this.groups = new GroupFlattener(doc);
    this.serviceSet = serviceSetsOf(doc.services);
    // this build's sets, shared by its policy and NAT specs
    if (memo) {
      this.addrs = memo.addr;
      this.svcs = memo.svc;
    }
  }

  /**
   * Takes over the previous build's sets whose objects did not change (so that they need not
   * be looked at again for the policies that did not change either), and returns the address
   * names and service lists (as `listKey` writes them) whose sets may differ from that build's.
   */
  carryOver(previous: BuildMemo): { addr: Set<string>; svc: Set<string> } {
    const dirty = { addr: new Set<string>(), svc: new Set<string>() };
    const all = (this.addresses ??= this.groups.addresses());
    for (const [key, e] of previous.addr) {
      // a name gone from the document is not carried (nothing unchanged names it)
      if (key !== '' && !all.has(key)) dirty.addr.add(key);
      else if (this.addr(key) !== e.set) dirty.addr.add(key);
    }
    for (const [raw, e] of previous.svc) {
      // the list back from its key (names hold no newline)
      const names = raw.startsWith('0:') ? [] : raw.slice(raw.indexOf(':') + 1).split('\n');
      if (this.services(names) !== e) dirty.svc.add(raw);
    }
    return dirty;
  }

  /** The set of an address field ('' and 'any': everything). */
  addr(name: string): AddrSet {
    const key = name === '' || name === 'any' ? '' : name;
    const known = this.addrs.get(key);
    if (known) return known.set;
    // address groups flattened, each once
    const all = (this.addresses ??= this.groups.addresses());
    const obj = key === '' ? undefined : all.get(key);
    const was = this.memo?.previous?.addr.get(key);
    const same = was !== undefined && (was.obj === obj || (was.obj !== undefined && obj !== undefined && sameIps(was.obj.ips, obj.ips)));
    const set = same ? was.set : addrFieldSet(key, all);
    this.addrs.set(key, { obj, set });
    return set;
  }

  /** The sets of a policy's service list as written (one entry per list: policies repeat
   * their lists; sorting the names and merging the intervals in BigInt for each policy was most
   * of policySpecs). */
  services(services: readonly string[]): SvcEntry {
    const raw = listKey(services);
    let e = this.svcs.get(raw);
    if (e) return e;
    // service groups flattened: the set and its key are those of the services they hold
    const names = services.length === 0 || services.includes('any') ? [] : [...new Set(this.groups.services(services))].sort();
    const key = names.join(',');
    const deps = this.depsOf(names);
    const was = this.memo?.previous?.svc.get(raw);
    if (was && was.names === key && sameObjects(was.deps, deps)) e = was;
    else e = { svc: this.serviceSet(names), svcKey: names.length === 0 ? '*' : key, sport: sportPiecesOf(this.doc.services, names), names: key, deps };
    this.svcs.set(raw, e);
    return e;
  }

  /** The service objects named (a changed service is another object). */
  depsOf(names: readonly string[]): Array<ServiceObj | undefined> {
    return names.map((n) => this.doc.services.get(n));
  }
}

/** The key of a service list as written. */
export function listKey(services: readonly string[]): string {
  return `${services.length}:${services.join('\n')}`;
}

function sameIps(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function sameObjects(a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
