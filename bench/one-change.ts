// One change to a document, as an operator's commit makes it (bench/commit-cpu.ts --change):
// a working copy sharing every object it does not change, as a candidate does, with one
// policy edited in place (its destination address and action) or one address object given
// another network in its zone. Deterministic by round, so that two builds compared in one
// run change the same objects.
import type { ConfigDoc } from '../src/config/types';

export type ChangeKind = 'policy' | 'address';

/** `copy`: the build's workingCopy (src/config/document), so that each build uses its own. */
export function oneChange(doc: ConfigDoc, kind: ChangeKind, round: number, copy: (d: ConfigDoc) => ConfigDoc): ConfigDoc {
  const out = copy(doc);
  const k = (round * 7919 + 13) % Math.max(1, doc.policies.length);
  if (kind === 'policy') {
    const ps = (out.policies = [...doc.policies]);
    const p = ps[k], other = ps[(k + 1) % ps.length];
    ps[k] = { ...p, action: p.action === 'allow' ? 'deny' : 'allow', dstAddr: p.dstAddr === other.dstAddr ? p.srcAddr : other.dstAddr };
  } else {
    const names = [...doc.addresses.keys()];
    // the k-th address or the next IPv4 one (bench/shapes.ts's ipv6-heavy shape)
    let n = k % names.length;
    for (let t = 0; t < names.length && !doc.addresses.get(names[n])!.ips[0].includes('.'); t++) n = (n + 1) % names.length;
    const a = doc.addresses.get(names[n])!;
    // another host in the same /16 (the scale configuration's zones are 10.z.0.0/16)
    const [o1, o2] = a.ips[0].split('.');
    out.addresses.set(a.name, { ...a, ips: [`${o1}.${o2}.${round % 256}.${(k % 254) + 1}/32`] });
  }
  return out;
}
