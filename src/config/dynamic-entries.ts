// The bodies of POST and DELETE /api/dynamic-sets/{name}/entries (issue 40): checked whole
// before anything changes, each problem naming its field.
import { Type } from '@sinclair/typebox';
import { FwError } from '../errors';
import { applyMask, canonicalCidr, formatIp, maskBytes, parseCidr, type Cidr } from './net';
import type { DynamicSetObj } from './types';
import { shapeChecker } from './validate';
import { MAX_TTL } from './resources/dynamic-set';
import type { DynamicEntry } from '../dynamic/entry-store';

/** Prefixes one request may add or remove. */
export const MAX_REQUEST_ENTRIES = 10_000;

export const AddBody = Type.Object({
  ips: Type.Array(Type.String(), { description: `addresses or prefixes of the set's family, 1-${MAX_REQUEST_ENTRIES}` }),
  ttl: Type.Optional(Type.Integer({ description: `seconds the entries live (0: until deleted, at most ${MAX_TTL}); absent: the set's default-ttl` })),
}, { additionalProperties: false });
export const RemoveBody = Type.Object({
  ips: Type.Array(Type.String(), { description: `addresses or prefixes to remove, 1-${MAX_REQUEST_ENTRIES}` }),
}, { additionalProperties: false });
const addShape = shapeChecker(AddBody);
const removeShape = shapeChecker(RemoveBody);

/** The dotted or colon mask of a prefix length (conntrack --mask-src). */
export function maskOf(family: 'ipv4' | 'ipv6', len: number): string {
  const f = family === 'ipv4' ? 4 : 6;
  return formatIp(f, maskBytes(f, len));
}

/** The canonical prefixes of `ips`, each of the set's family, each once. */
function checkPrefixes(set: DynamicSetObj, ips: string[]): string[] {
  if (ips.length === 0) throw new FwError('ERR_NET_1004', 'field "ips": at least one address is required');
  if (ips.length > MAX_REQUEST_ENTRIES) throw new FwError('ERR_NET_1008', `field "ips": at most ${MAX_REQUEST_ENTRIES} addresses a request`);
  const want = set.family === 'ipv4' ? 4 : 6;
  const out = new Set<string>();
  ips.forEach((text, i) => {
    const c = typeof text === 'string' ? parseCidr(text) : null;
    if (!c) throw new FwError('ERR_NET_1001', `field "ips[${i}]": "${String(text)}" is not an address or a prefix`);
    if (c.family !== want) throw new FwError('ERR_NET_1001', `field "ips[${i}]": "${text}" is not an ${set.family} address (the set's family)`);
    out.add(canonicalCidr(text)!);
  });
  return [...out];
}

/** True when `outer` holds every address of `inner`. */
export function contains(outer: Cidr, inner: Cidr): boolean {
  if (outer.family !== inner.family || outer.prefix > inner.prefix) return false;
  const m = applyMask(inner.bytes, outer.prefix);
  return m.every((b, i) => b === outer.bytes[i]);
}

/**
 * Refuses a prefix that overlaps another (of the request or of the set) without being it: the
 * kernel's interval set cannot hold both. Hosts against hosts need no comparison.
 */
function checkOverlaps(ips: string[], existing: readonly DynamicEntry[]): void {
  const isHost = (c: Cidr) => c.prefix === (c.family === 4 ? 32 : 128);
  const parsed = ips.map((t) => parseCidr(t)!);
  const have = existing.map((e) => parseCidr(e.ip)!).filter((c) => c !== null);
  const all = [...have, ...parsed];
  if (all.every(isHost)) return;
  parsed.forEach((c, i) => {
    for (const o of all) {
      if (o === c || (o.prefix === c.prefix && contains(o, c))) continue;
      if (contains(o, c) || contains(c, o)) {
        throw new FwError('ERR_NET_1004', `field "ips[${i}]": "${ips[i]}" overlaps ${have.includes(o) ? 'the entry' : ''} "${formatIp(o.family, o.bytes)}/${o.prefix}" (a set holds disjoint prefixes)`.replace('  ', ' '));
      }
    }
  });
}

/** The entries a POST adds, with their expiry. */
export function entriesToAdd(set: DynamicSetObj, body: unknown, existing: readonly DynamicEntry[], now: number): { entries: DynamicEntry[]; ttl: number } {
  const b = addShape(body);
  const ttl = b.ttl ?? set.defaultTtl;
  if (ttl < 0 || ttl > MAX_TTL) throw new FwError('ERR_NET_1008', `field "ttl": ${ttl} is not within 0-${MAX_TTL}`);
  const ips = checkPrefixes(set, b.ips);
  checkOverlaps(ips, existing);
  const expiresAt = ttl === 0 ? 0 : now + ttl * 1000;
  return { entries: ips.map((ip) => ({ ip, expiresAt })), ttl };
}

/** The prefixes a DELETE removes. */
export function prefixesToRemove(set: DynamicSetObj, body: unknown): string[] {
  return checkPrefixes(set, removeShape(body).ips);
}
