// Everything the kernel gets for one configuration (pure): what GET /api/dataplane/render
// shows and what the Linux data plane applies.
import type { ConfigDoc } from '../config/types';
import { desiredLinks, renderIpCommands, type LinkState } from './links';
import { renderNft, type NftOptions } from './nft';
import { renderDnsmasq } from './dnsmasq';
import { linkNameProblems } from './names';
import { Topology } from './topology';

export interface Plan {
  nft: string;
  links: LinkState;
  ip: string[][]; // argument arrays of `ip`, building the state from nothing
  dnsmasq: string; // "" when there is no DHCP pool
}

export function renderPlan(doc: ConfigDoc, opts: NftOptions & { leaseFile?: string } = {}): Plan {
  const links = desiredLinks(doc);
  return {
    nft: renderNft(doc, opts),
    links,
    ip: renderIpCommands(links),
    dnsmasq: renderDnsmasq(doc, opts.leaseFile ?? '/var/lib/fwd/dnsmasq.leases'),
  };
}

/** What the kernel could never hold, found without asking it (link names, route families). */
export function planProblems(doc: ConfigDoc): string[] {
  return [...linkNameProblems([...doc.interfaces.keys(), ...doc.vlans.keys()]), ...new Topology(doc).routeProblems()];
}
