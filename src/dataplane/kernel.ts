// Reconciles links, addresses and routes with what the kernel has (`ip -json`): only the
// differences are changed, and only what is ours is removed (VLANs with our alias, addresses
// with our metric, routes with our protocol number), so a commit that drops a route, a VLAN
// or an address removes exactly that and the host's other links, addresses and routes stay.
import { canonicalCidr } from '../config/net';
import type { DesiredLink, DesiredRoute, LinkState } from './links';
import { ipArgs } from './links';
import { ADDRESS_METRIC, LINK_ALIAS, ROUTE_PROTO } from './names';
import type { Host } from './host';

interface KLink {
  ifname: string;
  flags?: string[];
  link?: string;
  ifalias?: string;
  linkinfo?: { info_kind?: string; info_data?: { id?: number } };
  addr_info?: Array<{ family: string; local: string; prefixlen: number; metric?: number; scope?: string }>;
}

interface KRoute {
  dst: string;
  gateway?: string;
  via?: { family: string; host: string }; // an IPv4 route through an IPv6 gateway
  dev?: string;
  metric?: number;
}

function routeKey(r: { destination: string; gateway: string; dev: string; metric: number }): string {
  return `${r.destination}|${r.gateway}|${r.dev}|${r.metric}`;
}

function kernelRoute(r: KRoute, family: 4 | 6): DesiredRoute {
  const dst = r.dst === 'default' ? (family === 4 ? '0.0.0.0/0' : '::/0') : canonicalCidr(r.dst) ?? r.dst;
  return { destination: dst, gateway: r.gateway ?? r.via?.host ?? '', dev: r.dev ?? '', metric: r.metric ?? 0, onlink: false };
}

async function ourRoutes(host: Host): Promise<DesiredRoute[]> {
  const out: DesiredRoute[] = [];
  for (const family of [4, 6] as const) {
    const json = await host.ip([`-${family}`, '-json', 'route', 'show', 'proto', String(ROUTE_PROTO)]);
    for (const r of JSON.parse(json || '[]') as KRoute[]) out.push(kernelRoute(r, family));
  }
  return out;
}

async function kernelLinks(host: Host): Promise<Map<string, KLink>> {
  const links = JSON.parse((await host.ip(['-json', '-d', 'address', 'show'])) || '[]') as KLink[];
  return new Map(links.map((l) => [l.ifname, l]));
}

const isOurVlan = (k: KLink) => k.ifalias === LINK_ALIAS && k.linkinfo?.info_kind === 'vlan';
const sameVlan = (k: KLink, d: DesiredLink) => d.vlan !== null && k.link === d.vlan.parent && k.linkinfo?.info_data?.id === d.vlan.id;

/** Makes the kernel's links, addresses and routes what `state` says. Throws CommandError. */
export async function reconcile(host: Host, state: LinkState): Promise<void> {
  const want = new Map(state.links.map((l) => [l.name, l]));
  let links = await kernelLinks(host);
  // routes of ours that go: first, while their links and addresses are still there
  const wantedRoutes = new Set(state.routes.map(routeKey));
  for (const r of await ourRoutes(host)) if (!wantedRoutes.has(routeKey(r))) await host.ip(ipArgs.deleteRoute(r));
  // our VLANs that go or changed parent or id
  for (const k of links.values()) {
    const d = want.get(k.ifname);
    if (isOurVlan(k) && (!d || !sameVlan(k, d))) await host.ip(ipArgs.deleteLink(k.ifname));
  }
  links = await kernelLinks(host);
  for (const d of state.links) {
    if (d.vlan && !links.has(d.name)) {
      await host.ip(ipArgs.addVlan(d));
      await host.ip(ipArgs.markLink(d.name));
    }
  }
  links = await kernelLinks(host);
  // addresses of ours that go (all links first: an address may move to another link)
  for (const k of links.values()) {
    const d = want.get(k.ifname);
    for (const a of k.addr_info ?? []) {
      const text = `${a.local}/${a.prefixlen}`;
      if (a.scope === 'global' && a.metric === ADDRESS_METRIC && !d?.addresses.some((x) => x.address === text)) await host.ip(ipArgs.deleteAddress(k.ifname, text));
    }
  }
  for (const d of state.links) {
    const k = links.get(d.name);
    // a physical link the host does not have: nothing to do unless it is to carry an address,
    // and then the kernel's own "Cannot find device" is the answer
    if (!k && !d.addresses.length) continue;
    const present = new Set((k?.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`));
    for (const a of d.addresses) if (!present.has(a.address)) await host.ip(ipArgs.addAddress(d.name, a.address, a.family));
    const up = (k?.flags ?? []).includes('UP');
    if (k && up !== d.up) await host.ip(ipArgs.setState(d.name, d.up));
  }
  const present = new Set((await ourRoutes(host)).map(routeKey));
  for (const r of state.routes) if (!present.has(routeKey(r))) await host.ip(ipArgs.replaceRoute(r));
}
