// Rule bases of other shapes than bench/scale-config.ts's tidy one (issue 44), for the commit
// benches (commit-scale.ts, commit-cpu.ts): the same 4 zones (eth0-eth3, 10.1-4.0.0/16), 100
// single-port services, but objects that ignore zone boundaries, as a rule base grown over
// years has them.
//
// - `cross-zone`: the shape. Address objects of one prefix each, /24, /28 or /32,
//   anywhere in the four /16s; policies between any two zones including the same one; a
//   third deny; 10,000 addresses (fewer below 100,000 policies: one per ten policies, at
//   least 1,000), so many policies share objects and hundreds of earlier rules cover a later one.
// - `grouped`: the cross-zone rule base written with groups: 1,000 address groups of 2-12
//   addresses of any zone (a fifth of them nesting two other groups), 30 service groups of
//   2-5 services; 60% of policy sides name a group, 30% of services a service group.
// - `ipv6-heavy`: the cross-zone shape with four fifths of the addresses IPv6 (each zone also
//   has fd00:<z>::/48 on its interface; prefixes /48, /56, /64, /96, /112 or /128 anywhere in
//   the four /48s), a fifth of the policies naming `any` on one side.
// - `classbench`: ClassBench's acl1_10k, fw1_10k and ipc1_10k (bench/classbench.ts's exact
//   mapping), interleaved, in the order of each set, and repeated with the first octet of
//   every prefix shifted past 30,000 rules; zones any; actions allow/deny alternating.
import { emptyDoc } from '../src/config/document';
import { canonicalCidr } from '../src/config/net';
import type { ConfigDoc } from '../src/config/types';
import { rng } from '../src/eval/prng';
import { classBenchDoc, loadClassBench, type CbRule } from './classbench';
import path from 'node:path';
import fs from 'node:fs';
import { SCALE_SERVICES, SCALE_ZONES } from './scale-config';

export const SHAPES = ['cross-zone', 'grouped', 'ipv6-heavy', 'classbench'] as const;
export type Shape = (typeof SHAPES)[number];

/** The four zones and interfaces (IPv6 too with `v6`) and the 100 single-port services. */
function base(r: () => number, v6: boolean): { doc: ConfigDoc; services: string[] } {
  const int = (n: number) => Math.floor(r() * n);
  const doc = emptyDoc(['eth0', 'eth1', 'eth2', 'eth3']);
  SCALE_ZONES.forEach((name, z) => {
    doc.zones.set(name, { name, type: 'l3', color: '', networks: [`10.${z + 1}.0.0/16`, ...(v6 ? [`fd00:${z + 1}::/48`] : [])] });
    const eth = doc.interfaces.get(`eth${z}`)!;
    Object.assign(eth, { ip: `10.${z + 1}.0.1/16`, zone: name }, v6 ? { addresses: [`10.${z + 1}.0.1/16`, `fd00:${z + 1}::1/48`] } : {});
  });
  const services: string[] = [];
  for (let s = 0; s < SCALE_SERVICES; s++) {
    const name = `s${s}`;
    doc.services.set(name, { name, protocol: r() < 0.8 ? 'tcp' : 'udp', ports: [1000 + s * 7 + int(7)] });
    services.push(name);
  }
  return { doc, services };
}

const LENS4 = [24, 28, 32];
const LENS6 = [48, 56, 64, 96, 112, 128];
const hex = (n: number) => n.toString(16);

/** The cross-zone rule base; `v6` the share of IPv6 addresses, `anyShare` of policy sides naming `any`. */
function crossZone(policies: number, seed: number, v6 = 0, anyShare = 0): ConfigDoc {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const { doc, services } = base(r, v6 > 0);
  const addresses = policies >= 100_000 ? 10_000 : Math.max(1_000, Math.round(policies / 10));
  const names: string[] = [];
  for (let a = 0; a < addresses; a++) {
    const z = 1 + int(SCALE_ZONES.length);
    const ip = r() < v6
      ? canonicalCidr(`fd00:${z}:${hex(int(65536))}:${hex(int(65536))}:${hex(int(65536))}:${hex(int(65536))}:${hex(int(65536))}:${hex(int(65536))}/${LENS6[int(LENS6.length)]}`)!
      : canonicalCidr(`10.${z}.${int(256)}.${int(256)}/${LENS4[int(LENS4.length)]}`)!;
    const name = `a${a}`;
    doc.addresses.set(name, { name, ips: [ip] });
    names.push(name);
  }
  const side = () => (r() < anyShare ? 'any' : names[int(names.length)]);
  for (let p = 0; p < policies; p++) {
    doc.policies.push({
      id: p + 1, action: r() < 1 / 3 ? 'deny' : 'allow', srcZone: SCALE_ZONES[int(SCALE_ZONES.length)], dstZone: SCALE_ZONES[int(SCALE_ZONES.length)],
      srcAddr: side(), dstAddr: side(), services: [services[int(services.length)]], log: false,
    });
  }
  doc.counters.policy = policies;
  return doc;
}

/** The cross-zone rule base with address and service groups in most policies. */
function grouped(policies: number, seed: number): ConfigDoc {
  const doc = crossZone(policies, seed);
  const r = rng(seed + 1);
  const int = (n: number) => Math.floor(r() * n);
  const names = [...doc.addresses.keys()];
  const groups: string[] = [];
  for (let g = 0; g < 1000; g++) {
    const members = new Set<string>();
    // a fifth nest two earlier groups beside their own addresses
    if (g >= 50 && g % 5 === 0) for (let k = 0; k < 2; k++) members.add(groups[int(groups.length)]);
    const size = 2 + int(11);
    while (members.size < size) members.add(names[int(names.length)]);
    const name = `g${g}`;
    doc.addressGroups.set(name, { name, members: [...members], description: '' });
    groups.push(name);
  }
  const svcs = [...doc.services.keys()];
  for (let g = 0; g < 30; g++) {
    const members = new Set<string>();
    const size = 2 + int(4);
    while (members.size < size) members.add(svcs[int(svcs.length)]);
    doc.serviceGroups.set(`sg${g}`, { name: `sg${g}`, members: [...members], description: '' });
  }
  doc.policies = doc.policies.map((p) => ({
    ...p,
    srcAddr: r() < 0.6 ? groups[int(groups.length)] : p.srcAddr,
    dstAddr: r() < 0.6 ? groups[int(groups.length)] : p.dstAddr,
    services: r() < 0.3 ? [`sg${int(30)}`] : p.services,
  }));
  return doc;
}

export const CLASSBENCH_DIR = path.resolve(__dirname, '../../../shared/bench-data/classbench');

/** acl1_10k, fw1_10k and ipc1_10k interleaved up to `policies` rules (copies past their sum with the first octet shifted), on the four zones' interfaces. */
function classbench(policies: number, dir: string): ConfigDoc {
  const sets = ['acl1_10k', 'fw1_10k', 'ipc1_10k'].map((s) => loadClassBench(path.join(dir, s)));
  const rules: CbRule[] = [];
  const total = sets.reduce((s, x) => s + x.length, 0);
  for (let copy = 0; rules.length < policies; copy++) {
    // a copy's prefixes moved by copy * 37 in the first octet (a /0 stays the whole space)
    const shift = (a: [number, number]): [number, number] => {
      if (copy === 0 || a[1] === 0) return a;
      const mask = a[1] === 32 ? 0xffffffff : (0xffffffff << (32 - a[1])) >>> 0;
      return [(((a[0] + ((copy * 37) << 24)) >>> 0) & mask) >>> 0, a[1]];
    };
    for (let k = 0; k < total && rules.length < policies; k++) {
      const set = sets[k % 3];
      const i = Math.floor(k / 3);
      if (i >= set.length) continue;
      const x = set[i];
      rules.push({ ...x, src: shift(x.src), dst: shift(x.dst) });
    }
  }
  const cb = classBenchDoc(rules);
  // the four zones' interfaces of the other shapes, the rules as mapped (zones any)
  const { doc } = base(rng(44), false);
  doc.services.clear();
  for (const [k, v] of cb.services) doc.services.set(k, v);
  for (const [k, v] of cb.addresses) doc.addresses.set(k, v);
  doc.policies = cb.policies;
  doc.counters.policy = cb.policies.length;
  return doc;
}

export function shapeConfig(shape: Shape, policies: number, opts: { seed?: number; classbenchDir?: string } = {}): ConfigDoc {
  const seed = opts.seed ?? 44;
  switch (shape) {
    case 'cross-zone': return crossZone(policies, seed);
    case 'grouped': return grouped(policies, seed);
    case 'ipv6-heavy': return crossZone(policies, seed, 0.8, 0.1);
    case 'classbench': {
      const dir = opts.classbenchDir ?? CLASSBENCH_DIR;
      if (!fs.existsSync(path.join(dir, 'acl1_10k'))) throw new Error(`classbench: no rule sets in ${dir} (--classbench DIR)`);
      return classbench(policies, dir);
    }
  }
}

export function isShape(s: string): s is Shape {
  return (SHAPES as readonly string[]).includes(s);
}
