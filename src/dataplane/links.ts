// The desired state of links, addresses and routes (pure), and the `ip` argument arrays that
// build it. The reconciler (kernel.ts) compares this state with what `ip -json` reports and
// runs only the differences; the render endpoint shows the commands that build it from scratch.
import { formatCidr, formatIp } from '../config/net';
import type { ConfigDoc } from '../config/types';
import { ADDRESS_METRIC, LINK_ALIAS, ROUTE_PROTO } from './names';
import { Topology } from './topology';

export interface DesiredLink {
  name: string;
  vlan: { parent: string; id: number } | null;
  up: boolean;
  /** every address, "10.0.0.1/24" (host bits kept), with its family */
  addresses: Array<{ address: string; family: 4 | 6 }>;
}

export interface DesiredRoute {
  destination: string; // canonical CIDR
  gateway: string;
  dev: string;
  metric: number;
  onlink: boolean;
}

export interface LinkState {
  links: DesiredLink[];
  routes: DesiredRoute[];
}

/**
 * The metric the kernel holds for a route asked with `metric`: Linux stores an IPv6 route's
 * metric 0 as "unspecified", that is 1024 (IP6_RT_PRIO_USER), so it is asked as 1024 and read
 * back equal (the reconciler would otherwise replace it at every commit). Only the route eval
 * picks per destination is installed, so this changes no choice.
 */
export const IPV6_DEFAULT_METRIC = 1024;
function kernelMetric(family: 4 | 6, metric: number): number {
  return family === 6 && metric === 0 ? IPV6_DEFAULT_METRIC : metric;
}

export function desiredLinks(doc: ConfigDoc): LinkState {
  const topo = new Topology(doc);
  const links = topo.links.map((l) => ({
    name: l.name,
    vlan: l.kind === 'vlan' ? { parent: l.parent, id: l.vlanId } : null,
    up: l.up,
    addresses: l.cidrs.map(({ addr }) => ({ address: `${formatIp(addr.family, addr.bytes)}/${addr.prefix}`, family: addr.family })),
  } as DesiredLink));
  const routes = topo.kernelRoutes().map((r) => ({
    destination: formatCidr(r.destination), gateway: r.gateway, dev: r.dev, metric: kernelMetric(r.destination.family, r.metric), onlink: r.onlink,
  }));
  return { links, routes };
}

/** `via GW`; an IPv4 destination through an IPv6 gateway says so (RFC 5549, Linux 5.2+). */
function via(r: DesiredRoute): string[] {
  if (!r.gateway) return [];
  return r.gateway.includes(':') && !r.destination.includes(':') ? ['via', 'inet6', r.gateway] : ['via', r.gateway];
}

export const ipArgs = {
  addVlan: (l: DesiredLink) => ['link', 'add', 'link', l.vlan!.parent, 'name', l.name, 'type', 'vlan', 'id', String(l.vlan!.id)],
  markLink: (name: string) => ['link', 'set', 'dev', name, 'alias', LINK_ALIAS],
  deleteLink: (name: string) => ['link', 'delete', 'dev', name],
  setState: (name: string, up: boolean) => ['link', 'set', 'dev', name, up ? 'up' : 'down'],
  addAddress: (dev: string, address: string, family: number) =>
    ['address', 'add', address, 'dev', dev, 'metric', String(ADDRESS_METRIC), ...(family === 6 ? ['nodad'] : [])],
  deleteAddress: (dev: string, address: string) => ['address', 'delete', address, 'dev', dev],
  replaceRoute: (r: DesiredRoute) => ['route', 'replace', r.destination, ...via(r), 'dev', r.dev,
    'metric', String(r.metric), 'proto', String(ROUTE_PROTO), ...(r.onlink ? ['onlink'] : [])],
  deleteRoute: (r: DesiredRoute) => ['route', 'delete', r.destination, ...via(r), 'dev', r.dev,
    'metric', String(r.metric), 'proto', String(ROUTE_PROTO)],
};

/** The commands that build the state from nothing, for operators to review. */
export function renderIpCommands(state: LinkState): string[][] {
  const out: string[][] = [];
  for (const l of state.links.filter((x) => x.vlan)) out.push(ipArgs.addVlan(l), ipArgs.markLink(l.name));
  for (const l of state.links) out.push(ipArgs.setState(l.name, l.up));
  for (const l of state.links) for (const a of l.addresses) out.push(ipArgs.addAddress(l.name, a.address, a.family));
  for (const r of state.routes) out.push(ipArgs.replaceRoute(r));
  return out;
}
