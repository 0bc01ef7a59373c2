// The random rule base of issue 30 (commit at scale): 4 zones, one per interface, each with
// one /16 (10.1-4.0.0/16); address objects of one network each, /24 to /32, inside their
// zone's /16; 100 single-port services (tcp or udp); policies between random zone pairs with
// random actions, one address object on each side from its zone and one service. There is
// no structure for the compiler to exploit: the shape of a flat, grown rule base. One address
// object per ten policies unless told otherwise.
import { emptyDoc } from '../src/config/document';
import { canonicalCidr } from '../src/config/net';
import type { ConfigDoc } from '../src/config/types';
import { rng } from '../src/eval/prng';

export interface ScaleOptions {
  policies: number;
  addresses?: number;
  seed?: number;
}

export const SCALE_ZONES = ['z1', 'z2', 'z3', 'z4'] as const;
export const SCALE_SERVICES = 100;

export function scaleConfig(o: ScaleOptions): ConfigDoc {
  const r = rng(o.seed ?? 30);
  const int = (n: number) => Math.floor(r() * n);
  const addresses = o.addresses ?? Math.max(SCALE_ZONES.length, Math.round(o.policies / 10));
  const doc = emptyDoc(['eth0', 'eth1', 'eth2', 'eth3']);
  SCALE_ZONES.forEach((name, z) => {
    doc.zones.set(name, { name, type: 'l3', color: '', networks: [`10.${z + 1}.0.0/16`] });
    Object.assign(doc.interfaces.get(`eth${z}`)!, { ip: `10.${z + 1}.0.1/16`, zone: name });
  });
  const byZone: string[][] = SCALE_ZONES.map(() => []);
  for (let a = 0; a < addresses; a++) {
    const z = a % SCALE_ZONES.length;
    const len = 24 + int(9);
    const ip = canonicalCidr(`10.${z + 1}.${int(256)}.${int(256)}/${len}`)!;
    const name = `a${a}`;
    doc.addresses.set(name, { name, ips: [ip] });
    byZone[z].push(name);
  }
  const services: string[] = [];
  for (let s = 0; s < SCALE_SERVICES; s++) {
    const name = `s${s}`;
    // distinct ports, so that no two services are the same object under two names
    doc.services.set(name, { name, protocol: r() < 0.8 ? 'tcp' : 'udp', ports: [1000 + s * 7 + int(7)] });
    services.push(name);
  }
  for (let p = 0; p < o.policies; p++) {
    const a = int(SCALE_ZONES.length);
    const b = (a + 1 + int(SCALE_ZONES.length - 1)) % SCALE_ZONES.length;
    doc.policies.push({
      id: p + 1, action: r() < 0.7 ? 'allow' : 'deny', srcZone: SCALE_ZONES[a], dstZone: SCALE_ZONES[b],
      srcAddr: byZone[a][int(byZone[a].length)], dstAddr: byZone[b][int(byZone[b].length)], services: [services[int(services.length)]], log: false,
    });
  }
  doc.counters.policy = o.policies;
  return doc;
}

/** A canonical network of len bits in the /16 of zone number `z` (10.z.0.0/16), from c.d. */
export function scaleCidr(z: number, len: number, c: number, d: number): string {
  return canonicalCidr(`10.${z}.${c}.${d}/${len}`)!;
}
