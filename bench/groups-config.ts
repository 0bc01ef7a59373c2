// The configuration of bench/groups.ts (issue 27 point 7): the generated 20,000-policy
// configuration with 2,000 address groups of 10 members nested two deep and 100 service
// groups, and the same configuration written without groups (the baseline).
import { exportDoc } from '../src/config/export';
import { GroupFlattener } from '../src/config/groups';
import type { ConfigDoc } from '../src/config/types';
import { loadable } from './automation';
import { generateConfig, REALISTIC, rng } from './generate';
import { firstZone } from '../src/config/zone-list';

/** The generated configuration with 2,000 nested address groups and 100 service groups in its policies. */
export function groupedConfig(policies = 20_000): ConfigDoc {
  const doc = generateConfig({ ...REALISTIC, policies });
  const r = rng(11);
  const int = (n: number) => Math.floor(r() * n);
  // addresses by zone: a group holds addresses of one zone, as an operator's would
  const byZone = new Map<string, string[]>();
  const zoneOf = new Map<string, string>();
  for (const p of doc.policies) for (const [a, z] of [[p.srcAddr, firstZone(p.srcZone)], [p.dstAddr, firstZone(p.dstZone)]]) if (a && z && !zoneOf.has(a)) zoneOf.set(a, z);
  for (const [a, z] of zoneOf) byZone.set(z, [...(byZone.get(z) ?? []), a]);
  const zones = [...byZone.keys()].filter((z) => byZone.get(z)!.length >= 10);
  const leafByZone = new Map<string, string[]>();
  for (let g = 0; g < 1800; g++) {
    const z = zones[g % zones.length];
    const pool = byZone.get(z)!;
    const members = new Set<string>();
    while (members.size < 10) members.add(pool[int(pool.length)]);
    const name = `grp${g}`;
    doc.addressGroups.set(name, { name, members: [...members], description: `zone ${z}` });
    leafByZone.set(z, [...(leafByZone.get(z) ?? []), name]);
  }
  const topByZone = new Map<string, string[]>();
  for (let g = 0; g < 200; g++) {
    const z = zones[g % zones.length];
    const pool = leafByZone.get(z)!;
    const members = new Set<string>();
    while (members.size < Math.min(10, pool.length)) members.add(pool[int(pool.length)]);
    const name = `top${g}`;
    doc.addressGroups.set(name, { name, members: [...members], description: `zone ${z}` });
    topByZone.set(z, [...(topByZone.get(z) ?? []), name]);
  }
  const svcs = [...doc.services.keys()];
  for (let g = 0; g < 100; g++) doc.serviceGroups.set(`sgrp${g}`, { name: `sgrp${g}`, members: [...new Set([0, 1, 2].map(() => svcs[int(svcs.length)]))], description: '' });
  const groupOf = (zone: string) => {
    const tops = topByZone.get(zone);
    const leaves = leafByZone.get(zone);
    if (!leaves) return null;
    return tops && r() < 0.3 ? tops[int(tops.length)] : leaves[int(leaves.length)];
  };
  doc.policies = doc.policies.map((p) => {
    const src = p.srcAddr && r() < 0.7 ? groupOf(firstZone(p.srcZone)) : null;
    const dst = p.dstAddr && r() < 0.7 ? groupOf(firstZone(p.dstZone)) : null;
    const services = p.services.length && r() < 0.3 ? [`sgrp${int(100)}`] : p.services;
    return { ...p, srcAddr: src ?? p.srcAddr, dstAddr: dst ?? p.dstAddr, services };
  });
  return doc;
}

/** The same configuration without groups: each group an address of its flattened networks, each service group its services. */
export function flatConfig(doc: ConfigDoc): ConfigDoc {
  const f = new GroupFlattener(doc);
  const flat: ConfigDoc = { ...doc, addresses: new Map(f.addresses()), addressGroups: new Map(), serviceGroups: new Map() };
  flat.policies = doc.policies.map((p) => ({ ...p, services: f.services(p.services) }));
  return flat;
}

/** A document the API loads (bench/automation.ts's: the generator's overlapping port entries dropped). */
export function loadableDoc(doc: ConfigDoc): string {
  return loadable(JSON.stringify(exportDoc(doc, 0)));
}

