// NAT rules that no packet can ever reach: the analysis's report about the NAT table (objects
// nothing uses are object-usage.ts's).
import type { ConfigDoc } from '../config/types';
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
  const { specs, meta, rule } = natTable(doc, ifIdx);
  const space = new RuleSpace(specs.map(regionMaker(zoneCount)));
  const always = meta.map((m) => m.outIf === -1 && !m.masquerade);
  const never = new Uint8Array(specs.length); // an entry no packet reaches takes none from later ones
  /** The entries that take entry i whole, or null when some packet reaches it. */
  const coverOf = (i: number): Set<number> | null => {
    const me = space.rules[i];
    const cover = new Set<number>();
    for (const f of [4, 6] as const) {
      if (!regionOf(me, f)) continue;
      // per class of source ports when the rules name some (RuleSpace.parts)
      for (const { R, C, ids } of space.parts(i, f, (j) => always[j] && !never[j])) {
        const u = unionCover(R, C, work);
        if (!u.covered) return null;
        for (const c of irredundant(R, C, u.cover, work)) cover.add(ids[c]);
      }
    }
    never[i] = 1;
    return cover;
  };
  // a rule of several entries (static: issue 41) is unreachable when each of them is
  const out: Coverage[] = [];
  for (let i = 0; i < specs.length;) {
    const r = rule[i];
    let covered = !doc.nat[r].disabled; // a disabled rule is reported as disabled, not as unreachable
    const by = new Set<number>();
    for (; i < specs.length && rule[i] === r; i++) {
      if (doc.nat[r].disabled) never[i] = 1;
      const c = covered ? coverOf(i) : null;
      if (c === null) covered = false;
      else for (const j of c) by.add(meta[j].id);
    }
    by.delete(doc.nat[r].id);
    if (covered) out.push({ id: doc.nat[r].id, coveredBy: [...by].sort((a, b) => a - b) });
  }
  return out;
}
