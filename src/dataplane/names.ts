// Names that reach a command line or an nft script, checked before they do. The API already
// restricts object names (contract: ^[A-Za-z0-9][A-Za-z0-9_.:-]*$, 1-64); the kernel is
// stricter for links (IFNAMSIZ: 15 characters, no ':' or '/').

/** Our nft table (family inet) and the marks that say "ours" to the kernel reconciler. */
export const NFT_TABLE = 'fwdaemon';
/** Routes we install carry this routing protocol number (ip route ... proto 241). */
export const ROUTE_PROTO = 241;
/** Addresses we install carry this metric (the connected route's metric): ours to remove. */
export const ADDRESS_METRIC = 241;
/** VLAN links we create carry this alias. */
export const LINK_ALIAS = 'fwd';

const LINK_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/;
const NETNS_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export function isLinkName(name: string): boolean {
  return LINK_NAME.test(name);
}

export function isNetnsName(name: string): boolean {
  return NETNS_NAME.test(name);
}

/** Problems with the names of a document's links, one line each (empty: all usable). */
export function linkNameProblems(names: Iterable<string>): string[] {
  const out: string[] = [];
  for (const n of names) {
    if (!isLinkName(n)) out.push(`link "${n}": not a Linux interface name (1-15 characters of A-Z a-z 0-9 _ . -)`);
  }
  return out;
}
