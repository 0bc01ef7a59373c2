// A point of a match space written as a packet for POST /api/eval. Zones are pinned by name
// (then the policy step sees exactly these fields, whatever the routes and NAT say); a point
// whose zone is "none" leaves that zone out, to be derived.
import { formatIp, type Family } from '../config/net';
import type { ExamplePacket } from './analysis-types';
import type { Point } from './paint';
import { PROTO_ICMP, PROTO_TCP, PROTO_UDP } from './types';
import { hasPorts, isIcmp } from '../config/protocols';

function ipText(family: Family, v: bigint): string {
  const bytes = new Uint8Array(family === 4 ? 4 : 16);
  for (let i = bytes.length - 1; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 0xffn);
  return formatIp(family, bytes);
}

/** `zones`: zone names in index order (zone i + 1 is zones[i]). */
export function examplePacket(p: Point, family: Family, zones: readonly string[]): ExamplePacket {
  const key = Number(p.v);
  const proto = key >>> 16;
  const j: ExamplePacket = {
    'src-ip': ipText(family, p.s),
    'dst-ip': ipText(family, p.d),
    protocol: proto === PROTO_TCP ? 'tcp' : proto === PROTO_UDP ? 'udp' : proto === PROTO_ICMP ? 'icmp' : proto,
  };
  // a service key of another protocol is its protocol alone (every rule holds all or none of it)
  if (hasPorts(proto)) j['dst-port'] = key & 0xffff;
  if (hasPorts(proto) && p.sp !== undefined) j['src-port'] = p.sp;
  if (isIcmp(proto)) {
    j['icmp-type'] = (key >> 8) & 0xff;
    j['icmp-code'] = key & 0xff;
  }
  if (p.zs > 0) j['src-zone'] = zones[p.zs - 1];
  if (p.zd > 0) j['dst-zone'] = zones[p.zd - 1];
  return j;
}
