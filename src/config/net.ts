// IP addresses and prefixes: strict parsing, canonical formatting and containment.
// An address is kept as its family and its bytes (4 or 16), the shape the read models
// expose and the eval compiler packs into typed arrays.

export type Family = 4 | 6;

export interface IpAddr {
  family: Family;
  bytes: Uint8Array;
}

export interface Cidr {
  family: Family;
  bytes: Uint8Array; // network number, host bits cleared unless kept on purpose
  prefix: number;
}

const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** Dotted-quad IPv4, no leading zeros. A char-code scan: eval batches parse 20,000 a request. */
export function parseIPv4(text: string): Uint8Array | null {
  const n = text.length;
  if (n < 7 || n > 15) return null;
  const out = new Uint8Array(4);
  let part = 0;
  let val = 0;
  let digits = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 46; // a virtual '.' ends the last octet
    if (c === 46) {
      if (digits === 0 || part > 3) return null;
      out[part++] = val;
      val = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && val === 0) return null; // a leading zero ("01") is ambiguous: refused
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) return null;
    } else {
      return null;
    }
  }
  return part === 4 ? out : null;
}

export function parseIPv6(text: string): Uint8Array | null {
  if (text.length < 2 || text.length > 45) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (s: string): number[] | null => {
    if (s === '') return [];
    const words: number[] = [];
    const items = s.split(':');
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (i === items.length - 1 && item.includes('.')) {
        const v4 = parseIPv4(item);
        if (!v4) return null;
        words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        if (!HEX_GROUP.test(item)) return null;
        words.push(parseInt(item, 16));
      }
    }
    return words;
  };
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (!head || !tail) return null;
  // an embedded IPv4 may only end the address
  if (halves.length === 2 && halves[0].includes('.')) return null;
  let words: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    words = head;
  }
  if (words.length !== 8) return null;
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[2 * i] = words[i] >> 8;
    out[2 * i + 1] = words[i] & 0xff;
  }
  return out;
}

export function parseIp(text: string): IpAddr | null {
  if (typeof text !== 'string') return null;
  if (text.includes(':')) {
    const b = parseIPv6(text);
    return b ? { family: 6, bytes: b } : null;
  }
  const b = parseIPv4(text);
  return b ? { family: 4, bytes: b } : null;
}

function parsePrefixLen(text: string, max: number): number | null {
  if (!/^(0|[1-9]\d{0,2})$/.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

/** Parses "addr/len" or a bare address (a host prefix). Host bits are kept as written. */
export function parseCidrKeepHost(text: string): Cidr | null {
  if (typeof text !== 'string') return null;
  const slash = text.indexOf('/');
  const addr = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!addr) return null;
  const max = addr.family === 4 ? 32 : 128;
  const prefix = slash < 0 ? max : parsePrefixLen(text.slice(slash + 1), max);
  if (prefix === null) return null;
  return { family: addr.family, bytes: addr.bytes, prefix };
}

/** Parses a network: host bits are cleared (10.0.0.5/24 becomes 10.0.0.0/24). */
export function parseCidr(text: string): Cidr | null {
  const c = parseCidrKeepHost(text);
  if (!c) return null;
  return { family: c.family, bytes: applyMask(c.bytes, c.prefix), prefix: c.prefix };
}

/** Parses "addr/len" where the prefix is required (an interface address). */
export function parseIfaceAddress(text: string): Cidr | null {
  if (typeof text !== 'string' || !text.includes('/')) return null;
  return parseCidrKeepHost(text);
}

export function maskBytes(family: Family, prefix: number): Uint8Array {
  const out = new Uint8Array(family === 4 ? 4 : 16);
  for (let i = 0; i < out.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - 8 * i));
    out[i] = bits === 0 ? 0 : (0xff << (8 - bits)) & 0xff;
  }
  return out;
}

export function applyMask(bytes: Uint8Array, prefix: number): Uint8Array {
  const mask = maskBytes(bytes.length === 4 ? 4 : 6, prefix);
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes[i] & mask[i];
  return out;
}

export function formatIp(family: Family, bytes: Uint8Array): string {
  if (family === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  const words: number[] = [];
  for (let i = 0; i < 8; i++) words.push((bytes[2 * i] << 8) | bytes[2 * i + 1]);
  // RFC 5952: compress the longest run (>= 2) of zero words, the first one on ties
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(':');
  if (bestStart < 0) return hex(words);
  return `${hex(words.slice(0, bestStart))}::${hex(words.slice(bestStart + bestLen))}`;
}

export function formatCidr(c: Cidr): string {
  return `${formatIp(c.family, c.bytes)}/${c.prefix}`;
}

/** Canonical form of a network string, or null when it is not one. */
export function canonicalCidr(text: string): string | null {
  const c = parseCidr(text);
  return c ? formatCidr(c) : null;
}

/** Canonical form of an interface address (host bits kept, prefix required). */
export function canonicalIfaceAddress(text: string): string | null {
  const c = parseIfaceAddress(text);
  return c ? formatCidr(c) : null;
}

export function canonicalIp(text: string): string | null {
  const a = parseIp(text);
  return a ? formatIp(a.family, a.bytes) : null;
}

export function cidrContainsIp(net: Cidr, ip: IpAddr): boolean {
  if (net.family !== ip.family) return false;
  const masked = applyMask(ip.bytes, net.prefix);
  const base = applyMask(net.bytes, net.prefix);
  for (let i = 0; i < masked.length; i++) if (masked[i] !== base[i]) return false;
  return true;
}

export function ipEquals(a: IpAddr, b: IpAddr): boolean {
  if (a.family !== b.family) return false;
  for (let i = 0; i < a.bytes.length; i++) if (a.bytes[i] !== b.bytes[i]) return false;
  return true;
}

/** Compares two addresses of one family as unsigned big-endian numbers. */
export function compareIp(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
