// Benchmark packets, pre-generated into typed arrays so the timed loop allocates nothing:
// most are drawn from a random policy's match space (random hosts of its prefixes, often
// their first or last address; a port of its services, often a range end), the rest uniform.
import { parseCidr, type Family } from '../src/config/net';
import type { ConfigDoc } from '../src/config/types';
import { loadWords } from '../src/eval/compiled';
import { packetOf } from '../src/eval/packet';
import { parsePortEntry } from '../src/eval/sets';
import { hasPorts, protocolNumber } from '../src/config/protocols';
import type { Packet } from '../src/eval/types';
import { firstZone } from '../src/config/zone-list';

export interface PacketSet {
  n: number;
  fam: Uint8Array; // 4 or 6
  sz: Int32Array; // zone index, 0 none
  dz: Int32Array;
  words: Int32Array; // 8 per packet: src 0..3, dst 4..7
  key: Int32Array; // service key: protocol << 16 | port
  sport: Int32Array; // source port (0 in configurations whose services name none)
  zones: string[];
}

type R = () => number;

function hostIn(cidr: string, r: R): Uint8Array {
  const c = parseCidr(cidr)!;
  const out = new Uint8Array(c.bytes);
  const corner = r();
  for (let bit = c.prefix; bit < out.length * 8; bit++) {
    const v = corner < 0.15 ? 0 : corner < 0.3 ? 1 : r() < 0.5 ? 0 : 1;
    if (v) out[bit >> 3] |= 0x80 >> (bit & 7);
  }
  return out;
}

function randomAddr(family: Family, r: R): Uint8Array {
  const out = new Uint8Array(family === 4 ? 4 : 16);
  for (let i = 0; i < out.length; i++) out[i] = Math.floor(r() * 256);
  return out;
}

export function makePackets(doc: ConfigDoc, n: number, r: R, uniform = 0.2): PacketSet {
  const zones = [...doc.zones.keys()].sort();
  const zi = new Map(zones.map((z, i) => [z, i + 1]));
  const set: PacketSet = { n, fam: new Uint8Array(n), sz: new Int32Array(n), dz: new Int32Array(n), words: new Int32Array(n * 8), key: new Int32Array(n), sport: new Int32Array(n), zones };
  // source ports are drawn only where services name some (ClassBench), so the packets of
  // every other configuration are the ones its earlier measurements used
  const sports = [...doc.services.values()].some((s) => s.sourcePorts !== undefined);
  const inRange = ([lo, hi]: [number, number]) => {
    const c = r();
    return c < 0.2 ? lo : c < 0.4 ? hi : lo + Math.floor(r() * (hi - lo + 1));
  };
  const fams = (name: string): Family[] => {
    if (name === '') return [4, 6];
    const ips = doc.addresses.get(name)?.ips ?? [];
    return ([4, 6] as Family[]).filter((f) => ips.some((c) => (f === 6) === c.includes(':')));
  };
  const addrOf = (name: string, f: Family) => {
    if (name === '') return randomAddr(f, r);
    const list = doc.addresses.get(name)!.ips.filter((c) => (f === 6) === c.includes(':'));
    return hostIn(list[Math.floor(r() * list.length)], r);
  };
  const zoneOf = (name: string) => (name === '' ? Math.floor(r() * (zones.length + 1)) : zi.get(name)!);
  const hasV6 = [...doc.addresses.values()].some((a) => a.ips.some((c) => c.includes(':')));
  const protos = [6, 17, 1, 47];
  for (let i = 0; i < n; i++) {
    let f: Family = hasV6 && r() < 0.5 ? 6 : 4;
    let s: Uint8Array, d: Uint8Array, key: number, sz: number, dz: number;
    const p = doc.policies.length > 0 && r() >= uniform ? doc.policies[Math.floor(r() * doc.policies.length)] : null;
    const both = p ? fams(p.srcAddr).filter((x) => fams(p.dstAddr).includes(x)) : [];
    if (p && both.length > 0) {
      f = both[Math.floor(r() * both.length)];
      s = addrOf(p.srcAddr, f);
      d = addrOf(p.dstAddr, f);
      sz = zoneOf(firstZone(p.srcZone));
      dz = zoneOf(firstZone(p.dstZone));
      if (p.services.length === 0) {
        const proto = protos[Math.floor(r() * protos.length)];
        key = proto === 6 || proto === 17 ? (proto << 16) | Math.floor(r() * 65536) : proto << 16;
      } else {
        const svc = doc.services.get(p.services[Math.floor(r() * p.services.length)])!;
        const proto = protocolNumber(svc.protocol);
        // a protocol without ports: type and code 0 (every service of it here names none)
        key = hasPorts(proto) ? (proto << 16) | inRange(parsePortEntry(svc.ports[Math.floor(r() * svc.ports.length)])!) : proto << 16;
        if (sports && svc.sourcePorts) set.sport[i] = inRange(parsePortEntry(svc.sourcePorts[Math.floor(r() * svc.sourcePorts.length)])!);
        else if (sports) set.sport[i] = Math.floor(r() * 65536);
      }
    } else {
      s = randomAddr(f, r);
      d = randomAddr(f, r);
      sz = Math.floor(r() * (zones.length + 1));
      dz = Math.floor(r() * (zones.length + 1));
      const proto = protos[Math.floor(r() * protos.length)];
      key = proto === 6 || proto === 17 ? (proto << 16) | Math.floor(r() * 65536) : proto << 16;
    }
    if (sports && (p === null || p.services.length === 0)) set.sport[i] = Math.floor(r() * 65536);
    set.fam[i] = f;
    set.sz[i] = sz;
    set.dz[i] = dz;
    set.key[i] = key;
    loadWords(s, set.words, i * 8);
    loadWords(d, set.words, i * 8 + 4);
  }
  return set;
}

/** Packet i as an eval request: zones pinned when `pin`, else derived by the pipeline. */
export function toPacket(set: PacketSet, i: number, pin: boolean): Packet {
  const zone = (z: number) => (pin && z > 0 ? set.zones[z - 1] : null);
  return packetOf(set.fam[i] as Family, set.words, i * 8, set.key[i] >> 16, set.key[i] & 0xffff, set.sport[i], null, zone(set.sz[i]), zone(set.dz[i]));
}
