// NAT rules that no packet can ever reach, and objects nothing uses: the analysis's reports
// about the configuration beyond the policies' covers.
import type { ConfigDoc, GroupObj } from '../config/types';
import type { Coverage } from './analysis-types';
import { natTable } from './compile';
import { irredundant, unionCover } from './cover-search';
import { regionMaker, regionOf, RuleSpace } from './rule-space';
import type { Work } from './work';

/**
 * NAT rules no packet can reach: a rule that can never apply (no address family, an unknown
 * out-interface, an empty field), or whose space earlier rules take whole. Only rules that
 * always apply to their packets count as taking them (a masquerade depends on the egress
 * interface's address, an out-interface on the route), so a report is never wrong.
 */
export function unreachableNatRules(doc: ConfigDoc, zoneCount: number, work: Work): Coverage[] {
  const ifIdx = new Map([...doc.interfaces.keys(), ...doc.vlans.keys()].map((name, i) => [name, i]));
  const { specs, meta } = natTable(doc, ifIdx);
  const space = new RuleSpace(specs.map(regionMaker(zoneCount)));
  const always = meta.map((m) => m.outIf === -1 && !m.masquerade);
  const out: Coverage[] = [];
  const never = new Uint8Array(specs.length); // a rule no packet reaches takes none from later ones
  space.rules.forEach((me, i) => {
    // a disabled rule is reported as disabled, not as unreachable
    if (doc.nat[i].disabled) return void (never[i] = 1);
    const cover = new Set<number>();
    for (const f of [4, 6] as const) {
      if (!regionOf(me, f)) continue;
      // per class of source ports when the rules name some (RuleSpace.parts)
      for (const { R, C, ids } of space.parts(i, f, (j) => always[j] && !never[j])) {
        const u = unionCover(R, C, work);
        if (!u.covered) return;
        for (const c of irredundant(R, C, u.cover, work)) cover.add(ids[c]);
      }
    }
    never[i] = 1;
    out.push({ id: meta[i].id, coveredBy: [...cover].sort((a, b) => a - b).map((j) => meta[j].id) });
  });
  return out;
}

/** Everything `roots` names directly or through groups of `groups` (at any depth). */
function reachable(roots: Set<string>, groups: ReadonlyMap<string, GroupObj>): Set<string> {
  const todo = [...roots];
  while (todo.length) {
    for (const m of groups.get(todo.pop()!)?.members ?? []) if (!roots.has(m)) roots.add(m), todo.push(m);
  }
  return roots;
}

/**
 * Address and service objects no policy or NAT rule names, directly or through a group. They
 * share their namespace with the groups, so an unused group is listed with them.
 */
export function unusedObjects(doc: ConfigDoc): { unusedAddresses: string[]; unusedServices: string[] } {
  const usedAddr = new Set<string>();
  const usedSvc = new Set<string>();
  for (const p of doc.policies) {
    usedAddr.add(p.srcAddr).add(p.dstAddr);
    for (const s of p.services) usedSvc.add(s);
  }
  for (const r of doc.nat) {
    usedAddr.add(r.srcAddr).add(r.dstAddr);
    usedSvc.add(r.service);
  }
  reachable(usedAddr, doc.addressGroups);
  reachable(usedSvc, doc.serviceGroups);
  return {
    unusedAddresses: [...doc.addresses.keys(), ...doc.addressGroups.keys()].filter((a) => !usedAddr.has(a)).sort(),
    unusedServices: [...doc.services.keys(), ...doc.serviceGroups.keys()].filter((s) => !usedSvc.has(s)).sort(),
  };
}
