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

/**
 * The dotted quad s[a, b) (character codes) as an unsigned 32-bit number, or -1. No leading
 * zeros ("01" is ambiguous: refused), 7 to 15 characters.
 */
function v4Range(s: Uint8Array, a: number, b: number): number {
  if (b - a < 7 || b - a > 15) return -1;
  let word = 0;
  let part = 0;
  let val = 0;
  let digits = 0;
  for (let i = a; i <= b; i++) {
    const c = i < b ? s[i] : 46; // a virtual '.' ends the last octet
    if (c === 46) {
      if (digits === 0 || part > 3) return -1;
      word = word * 256 + val; // not <<: the result stays unsigned
      part++;
      val = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && val === 0) return -1;
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) return -1;
    } else {
      return -1;
    }
  }
  return part === 4 ? word : -1;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** IPv6 16-bit groups, reused by every parse (parsing is synchronous). */
const groups6 = new Int32Array(8);

/**
 * Appends the groups of s[a, e) (one side of "::", or the whole address) to groups6 from `k`:
 * items separated by ':', each 1-4 hex digits, or, as the last item and only when `v4` allows
 * it, a dotted quad (two groups). Returns the new count, or -1 (more than 8 groups can never
 * make an address, so they are refused here and the scratch never overflows).
 */
function groupsOf(s: Uint8Array, a: number, e: number, k: number, v4: boolean): number {
  if (a === e) return k;
  for (;;) {
    let b = a;
    let val = 0;
    let dot = false;
    for (; b < e; b++) {
      const c = s[b];
      if (c === 58) break; // ':'
      if (c === 46) dot = true;
      const h = hexDigit(c);
      val = (val << 4) | (h < 0 ? 0 : h);
    }
    if (dot) {
      // a dotted quad only ends the address
      if (b !== e || !v4 || k > 6) return -1;
      const w = v4Range(s, a, b);
      if (w < 0) return -1;
      groups6[k++] = Math.floor(w / 65536);
      groups6[k++] = w & 0xffff;
      return k;
    }
    if (b - a < 1 || b - a > 4 || k > 7) return -1;
    for (let i = a; i < b; i++) if (hexDigit(s[i]) < 0) return -1;
    groups6[k++] = val;
    if (b === e) return k;
    a = b + 1; // past the ':'; an empty last item ("1:") is refused by the length check
  }
}

function indexOfColon(s: Uint8Array, a: number, b: number, double: boolean): number {
  for (let i = a; i < b; i++) if (s[i] === 58 && (!double || (i + 1 < b && s[i + 1] === 58))) return i;
  return -1;
}

function parseV6(s: Uint8Array, a: number, b: number, out: Int32Array, at: number): boolean {
  if (b - a < 2 || b - a > 45) return false;
  const dc = indexOfColon(s, a, b, true); // the first "::"
  let count: number;
  let head: number;
  if (dc < 0) {
    count = groupsOf(s, a, b, 0, true);
    if (count !== 8) return false;
    head = 8;
  } else {
    if (indexOfColon(s, dc + 2, b, true) >= 0) return false; // a second "::"
    head = groupsOf(s, a, dc, 0, false);
    if (head < 0) return false;
    count = groupsOf(s, dc + 2, b, head, true);
    if (count < 0 || count > 7) return false; // "::" stands for at least one zero group
  }
  // groups6[0, head) on the left, zeros, groups6[head, count) right-aligned
  const gap = 8 - count; // zero groups
  for (let g = 0; g < 8; g += 2) out[at + (g >> 1)] = (group6(g, head, gap) << 16) | group6(g + 1, head, gap);
  return true;
}

/** Group g of an address whose groups6 are `head` groups, `gap` zero groups, the rest. */
function group6(g: number, head: number, gap: number): number {
  return g < head ? groups6[g] : g < head + gap ? 0 : groups6[g - gap];
}

/**
 * The one address parser, on character codes s[a, b) (e.g. the bytes of a request body):
 * writes the address into 32-bit words in network order, out[at .. at + 3] (IPv4: one word,
 * the other three zeroed), and returns the family, or 0 when the text is not an address (out
 * is then unspecified). No allocation: eval batches parse 20,000 addresses a request.
 * IPv4: dotted quad, no leading zeros. IPv6 (when there is a ':'): RFC 4291 text, one "::" at
 * most, a dotted quad only as the last 32 bits (and not before a "::"), 2 to 45 characters.
 */
export function parseIpBytes(s: Uint8Array, a: number, b: number, out: Int32Array, at: number): Family | 0 {
  // a dotted quad has no ':', so trying it first decides IPv4 in one pass
  const w = v4Range(s, a, b);
  if (w >= 0) {
    out[at] = w | 0;
    out[at + 1] = 0;
    out[at + 2] = 0;
    out[at + 3] = 0;
    return 4;
  }
  return indexOfColon(s, a, b, false) >= 0 && parseV6(s, a, b, out, at) ? 6 : 0;
}

/** A text's character codes for parseIpBytes (no address is longer than 45 characters). */
const textCodes = new Uint8Array(45);

/** Copies a text into textCodes; its length, or -1 when it cannot be an address (too long, or
 * a character past ASCII, which would not even fit a byte). */
function loadCodes(text: string): number {
  const n = text.length;
  if (n > 45) return -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return -1;
    textCodes[i] = c;
  }
  return n;
}

/** parseIpBytes of a string. */
export function parseIpWords(text: string, out: Int32Array, at: number): Family | 0 {
  const n = loadCodes(text);
  return n < 0 ? 0 : parseIpBytes(textCodes, 0, n, out, at);
}

/** Scratch words of parseIPv4/parseIPv6 (synchronous, so shared). */
const words1 = new Int32Array(4);

function wordBytes(words: Int32Array, count: number): Uint8Array {
  const out = new Uint8Array(count * 4);
  for (let i = 0; i < count; i++) {
    const w = words[i];
    out[4 * i] = w >>> 24;
    out[4 * i + 1] = (w >>> 16) & 0xff;
    out[4 * i + 2] = (w >>> 8) & 0xff;
    out[4 * i + 3] = w & 0xff;
  }
  return out;
}

/** Dotted-quad IPv4, no leading zeros. */
export function parseIPv4(text: string): Uint8Array | null {
  return parseIpWords(text, words1, 0) === 4 ? wordBytes(words1, 1) : null;
}

/** IPv6 text (a dotted quad alone is not one). */
export function parseIPv6(text: string): Uint8Array | null {
  const n = loadCodes(text);
  return n >= 0 && parseV6(textCodes, 0, n, words1, 0) ? wordBytes(words1, 4) : null;
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

/** An address as parsed: uWS writes IPv4 clients of a dual-stack socket as ::ffff:a.b.c.d. */
export function clientIp(text: string): IpAddr | null {
  const ip = parseIp(text);
  if (ip && ip.family === 6 && ip.bytes.slice(0, 12).every((b, i) => b === (i < 10 ? 0 : 255))) {
    return parseIp(Array.from(ip.bytes.slice(12)).join('.'));
  }
  return ip;
}

/**
 * The unit the login limits count a client address by: an IPv4 address, or the /64 of an IPv6
 * one (a site's allocation: its holder can pick a new address within it for every try).
 * Text that is not an address stays as it is.
 */
export function clientNetwork(text: string): string {
  const ip = clientIp(text);
  if (!ip) return text;
  return ip.family === 4 ? formatIp(4, ip.bytes) : formatCidr({ family: 6, bytes: applyMask(ip.bytes, 64), prefix: 64 });
}
