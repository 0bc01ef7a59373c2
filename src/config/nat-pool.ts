// A NAT rule's translated address: one address, or for snat a pool (a prefix or a range
// "a.b.c.d-a.b.c.e"). Stored canonical; the kernel gets the pool as a range, and eval answers
// its first address (the kernel picks one per connection; docs/nat.md).
import { FwError } from '../errors';
import { canonicalIp, formatIp, maskBytes, parseCidr, parseIp, type Family } from './net';

/** Bytes compared as an unsigned big-endian number (same length). */
function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

export interface NatPool {
  family: Family;
  first: Uint8Array;
  last: Uint8Array;
}

/** The pool a stored translated-ip holds (a single address is a pool of one), or null. */
export function parsePool(text: string): NatPool | null {
  if (text.includes('/')) {
    const c = parseCidr(text);
    if (!c) return null;
    const mask = maskBytes(c.family, c.prefix);
    return { family: c.family, first: c.bytes, last: c.bytes.map((x, i) => x | (~mask[i] & 0xff)) };
  }
  const dash = text.indexOf('-');
  const a = parseIp(dash < 0 ? text : text.slice(0, dash));
  const b = dash < 0 ? a : parseIp(text.slice(dash + 1));
  if (!a || !b || a.family !== b.family || compare(a.bytes, b.bytes) > 0) return null;
  return { family: a.family, first: a.bytes, last: b.bytes };
}

/** True when the text names more than one address (a prefix or a range). */
export function isPool(text: string): boolean {
  return text.includes('/') || text.includes('-');
}

/** The first address of a pool, canonical ("" when there is none): what eval answers. */
export function poolFirst(text: string): string {
  const p = text === '' ? null : parsePool(text);
  return p ? formatIp(p.family, p.first) : '';
}

/** The pool as nft writes it after `snat ip to`: an address or a range first-last. */
export function poolNft(p: NatPool): string {
  const first = formatIp(p.family, p.first), last = formatIp(p.family, p.last);
  return first === last ? first : `${first}-${last}`;
}

/**
 * A translated-ip of a create or edit: an address, a prefix (host bits cleared) or a range
 * start-end of one family with start <= end (a range of one address is that address).
 */
export function checkPool(field: string, value: string): string {
  const bad = (why: string) => new FwError('ERR_NET_1001', `field "${field}": "${value}" ${why}`);
  if (value.includes('/')) {
    const c = parseCidr(value);
    if (!c) throw bad('is not an IP address, a prefix or a range such as 203.0.113.8-203.0.113.15');
    const p = parsePool(value)!;
    return c.prefix === (c.family === 4 ? 32 : 128) ? formatIp(c.family, p.first) : `${formatIp(c.family, p.first)}/${c.prefix}`;
  }
  const dash = value.indexOf('-');
  if (dash < 0) {
    const ip = canonicalIp(value);
    if (ip === null) throw bad('is not an IP address, a prefix or a range such as 203.0.113.8-203.0.113.15');
    return ip;
  }
  const a = parseIp(value.slice(0, dash)), b = parseIp(value.slice(dash + 1));
  if (!a || !b) throw bad('is not a range of two IP addresses such as 203.0.113.8-203.0.113.15');
  if (a.family !== b.family) throw bad('mixes an IPv4 and an IPv6 address: a range is of one family');
  if (compare(a.bytes, b.bytes) > 0) throw bad('starts after it ends: write the lower address first');
  return poolNft({ family: a.family, first: a.bytes, last: b.bytes });
}
