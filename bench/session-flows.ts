// Live connections for the session benchmarks (bench/sessions.ts): flows a generated
// configuration accepts, and the `conntrack -R` lines that put them in a kernel's table.
import { CompiledConfig } from '../src/eval/compiled';
import { parsePacket } from '../src/eval/packet';
import { generationMark, hex, policyMark } from '../src/dataplane/marks';

/** The mark of a connection accepted under `version` by a policy: its policy bits, stamped with the version's generation. */
const acceptedMark = (version: number, policyId: number) => hex(Number(generationMark(version)) + Number(policyMark(policyId)));
import type { ConfigDoc } from '../src/config/types';
import { rng } from './generate';
import { firstZone } from '../src/config/zone-list';

export interface Flow { proto: 'tcp' | 'udp'; src: string; dst: string; sport: number; dport: number; mark: string; natSport: number | null }

/** A random host address inside a prefix (IPv4 only: the generated zones' networks). */
function hostIn(prefix: string, r: () => number): string | null {
  const [ip, lenText] = prefix.split('/');
  if (ip.includes(':')) return null;
  const len = Number(lenText);
  const base = ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
  const size = 2 ** (32 - len);
  const n = (base + (size > 2 ? 1 + Math.floor(r() * (size - 2)) : 0)) >>> 0;
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Flows the running version accepts, drawn from its allow policies. */
export function flows(doc: ConfigDoc, compiled: CompiledConfig, count: number): Flow[] {
  const r = rng(11);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)];
  // a zone without networks (untrust) is reached through the default route: the benchmark range
  const zoneNet = (zone: string) => (zone ? pick(doc.zones.get(zone)!.networks.filter((n) => !n.includes(':'))) ?? '198.18.0.0/15' : `10.${Math.floor(r() * 40)}.0.0/16`);
  const addrNet = (obj: string, zone: string) => (obj ? pick(doc.addresses.get(obj)!.ips) : zoneNet(zone));
  const allows = doc.policies.filter((p) => p.action === 'allow');
  const seen = new Set<string>();
  const out: Flow[] = [];
  let sport = 1024;
  const natPorts = new Map<string, number>(); // the masquerade's next port per destination: reply tuples stay unique
  while (out.length < count) {
    const p = pick(allows);
    const src = hostIn(addrNet(p.srcAddr, firstZone(p.srcZone)), r);
    const dst = hostIn(addrNet(p.dstAddr, firstZone(p.dstZone)), r);
    if (!src || !dst || src === dst) continue;
    const svc = p.services.length ? doc.services.get(pick(p.services))! : { protocol: r() < 0.8 ? 'tcp' : 'udp', ports: [443] };
    const entry = String(pick(svc.ports));
    const [lo, hi] = entry.split('-').map(Number);
    const dport = hi ? lo + Math.floor(r() * (hi - lo + 1)) : lo;
    const proto = svc.protocol === 'udp' ? 'udp' : 'tcp';
    sport = sport >= 65000 ? 1024 : sport + 1;
    const key = `${proto} ${src} ${sport} ${dst} ${dport}`;
    if (seen.has(key)) continue;
    const answer = compiled.eval(parsePacket({ 'src-ip': src, 'dst-ip': dst, protocol: proto, 'src-port': sport, 'dst-port': dport }));
    if (answer.action !== 'allow' || !answer.policy) continue;
    seen.add(key);
    let natSport: number | null = null;
    if (r() < 0.7) {
      const to = `${proto} ${dst} ${dport}`;
      natSport = natPorts.get(to) ?? 1024;
      if (natSport > 65000) continue;
      natPorts.set(to, natSport + 1);
    }
    out.push({ proto, src, dst, sport, dport, mark: acceptedMark(1, answer.policy.id), natSport });
  }
  return out;
}

/** The `conntrack -R` line inserting a flow as an established, assured connection. */
export function insertLine(f: Flow): string {
  const replyDst = f.natSport === null ? ['-q', f.src, '--reply-port-dst', String(f.sport)] : ['-q', '198.51.100.2', '--reply-port-dst', String(f.natSport)];
  const state = f.proto === 'tcp' ? ['--state', 'ESTABLISHED'] : [];
  return ['-I', '-p', f.proto, '-s', f.src, '-d', f.dst, '--sport', String(f.sport), '--dport', String(f.dport),
    '-r', f.dst, '--reply-port-src', String(f.dport), ...replyDst, ...state, '-t', '7200', '-u', 'SEEN_REPLY,ASSURED', '--mark', String(Number(f.mark))].join(' ');
}

