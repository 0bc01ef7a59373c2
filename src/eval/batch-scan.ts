// The batch request body read straight from its bytes into a PacketBatch, without JSON.parse:
// no UTF-8 decoding of 800 KB, no 10,000 packet objects and 20,000 address strings to build
// and collect, addresses parsed from the bytes (parseIpBytes). About 5 ms of a 10,000-packet
// request were JSON.parse plus walking its objects.
//
// A fast path, never a second definition: it accepts only plain JSON (ASCII strings without
// escapes, unsigned integers without fraction or exponent, null, JSON whitespace, each key at
// most once) holding packets that parsePacketBatch would accept, and answers null for
// anything else: then the caller runs JSON.parse and parsePacketBatch, which accept or refuse
// it with the exact error. So a batch it accepts is, slot for slot, what parsePacketBatch
// would have made of JSON.parse(body) (tests compare both on random and mutated bodies).
import { isIcmp, PROTO } from '../config/protocols';
import { parseIpBytes } from '../config/net';
import { MAX_BATCH, releaseBatch, takeBatch, type PacketBatch } from './batch';
import { PROTO_ICMP, PROTO_TCP, PROTO_UDP } from './types';

const QUOTE = 34, COMMA = 44, DOT = 46, COLON = 58, BACKSLASH = 92;
const LBRACE = 123, RBRACE = 125, LBRACKET = 91, RBRACKET = 93;

// the packet fields, by position in FIELDS
const SRC_IP = 0, DST_IP = 1, PROTOCOL = 2, DST_PORT = 3, SRC_PORT = 4, IN_IF = 5, SRC_ZONE = 6, DST_ZONE = 7, ICMP_TYPE = 8, ICMP_CODE = 9;
const FIELDS = ['src-ip', 'dst-ip', 'protocol', 'dst-port', 'src-port', 'in-interface', 'src-zone', 'dst-zone', 'icmp-type', 'icmp-code'].map((f) => Buffer.from(f, 'latin1'));
const FIELD_LENGTH = Uint8Array.from(FIELDS, (w) => w.length);
const PACKETS = Buffer.from('"packets"', 'latin1');
/**
 * A text of 4 bytes or more as big-endian int32 words at offsets 0, 4, ... and a last one
 * ending with it (overlapping the previous): wordsAt checks the text with a few loads instead
 * of a loop over its bytes.
 */
function textWords(text: string): Int32Array {
  const k = Buffer.from(text, 'latin1');
  const words: number[] = [];
  for (let o = 0; o + 4 < k.length; o += 4) words.push(k.readInt32BE(o));
  words.push(k.readInt32BE(k.length - 4));
  return Int32Array.from(words);
}

/** Whether the body holds the text of `words` (textWords) from a to e (exclusive); the caller
 * checks the bytes are there. */
function wordsAt(a: number, e: number, words: Int32Array): boolean {
  const last = words.length - 1;
  for (let k = 0; k < last; k++) if (view.getInt32(a + 4 * k) !== words[k]) return false;
  return view.getInt32(e - 4) === words[last];
}

// each field name with its closing quote
const KEY_WORDS: Int32Array[] = FIELDS.map((w) => textWords(`${w.toString('latin1')}"`));
/** The bytes a dotted quad and its closing quote can take: quadAt reads no further. */
const QUAD_ROOM = 16;
/** The body being scanned, for 4-byte loads (the scan is synchronous: module scratch). */
let view: DataView = new DataView(new ArrayBuffer(0));
const TCP = Buffer.from('tcp', 'latin1'), UDP = Buffer.from('udp', 'latin1'), ICMP = Buffer.from('icmp', 'latin1');
const SCTP = Buffer.from('sctp', 'latin1'), ICMPV6 = Buffer.from('icmpv6', 'latin1');

/** `{"src-ip":"::","dst-ip":"::","protocol":0}`: no accepted packet is shorter, so a body of n
 * bytes holds at most n / 42 of them (the batch is sized before counting; a body that holds
 * more, which cannot be, would only go the slow way). */
const MIN_PACKET_BYTES = 42;

// the value of each field of the packet being read (the scan is synchronous: module scratch)
const ABSENT = 0, STRING = 1, NUMBER = 2; // null counts as absent, as in parsePacket
const QUAD = 3; // an address read as a dotted quad during the scan: its word in num
const kind = new Uint8Array(FIELDS.length);
const from = new Int32Array(FIELDS.length); // a string's bytes: [from, to)
const to = new Int32Array(FIELDS.length);
const num = new Int32Array(FIELDS.length);

function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipWs(s: Uint8Array, p: number, n: number): number {
  // every byte the scanner expects next is above ' ': one comparison when there is no space
  while (p < n && s[p] <= 32 && isWs(s[p])) p++;
  return p;
}

function equalBytes(s: Uint8Array, a: number, b: number, word: Uint8Array): boolean {
  if (b - a !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (s[a + k] !== word[k]) return false;
  return true;
}

/** The field whose name and closing quote are at s[a..], or -1. The candidate is picked by
 * the first byte and the fifth (src-ip, src-port, src-zone differ there), then checked. */
function fieldAt(s: Uint8Array, a: number, n: number): number {
  if (a + 8 >= n) return -1;
  let f: number;
  switch (s[a]) {
    case 115: // s
      f = s[a + 4] === 105 ? SRC_IP : s[a + 4] === 112 ? SRC_PORT : SRC_ZONE;
      break;
    case 100: // d
      f = s[a + 4] === 105 ? DST_IP : s[a + 4] === 112 ? DST_PORT : DST_ZONE;
      break;
    case 112: // p
      f = PROTOCOL;
      break;
    case 105: // i: in-interface, icmp-type, icmp-code
      f = s[a + 1] === 110 ? IN_IF : s[a + 5] === 116 ? ICMP_TYPE : ICMP_CODE;
      break;
    default:
      return -1;
  }
  const e = a + FIELD_LENGTH[f]; // where the closing quote must be
  if (e >= n) return -1;
  return wordsAt(a, e + 1, KEY_WORDS[f]) ? f : -1;
}

/**
 * Scans a batch body {"packets": [...]}; null when it is not in the plain form described
 * above or a packet would be refused (the caller then parses it with JSON.parse). Give the
 * batch back with releaseBatch when done.
 */
export function scanPacketBatch(body: Buffer): PacketBatch | null {
  const n = body.length;
  const b = takeBatch(Math.min(MAX_BATCH, Math.floor(n / MIN_PACKET_BYTES) + 1));
  const count = scan(body, b);
  if (count < 0) {
    releaseBatch(b);
    return null;
  }
  b.length = count;
  return b;
}

/** The packets of the body into b; how many, or -1. */
function scan(body: Buffer, b: PacketBatch): number {
  const s = body;
  const n = s.length;
  view = new DataView(body.buffer, body.byteOffset, body.length);
  let p = skipWs(s, 0, n);
  if (p >= n || s[p] !== LBRACE) return -1;
  p = skipWs(s, p + 1, n);
  if (!equalBytes(s, p, Math.min(n, p + PACKETS.length), PACKETS)) return -1;
  p = skipWs(s, p + PACKETS.length, n);
  if (p >= n || s[p] !== COLON) return -1;
  p = skipWs(s, p + 1, n);
  if (p >= n || s[p] !== LBRACKET) return -1;
  p = skipWs(s, p + 1, n);
  const capacity = b.length;
  if (++nameScan === 0x7fffffff) {
    nameGen.fill(0); // never mistake a slot of a scan 2^31 bodies ago for one of this body
    nameScan = 1;
  }
  let count = 0;
  if (p < n && s[p] === RBRACKET) p++;
  else {
    for (;;) {
      if (count === capacity) return -1; // over MAX_BATCH: the slow path says so
      const e = compactPacket(s, p, n, b, count);
      p = e >= 0 ? e : scanPacket(s, p, n, b, count);
      if (p < 0) return -1;
      count++;
      p = skipWs(s, p, n);
      if (p >= n) return -1;
      if (s[p] === COMMA) p = skipWs(s, p + 1, n);
      else if (s[p] === RBRACKET) {
        p++;
        break;
      } else return -1;
    }
  }
  p = skipWs(s, p, n);
  if (p >= n || s[p] !== RBRACE) return -1;
  if (skipWs(s, p + 1, n) !== n) return -1;
  return count;
}

// The usual packet as JSON.stringify writes it, read as a template (literal parts checked as
// int32 words, no key lookup, no whitespace): {"src-ip":"A","dst-ip":"B","protocol":P,
// "dst-port":N} with dotted quads A and B, P a number or "tcp", "udp", "icmp".
const SRC_OPEN = textWords('{"src-ip":"');
const DST_OPEN = textWords('","dst-ip":"');
const PROTOCOL_OPEN = textWords('","protocol":');
const DST_PORT_OPEN = textWords(',"dst-port":');
const PROTOCOL_NAMES = Int32Array.from(['"tcp', '"udp', '"icm'], (t) => Buffer.from(t, 'latin1').readInt32BE(0));
const PROTOCOL_CODES = [PROTO_TCP, PROTO_UDP, PROTO_ICMP];
/** The longest packet of that form (15-character addresses, 6 digits), and the 16 bytes
 * quadAt may look at: with this many bytes left, the template reads no bound. */
const COMPACT_ROOM = 11 + 15 + 12 + 15 + 13 + 6 + 12 + 6 + 1 + QUAD_ROOM;

/**
 * The packet at s[p] when it has the template's form, into slot i (the same slot scanPacket
 * would write); the position after it, or -1 for any other form or value (scanPacket then
 * reads the packet from its start, and takes it, declines it or leaves it to the slow path).
 */
function compactPacket(s: Buffer, p: number, n: number, b: PacketBatch, i: number): number {
  if (n - p < COMPACT_ROOM || !wordsAt(p, p + 11, SRC_OPEN)) return -1;
  let q = quadAt(s, p + 11);
  if (q < 0 || !wordsAt(q, q + 12, DST_OPEN)) return -1;
  const src = quad;
  q = quadAt(s, q + 12);
  if (q < 0 || !wordsAt(q, q + 13, PROTOCOL_OPEN)) return -1;
  const dst = quad;
  q += 13;
  let protocol = -1;
  if (s[q] === QUOTE) {
    // "tcp" and "udp" end after 3 letters, "icmp" after 4
    const k = PROTOCOL_NAMES.indexOf(view.getInt32(q));
    if (k < 0) return -1;
    q += k === 2 ? 5 : 4;
    if ((k === 2 && s[q - 1] !== 112) || s[q] !== QUOTE) return -1; // the p of icmp
    protocol = PROTOCOL_CODES[k];
    q++;
  } else {
    if (s[q] < 48 || s[q] > 57) return -1;
    q = numberAt(s, q, n);
    if (q < 0 || number > 255) return -1;
    protocol = number;
  }
  if (!wordsAt(q, q + 12, DST_PORT_OPEN)) return -1;
  q += 12;
  if (s[q] < 48 || s[q] > 57) return -1;
  q = numberAt(s, q, n);
  if (q < 0 || number > 65535 || s[q] !== RBRACE) return -1;
  const w = b.words, at = i * 8;
  w[at] = src;
  w[at + 4] = dst;
  w[at + 1] = w[at + 2] = w[at + 3] = w[at + 5] = w[at + 6] = w[at + 7] = 0;
  b.fam[i] = 4;
  b.protocol[i] = protocol;
  b.dstPort[i] = isIcmp(protocol) ? 0 : number; // ICMP: type and code, 0 when not given
  b.srcPort[i] = -1; // names: null in a batch from takeBatch
  return q + 1;
}

/** One packet object at s[p] into slot i; the position after it, or -1 (not handled here). */
function scanPacket(s: Buffer, p: number, n: number, b: PacketBatch, i: number): number {
  if (p >= n || s[p] !== LBRACE) return -1;
  p = skipWs(s, p + 1, n);
  for (let f = 0; f < FIELDS.length; f++) kind[f] = ABSENT;
  let seen = 0;
  if (p < n && s[p] === RBRACE) p++;
  else {
    for (;;) {
      // the key: a field name, at most once (JSON.parse keeps the last of duplicates)
      if (p >= n || s[p] !== QUOTE) return -1;
      const f = fieldAt(s, p + 1, n);
      if (f < 0 || (seen & (1 << f)) !== 0) return -1;
      seen |= 1 << f;
      const ke = p + 1 + FIELD_LENGTH[f]; // the closing quote (fieldAt checked it)
      p = skipWs(s, ke + 1, n);
      if (p >= n || s[p] !== COLON) return -1;
      p = skipWs(s, p + 1, n);
      if (p >= n) return -1;
      const c = s[p];
      let q: number;
      if (c === QUOTE && (f === SRC_IP || f === DST_IP) && n - p > QUAD_ROOM && (q = quadAt(s, p + 1)) > 0) {
        // most addresses: a dotted quad, read in this one pass
        kind[f] = QUAD;
        num[f] = quad;
        p = q + 1;
      } else if (c === QUOTE) {
        let e = p + 1;
        if (f === SRC_IP || f === DST_IP) {
          // any other address: up to the next quote; parseIpBytes then accepts only address
          // characters, so an escape or any other byte in it makes it refused (the slow way)
          while (e < n && s[e] !== QUOTE) e++;
        } else {
          // printable ASCII only: an escape, a control or a non-ASCII byte goes the slow way
          for (; e < n; e++) {
            const d = s[e];
            if (d === QUOTE) break;
            if (d === BACKSLASH || d < 0x20 || d > 0x7e) return -1;
          }
        }
        if (e >= n) return -1;
        kind[f] = STRING;
        from[f] = p + 1;
        to[f] = e;
        p = e + 1;
      } else if (c >= 48 && c <= 57) {
        // an unsigned integer; "01", a fraction or an exponent fail the separator check below
        p = numberAt(s, p, n);
        if (p < 0) return -1;
        kind[f] = NUMBER;
        num[f] = number;
      } else if (c === 110 && p + 3 < n && s[p + 1] === 117 && s[p + 2] === 108 && s[p + 3] === 108) {
        kind[f] = ABSENT; // null
        p += 4;
      } else return -1;
      p = skipWs(s, p, n);
      if (p >= n) return -1;
      if (s[p] === COMMA) p = skipWs(s, p + 1, n);
      else if (s[p] === RBRACE) {
        p++;
        break;
      } else return -1;
    }
  }
  // parseInto's checks; whatever it would refuse is left to it (-1)
  const family = address(s, SRC_IP, b.words, i * 8);
  if (family === 0 || address(s, DST_IP, b.words, i * 8 + 4) !== family) return -1;
  let protocol: number;
  if (kind[PROTOCOL] === NUMBER && num[PROTOCOL] <= 255) protocol = num[PROTOCOL];
  else if (kind[PROTOCOL] !== STRING) return -1;
  else if (equalBytes(s, from[PROTOCOL], to[PROTOCOL], TCP)) protocol = PROTO_TCP;
  else if (equalBytes(s, from[PROTOCOL], to[PROTOCOL], UDP)) protocol = PROTO_UDP;
  else if (equalBytes(s, from[PROTOCOL], to[PROTOCOL], ICMP)) protocol = PROTO_ICMP;
  else if (equalBytes(s, from[PROTOCOL], to[PROTOCOL], SCTP)) protocol = PROTO.sctp;
  else if (equalBytes(s, from[PROTOCOL], to[PROTOCOL], ICMPV6)) protocol = PROTO.icmpv6;
  else return -1;
  const icmp = icmpWord(protocol);
  if (icmp === -2) return -1;
  const dstPort = port(DST_PORT);
  if (dstPort === -2 || (dstPort === -1 && (protocol === PROTO_TCP || protocol === PROTO_UDP))) return -1;
  const srcPort = port(SRC_PORT);
  if (srcPort === -2) return -1;
  if (kind[IN_IF] === NUMBER || kind[SRC_ZONE] === NUMBER || kind[DST_ZONE] === NUMBER) return -1;
  b.fam[i] = family;
  b.protocol[i] = protocol;
  b.dstPort[i] = icmp >= 0 ? icmp : dstPort < 0 ? 0 : dstPort;
  b.srcPort[i] = srcPort;
  // names are null in a batch from takeBatch: only those given are written
  if (kind[IN_IF] === STRING) b.inInterface[i] = name(s, IN_IF);
  if (kind[SRC_ZONE] === STRING) b.srcZone[i] = name(s, SRC_ZONE);
  if (kind[DST_ZONE] === STRING) b.dstZone[i] = name(s, DST_ZONE);
  return p;
}

/** An address field into out[at..at+3]: its family, or 0 when parsePacket would refuse it. */
function address(s: Buffer, f: number, out: Int32Array, at: number): number {
  if (kind[f] === QUAD) {
    out[at] = num[f];
    out[at + 1] = out[at + 2] = out[at + 3] = 0;
    return 4;
  }
  return kind[f] === STRING ? parseIpBytes(s, from[f], to[f], out, at) : 0;
}

/** quadAt's address, as a signed word (network order). */
let quad = 0;

/**
 * A dotted quad at s[p..] ending at a quote, as parseIpBytes takes one (1-3 digits a part,
 * no leading zero, at most 255): the position of the quote, the word in `quad`; else -1
 * (anything else, taken or refused, is left to the generic path). Reads at most QUAD_ROOM
 * bytes: the caller checks they are there.
 */
function quadAt(s: Uint8Array, p: number): number {
  let w = 0;
  for (let part = 0; part < 4; part++) {
    let v = s[p++] - 48;
    if (v < 0 || v > 9) return -1;
    if (v !== 0) {
      // a second and a third digit; a leading 0 takes none, so "01" fails the separator check
      let d = s[p] - 48;
      if (d >= 0 && d <= 9) {
        v = v * 10 + d;
        d = s[++p] - 48;
        if (d >= 0 && d <= 9) {
          v = v * 10 + d;
          p++;
          if (v > 255) return -1;
        }
      }
    }
    w = (w << 8) | v;
    if (s[p++] !== (part < 3 ? DOT : QUOTE)) return -1;
  }
  quad = w;
  return p - 1;
}

/** numberAt's value. */
let number = 0;

/** The unsigned integer whose first digit is s[p]: its end, the value in `number`; -1 for
 * more than 6 digits (out of range for every field: the slow path refuses it). A leading 0
 * ends it ("01" is then refused by the caller's separator check, as are a fraction and an
 * exponent). */
function numberAt(s: Uint8Array, p: number, n: number): number {
  let v = s[p] - 48;
  let q = p + 1;
  if (v !== 0) {
    while (q < n && s[q] >= 48 && s[q] <= 57) {
      if (q - p >= 6) return -1;
      v = v * 10 + (s[q] - 48);
      q++;
    }
  }
  number = v;
  return q;
}

/** A port field: the port, -1 when absent, -2 when parsePacket would refuse it. */
/** An ICMP packet's type << 8 | code (parsePacket's icmpWord), -1 for another protocol,
 * -2 for what parsePacket refuses (a type or code out of range, or on another protocol). */
function icmpWord(protocol: number): number {
  const t = kind[ICMP_TYPE], c = kind[ICMP_CODE];
  if (!isIcmp(protocol)) return t === ABSENT && c === ABSENT ? -1 : -2;
  if ((t !== ABSENT && (t !== NUMBER || num[ICMP_TYPE] > 255)) || (c !== ABSENT && (c !== NUMBER || num[ICMP_CODE] > 255))) return -2;
  return ((t === ABSENT ? 0 : num[ICMP_TYPE]) << 8) | (c === ABSENT ? 0 : num[ICMP_CODE]);
}

function port(f: number): number {
  if (kind[f] === ABSENT) return -1;
  return kind[f] === NUMBER && num[f] <= 65535 ? num[f] : -2;
}

// Names (in-interface, src-zone, dst-zone) must become strings (they are looked up in the
// configuration's maps), but a batch names the same few interfaces and zones over and over:
// each distinct name is made into a string once per body, found again by hashing its bytes.
const NAME_SLOTS = 256; // a power of two
const NAME_PROBES = 8;
const nameGen = new Int32Array(NAME_SLOTS); // the body scan the slot was filled in
const nameHash = new Int32Array(NAME_SLOTS);
const nameFrom = new Int32Array(NAME_SLOTS);
const nameLen = new Int32Array(NAME_SLOTS);
const nameText: string[] = new Array<string>(NAME_SLOTS).fill('');
let nameScan = 0;

function sameBytes(s: Uint8Array, a: number, b: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (s[a + k] !== s[b + k]) return false;
  return true;
}

function name(s: Buffer, f: number): string | null {
  if (kind[f] === ABSENT || from[f] === to[f]) return null; // null and "" count as not given
  const a = from[f];
  const len = to[f] - a;
  let h = 0x811c9dc5;
  for (let k = a; k < a + len; k++) h = Math.imul(h ^ s[k], 0x01000193);
  for (let probe = 0; probe < NAME_PROBES; probe++) {
    const slot = (h + probe) & (NAME_SLOTS - 1);
    if (nameGen[slot] !== nameScan) {
      // a free slot: the first time this name is seen in this body
      const text = s.toString('latin1', a, a + len); // printable ASCII: latin1 is exact
      nameGen[slot] = nameScan;
      nameHash[slot] = h;
      nameFrom[slot] = a;
      nameLen[slot] = len;
      nameText[slot] = text;
      return text;
    }
    if (nameHash[slot] === h && nameLen[slot] === len && sameBytes(s, nameFrom[slot], a, len)) return nameText[slot];
  }
  return s.toString('latin1', a, a + len); // a crowded table: not cached
}
