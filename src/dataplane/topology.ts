// What the configuration says about the network, as functions of one address, flattened into
// ranges (ranges.ts). These are the steps of eval.md (and of src/eval/reference.ts) that do
// not depend on the packet's ports: the source zone, the route (egress interface) and the
// destination zone of an address. The kernel gets them as interval sets, so the nft rules can
// ask "is the source in zone lan" exactly the way POST /api/eval answers it.
import { parseCidr, parseIp, type Cidr, type Family } from '../config/net';
import { linkCidrs } from '../config/link-addresses';
import type { ConfigDoc, RouteObj } from '../config/types';
import { flatten, overlay, type PrefixEntry, type Seg } from './ranges';

export interface Link {
  name: string;
  kind: 'physical' | 'vlan';
  parent: string; // vlan only
  vlanId: number; // vlan only
  up: boolean;
  zone: string | null; // null: none (or a zone that does not exist)
  /** every address of the link (host bits kept) with its connected subnet, `ip` first among its family */
  cidrs: Array<{ addr: Cidr; subnet: Cidr }>;
  management: string[];
}

/** A static route the kernel gets: the one eval.md would pick for its destination. */
export interface KernelRoute {
  id: number;
  destination: Cidr;
  gateway: string; // "" none
  dev: string;
  metric: number;
  onlink: boolean; // the gateway is not in the interface's connected subnet
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class Topology {
  readonly links: Link[]; // by name; a VLAN that repeats an interface's name is ignored, as in eval
  readonly zones: string[]; // sorted
  private readonly linkByName = new Map<string, Link>();

  constructor(readonly doc: ConfigDoc) {
    this.zones = [...doc.zones.keys()].sort();
    const links: Link[] = [];
    const members = [
      ...[...doc.interfaces.values()].map((i) => ({ ...i, kind: 'physical' as const, parent: '', id: 0 })),
      ...[...doc.vlans.values()].map((v) => ({ ...v, kind: 'vlan' as const })),
    ].sort(byName);
    for (const m of members) {
      if (this.linkByName.has(m.name)) continue;
      const link: Link = {
        name: m.name, kind: m.kind, parent: m.parent, vlanId: m.id, up: m.state === 'up',
        zone: m.zone !== '' && doc.zones.has(m.zone) ? m.zone : null,
        cidrs: linkCidrs(m), management: [...m.management],
      };
      this.linkByName.set(m.name, link);
      links.push(link);
    }
    this.links = links;
  }

  link(name: string): Link | undefined {
    return this.linkByName.get(name);
  }

  /** The connected subnets of up links, each as a prefix entry (ties: first link by name). */
  private connectedEntries<V>(value: (l: Link) => V): PrefixEntry<V>[] {
    return this.links.flatMap((l, i) => (l.up ? l.cidrs.map(({ subnet }) => ({ net: subnet, rank: [-subnet.prefix, 0, 0, 0, i], value: value(l) })) : []));
  }

  /** The up link whose connected subnet holds the address most specifically (eval's `connected`). */
  connectedLink(family: Family, bytes: Uint8Array): Link | null {
    let best: Link | null = null;
    let bestPrefix = -1;
    for (const l of this.links) {
      if (!l.up) continue;
      for (const { subnet } of l.cidrs) {
        if (subnet.family === family && subnet.prefix > bestPrefix && containsBytes(subnet, bytes)) {
          best = l;
          bestPrefix = subnet.prefix;
        }
      }
    }
    return best;
  }

  /** Whether the link has an address of this family (masquerade can translate to it). */
  hasFamily(name: string, family: Family): boolean {
    return this.linkByName.get(name)?.cidrs.some((c) => c.addr.family === family) ?? false;
  }

  /** The egress of a static route, or null when the route is unusable (eval.md). */
  routeEgress(r: RouteObj): Link | null {
    if (r.interface !== '') {
      const l = this.linkByName.get(r.interface);
      return l && l.up ? l : null;
    }
    const gw = r.gateway !== '' ? parseIp(r.gateway) : null;
    return gw ? this.connectedLink(gw.family, gw.bytes) : null;
  }

  /**
   * The kernel's static routes: per destination, the usable route eval.md would pick (lower
   * metric, then lower id), and none where an up link's connected subnet is that very prefix
   * (connected subnets win ties). Longest-prefix match in the kernel then picks what eval picks.
   */
  kernelRoutes(): KernelRoute[] {
    const connected = new Set(this.links.filter((l) => l.up).flatMap((l) => l.cidrs.map((c) => key(c.subnet))));
    const best = new Map<string, KernelRoute>();
    const ordered = [...this.doc.routes].sort((a, b) => a.metric - b.metric || a.id - b.id);
    for (const r of ordered) {
      const d = parseCidr(r.destination);
      const egress = this.routeEgress(r);
      if (!d || !egress || connected.has(key(d)) || best.has(key(d))) continue;
      const gw = r.gateway !== '' ? parseIp(r.gateway) : null;
      const onlink = gw !== null && !egress.cidrs.some(({ subnet }) => subnet.family === gw.family && containsBytes(subnet, gw.bytes));
      best.set(key(d), { id: r.id, destination: d, gateway: r.gateway, dev: egress.name, metric: r.metric, onlink });
    }
    return [...best.values()].sort((a, b) => a.id - b.id);
  }

  /** Routes Linux cannot hold (an IPv6 destination through an IPv4 gateway), one line each. */
  routeProblems(): string[] {
    const out: string[] = [];
    for (const r of this.doc.routes) {
      const d = parseCidr(r.destination);
      const gw = r.gateway !== '' ? parseIp(r.gateway) : null;
      if (d && gw && d.family === 6 && gw.family === 4) out.push(`route ${r.id}: Linux cannot route an IPv6 destination through an IPv4 gateway`);
    }
    return out;
  }

  /** Egress link name of the route for each address (eval.md step 2). */
  routeSegments(family: Family): Seg<string>[] {
    const entries: PrefixEntry<string>[] = this.connectedEntries((l) => l.name);
    for (const r of this.doc.routes) {
      const d = parseCidr(r.destination);
      const egress = this.routeEgress(r);
      if (d && egress) entries.push({ net: d, rank: [-d.prefix, 1, r.metric, r.id, 0], value: egress.name });
    }
    return flatten(family, entries);
  }

  /** The zone whose networks hold the address most specifically (ties: first zone by name). */
  private zoneNetworkSegments(family: Family): Seg<string | null>[] {
    const entries: PrefixEntry<string | null>[] = [];
    this.zones.forEach((name, zi) => {
      for (const n of this.doc.zones.get(name)!.networks) {
        const c = parseCidr(n);
        if (c) entries.push({ net: c, rank: [-c.prefix, zi], value: name });
      }
    });
    return flatten(family, entries);
  }

  /** Source zone of each address: zone networks, else the connected subnet's link zone (eval.md step 1). */
  sourceZoneSegments(family: Family): Seg<string | null>[] {
    return overlay(this.zoneNetworkSegments(family), flatten(family, this.connectedEntries((l) => l.zone)));
  }

  /** Destination zone of each address: the egress link's zone, else zone networks (eval.md step 2). */
  destinationZoneSegments(family: Family): Seg<string | null>[] {
    const viaRoute = this.routeSegments(family)
      .map((s) => ({ ...s, value: this.linkByName.get(s.value)?.zone ?? null }))
      .filter((s) => s.value !== null);
    return overlay(viaRoute, this.zoneNetworkSegments(family));
  }
}

function key(c: Cidr): string {
  return `${c.family}/${c.prefix}/${c.bytes.join('.')}`;
}

function containsBytes(net: Cidr, bytes: Uint8Array): boolean {
  for (let bit = 0; bit < net.prefix; bit++) {
    const m = 0x80 >> (bit & 7);
    if ((net.bytes[bit >> 3] & m) !== (bytes[bit >> 3] & m)) return false;
  }
  return true;
}
