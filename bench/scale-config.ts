// The random rule base of issue 30, for commits at scale: 4 zones (one /16 network and one
// interface each), address objects of /24 to /32 drawn from the four /16s, 100 single-port
// services, and policies between random zone pairs with random addresses, services and
// actions. Random rules shadow one another a lot (many shadowed and redundant warnings),
// which is what the commit answer's warnings must survive. Addresses: a tenth of the policies
// unless given.
import { emptyDoc } from '../src/config/document';
import type { ConfigDoc } from '../src/config/types';
import { rng } from '../src/eval/prng';

export interface ScaleOptions {
  policies: number;
  addresses?: number;
  seed?: number;
}

const ZONES = 4;
const SERVICES = 100;

export function scaleConfig(o: ScaleOptions): ConfigDoc {
  const r = rng(o.seed ?? 30);
  const int = (n: number) => Math.floor(r() * n);
  const ifnames = Array.from({ length: ZONES }, (_, z) => `eth${z}`);
  const doc = emptyDoc(ifnames);
  const zones = Array.from({ length: ZONES }, (_, z) => `zone${z}`);
  zones.forEach((name, z) => {
    doc.zones.set(name, { name, type: 'l3', color: '', networks: [`10.${z}.0.0/16`] });
    Object.assign(doc.interfaces.get(ifnames[z])!, { ip: `10.${z}.0.1/16`, zone: name });
  });
  const byZone: string[][] = zones.map(() => []);
  const addresses = o.addresses ?? Math.max(1, Math.round(o.policies / 10));
  for (let a = 0; a < addresses; a++) {
    const z = int(ZONES);
    const name = `a${a}`;
    doc.addresses.set(name, { name, ips: [scaleCidr(z, 24 + int(9), int(256), int(256))] });
    byZone[z].push(name);
  }
  const services: string[] = [];
  for (let s = 0; s < SERVICES; s++) {
    const name = `s${s}`;
    doc.services.set(name, { name, protocol: r() < 0.8 ? 'tcp' : 'udp', ports: [1000 + s] });
    services.push(name);
  }
  for (let p = 0; p < o.policies; p++) {
    const a = int(ZONES), b = int(ZONES);
    const pick = (list: string[]) => (list.length ? list[int(list.length)] : '');
    doc.policies.push({
      id: p + 1,
      action: r() < 0.5 ? 'allow' : 'deny',
      srcZone: zones[a],
      dstZone: zones[b],
      srcAddr: pick(byZone[a]),
      dstAddr: pick(byZone[b]),
      services: [services[int(SERVICES)]],
      log: false,
    });
  }
  doc.counters.policy = o.policies;
  return doc;
}

/** A canonical network of zone z's /16: the host bits of c.d below `len` cleared. */
export function scaleCidr(z: number, len: number, c: number, d: number): string {
  const v = ((c << 8) | d) & (len >= 32 ? 0xffff : (0xffff << (32 - len)) & 0xffff);
  return `10.${z}.${v >> 8}.${v & 255}/${len}`;
}
