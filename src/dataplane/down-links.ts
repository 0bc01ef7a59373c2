// Commit warnings about links that are down (issue 32): a down interface or VLAN routes
// nothing (eval.md), so a static route through it is unusable, and a NAT target or a policy's
// destination that only it would reach is unreachable. Nothing is wrong enough to refuse (an
// operator takes a link down on purpose), but the commit says so instead of committing
// without a word. The routing is eval.md's, through the data plane's topology: what is
// reachable now is compared with what would be if every link were up.
import { GroupFlattener } from '../config/groups';
import { formatCidr, parseCidr, parseIp, type Family, type IpAddr } from '../config/net';
import { staticPair } from '../config/nat-static';
import type { ConfigDoc } from '../config/types';
import { Topology, type Link } from './topology';
import { bytesToBig, type Seg } from './ranges';

/** The document with every interface and VLAN up (only `state` differs; nothing else is copied deeply). */
function allUp(doc: ConfigDoc): ConfigDoc {
  const up = <T extends { state: string }>(m: Map<string, T>) => new Map([...m].map(([k, v]) => [k, { ...v, state: 'up' as const }]));
  return { ...doc, interfaces: up(doc.interfaces), vlans: up(doc.vlans) };
}

/** eval.md's egress link of one address (route or connected subnet), per family, computed once. */
class Egress {
  private readonly segs = new Map<Family, Seg<string>[]>();
  constructor(readonly topology: Topology) {}

  of(ip: IpAddr): string | null {
    let segs = this.segs.get(ip.family);
    if (!segs) {
      segs = this.topology.routeSegments(ip.family);
      this.segs.set(ip.family, segs);
    }
    const v = bytesToBig(ip.bytes);
    return segs.find((s) => s.lo <= v && v <= s.hi)?.value ?? null;
  }
}

const describe = (l: Link) => `${l.kind === 'vlan' ? 'VLAN' : 'interface'} ${l.name}`;

/** One warning a line, in a fixed order: routes and NAT rules by id, policies in evaluation order. */
export function downLinkWarnings(doc: ConfigDoc): string[] {
  const now = new Topology(doc);
  if (now.links.every((l) => l.up)) return [];
  const ifUp = new Topology(allUp(doc));
  const out: string[] = [];
  for (const r of [...doc.routes].sort((a, b) => a.id - b.id)) {
    const would = ifUp.routeEgress(r);
    if (!now.routeEgress(r) && would) out.push(`route ${r.id}: through ${describe(now.link(would.name)!)}, which is down: the route is unusable`);
  }
  const egressNow = new Egress(now);
  const egressIfUp = new Egress(ifUp);
  /** The down link that alone would reach `ip`, or null. */
  const onlyThroughDown = (ip: IpAddr): Link | null => {
    if (egressNow.of(ip) !== null) return null;
    const would = egressIfUp.of(ip);
    return would === null ? null : now.link(would)!;
  };
  for (const n of [...doc.nat].sort((a, b) => a.id - b.id)) {
    // a static rule's inbound target is its inside network (issue 41)
    const pair = n.type === 'static' ? staticPair(doc, n) : null;
    const inside = pair !== null && typeof pair !== 'string' ? pair.inside : null;
    const target = inside ? { family: inside.family, bytes: inside.bytes } : n.type !== 'snat' && n.type !== 'static' && n.translatedIp !== '' ? parseIp(n.translatedIp) : null;
    const link = target && onlyThroughDown(target);
    if (link) out.push(`nat ${n.id}: target ${inside ? formatCidr(inside) : n.translatedIp} is reachable only through ${describe(link)}, which is down`);
  }
  const groups = new GroupFlattener(doc);
  // each destination looked at once, whatever the number of policies naming it (a group of
  // 65,536 prefixes named by 1,000 policies was 65 million parses)
  const downOf = new Map<string, Array<[string, Link]>>();
  for (const p of doc.policies) {
    if (p.dstAddr === '') continue;
    let down = downOf.get(p.dstAddr);
    if (!down) {
      down = [];
      for (const net of groups.address(p.dstAddr)?.ips ?? []) { // a group: its networks
        const c = parseCidr(net);
        const link = c && onlyThroughDown({ family: c.family, bytes: c.bytes });
        if (link) down.push([net, link]);
      }
      downOf.set(p.dstAddr, down);
    }
    for (const [net, link] of down) out.push(`policy ${p.id}: destination ${p.dstAddr} (${net}) is reachable only through ${describe(link)}, which is down`);
  }
  return out;
}
