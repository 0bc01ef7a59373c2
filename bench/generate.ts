// A generated zone-based configuration of realistic shape: tens of zones, each with a VLAN
// (IPv4 /24 and IPv6 /64 are not both possible on one interface here, so every zone has an
// IPv4 VLAN and an IPv6 VLAN) and zone networks; thousands of multi-CIDR address objects
// drawn from their zone's networks (hosts, small subnets, some IPv6); hundreds of services
// with port lists and ranges; policies concentrated on a few busy zone pairs, with some any
// zones, any addresses and any services; NAT rules; a default route per family.
import { emptyDoc } from '../src/config/document';
import { canonicalCidr } from '../src/config/net';
import type { ConfigDoc, PortEntry } from '../src/config/types';
import { rng } from '../src/eval/prng';

export { rng };

export interface GenOptions {
  zones: number;
  addresses: number;
  services: number;
  policies: number;
  nat: number;
  seed: number;
}

export const REALISTIC: GenOptions = { zones: 40, addresses: 4000, services: 300, policies: 20000, nat: 60, seed: 7 };


export function generateConfig(o: GenOptions = REALISTIC): ConfigDoc {
  const r = rng(o.seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(a: readonly T[]) => a[int(a.length)];
  const doc = emptyDoc(['eth0', 'eth1', 'eth2', 'eth3']);
  const wan = doc.interfaces.get('eth0')!;
  wan.ip = '198.51.100.2/24';
  doc.zones.set('untrust', { name: 'untrust', type: 'l3', color: '', networks: [] });
  wan.zone = 'untrust';
  const v6wan = doc.interfaces.get('eth1')!;
  v6wan.ip = '2001:db8:ffff::2/64';
  v6wan.zone = 'untrust';
  doc.routes.push({ id: 1, description: 'default', destination: '0.0.0.0/0', gateway: '198.51.100.1', interface: '', metric: 0 });
  doc.routes.push({ id: 2, description: 'default6', destination: '::/0', gateway: '2001:db8:ffff::1', interface: '', metric: 0 });
  doc.counters.route = 2;

  const zoneNames: string[] = ['untrust'];
  const nets4: string[][] = [['0.0.0.0/0']];
  const nets6: string[][] = [['::/0']];
  let vid = 100;
  for (let z = 0; z < o.zones; z++) {
    const name = `z${String(z).padStart(2, '0')}`;
    const b = 10 + Math.floor(z / 200);
    const c = z % 200;
    const n4 = `${b}.${c}.0.0/16`;
    const n6 = `2001:db8:${(0x100 + z).toString(16)}::/48`;
    doc.zones.set(name, { name, type: 'l3', color: '', networks: [n4, n6] });
    for (const [suffix, ip] of [['4', `${b}.${c}.0.1/24`], ['6', `2001:db8:${(0x100 + z).toString(16)}::1/64`]]) {
      const vname = `vl${vid}`;
      doc.vlans.set(vname, { name: vname, id: vid, parent: suffix === '4' ? 'eth2' : 'eth3', ip, zone: name, state: 'up', management: [] });
      vid++;
    }
    zoneNames.push(name);
    nets4.push([n4]);
    nets6.push([n6]);
  }

  // address objects, each belonging to one zone
  const byZone: string[][] = zoneNames.map(() => []);
  for (let a = 0; a < o.addresses; a++) {
    const zi = a < 40 ? 0 : 1 + int(zoneNames.length - 1);
    const name = `obj${a}`;
    const ips: string[] = [];
    const k = 1 + Math.min(5, Math.floor(-Math.log(1 - r()) * 1.5));
    for (let i = 0; i < k; i++) {
      if (zi === 0) {
        const len = pick([32, 32, 24, 20, 16]);
        const addr = [1 + int(223), int(256), int(256), int(256)];
        ips.push(`${addr.join('.')}/${len}`);
      } else if (r() < 0.25) {
        const base = nets6[zi][0].split('::')[0];
        const len = pick([128, 128, 64, 56]);
        ips.push(`${base}:${int(256).toString(16)}::${int(65536).toString(16)}/${len}`);
      } else {
        const [b, c] = nets4[zi][0].split('.').map(Number);
        const len = pick([32, 32, 32, 28, 24]);
        ips.push(`${b}.${c}.${int(256)}.${int(256)}/${len}`);
      }
    }
    doc.addresses.set(name, { name, ips: canonical(ips) });
    byZone[zi].push(name);
  }

  const svcNames: string[] = [];
  for (let s = 0; s < o.services; s++) {
    const name = `svc${s}`;
    const protocol = r() < 0.8 ? 'tcp' : 'udp';
    const ports: PortEntry[] = [];
    const k = 1 + int(4);
    for (let i = 0; i < k; i++) {
      if (r() < 0.2) {
        const lo = 1024 + int(40000);
        ports.push(`${lo}-${lo + 1 + int(2000)}`);
      } else ports.push(pick([22, 25, 53, 80, 110, 143, 443, 445, 993, 1433, 3306, 3389, 5432, 8080, 8443]) + (r() < 0.5 ? 0 : int(20000)));
    }
    doc.services.set(name, { name, protocol, ports: [...new Set(ports)] });
    svcNames.push(name);
  }

  // busy zone pairs: a Zipf-like choice among the pairs
  const pairs: Array<[number, number]> = [];
  for (let a = 0; a < zoneNames.length; a++) for (let b = 0; b < zoneNames.length; b++) if (a !== b) pairs.push([a, b]);
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = int(i + 1);
    [pairs[i], pairs[j]] = [pairs[j], pairs[i]];
  }
  const zipf = () => Math.min(pairs.length - 1, Math.floor(Math.exp(r() * Math.log(pairs.length + 1)) - 1));
  for (let p = 0; p < o.policies; p++) {
    const [a, b] = pairs[zipf()];
    const anySrcZone = r() < 0.03;
    const anyDstZone = r() < 0.03;
    const srcAddr = r() < 0.1 || byZone[a].length === 0 ? '' : pick(byZone[a]);
    const dstAddr = r() < 0.05 || byZone[b].length === 0 ? '' : pick(byZone[b]);
    const services = r() < 0.15 ? [] : [...new Set(Array.from({ length: 1 + int(3) }, () => pick(svcNames)))];
    doc.policies.push({
      id: p + 1,
      action: r() < 0.85 ? 'allow' : 'deny',
      srcZone: anySrcZone ? '' : zoneNames[a],
      dstZone: anyDstZone ? '' : zoneNames[b],
      srcAddr,
      dstAddr,
      services,
      log: r() < 0.3,
    });
  }
  doc.counters.policy = o.policies;
  for (let n = 0; n < o.nat; n++) {
    const zi = 1 + int(zoneNames.length - 1);
    if (n % 3 === 0) {
      const host = pick(byZone[zi].length ? byZone[zi] : ['']);
      const ip = host ? doc.addresses.get(host)!.ips[0].split('/')[0] : '10.0.0.1';
      doc.nat.push({ id: n + 1, description: '', type: 'dnat-ip', srcZone: 'untrust', dstZone: '', srcAddr: '', dstAddr: pick(byZone[0]), service: pick(svcNames), translatedIp: ip, translatedPort: '', outInterface: '' });
    } else {
      doc.nat.push({ id: n + 1, description: '', type: 'snat', srcZone: zoneNames[zi], dstZone: 'untrust', srcAddr: r() < 0.5 ? '' : pick(byZone[zi].length ? byZone[zi] : ['']), dstAddr: '', service: '', translatedIp: r() < 0.5 ? '' : '198.51.100.10', translatedPort: '', outInterface: r() < 0.5 ? '' : 'eth0' });
    }
  }
  doc.counters.nat = o.nat;
  return doc;
}

/** Canonical networks, as the configuration layer stores them (host bits cleared, unique). */
function canonical(ips: string[]): string[] {
  return [...new Set(ips.map((i) => canonicalCidr(i)).filter((c): c is string => c !== null))];
}

/**
 * The configuration of issue 15's soak scenario: `addresses` host objects (one /32 each),
 * zones trust (eth0) and untrust (eth1), one service, and `policies` policies from trust to
 * untrust, each between two of the addresses. The soak benchmark and the leak test commit
 * one changed address at a time on top of it.
 */
export function soakConfig(addresses: number, policies: number): ConfigDoc {
  const doc = emptyDoc(['eth0', 'eth1']);
  const links: Array<[string, string, string]> = [['eth0', 'trust', '10.0.0.1/16'], ['eth1', 'untrust', '192.0.2.1/24']];
  for (const [ifname, zone, ip] of links) {
    doc.zones.set(zone, { name: zone, type: 'l3', color: '', networks: [] });
    Object.assign(doc.interfaces.get(ifname)!, { ip, zone });
  }
  for (let i = 0; i < addresses; i++) doc.addresses.set(soakAddressName(i), { name: soakAddressName(i), ips: [soakAddressIp(i, 0)] });
  doc.services.set('https', { name: 'https', protocol: 'tcp', ports: [443] });
  for (let p = 0; p < policies; p++) {
    doc.policies.push({
      id: p + 1, action: p % 7 === 0 ? 'deny' : 'allow', srcZone: 'trust', dstZone: 'untrust',
      srcAddr: soakAddressName(p % addresses), dstAddr: soakAddressName((p * 7 + 1) % addresses), services: ['https'], log: false,
    });
  }
  doc.counters.policy = policies;
  return doc;
}

export function soakAddressName(i: number): string {
  return `h${i}`;
}

/** The `round`-th address of host object i: 10.(16 + round % 200).x.y/32, unique per object. */
export function soakAddressIp(i: number, round: number): string {
  return `10.${16 + (round % 200)}.${(i >> 8) & 255}.${i & 255}/32`;
}
