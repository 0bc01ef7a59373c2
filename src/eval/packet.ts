// Parsing eval requests into Packets (one) or a PacketBatch (a batch), and evaluating batches of
// Packets with any Evaluator. Field names are kebab-case like every payload. Errors name the
// field, and for a batch the packet's index: "packets[3].dst-port: must be an integer 0-65535".
//
// One parser for both: parseInto checks one JSON packet and writes it into a slot of a
// PacketBatch. It allocates nothing for a valid packet (addresses go straight into words,
// names stay references to the request's strings); error details are built only when a
// packet is refused. parsePacket runs it on a one-slot batch and builds the Packet object.
import { FwError, isFwError } from '../errors';
import { formatIp, parseIpWords, type Family } from '../config/net';
import { isPlainObject } from '../config/json';
import { MAX_BATCH, PacketBatch, releaseBatch, takeBatch } from './batch';
import type { EvalResult, Evaluator, Packet } from './types';
import { PROTO_ICMP, PROTO_TCP, PROTO_UDP } from './types';
import { isIcmp, PROTO, protocolOf } from '../config/protocols';

export { MAX_BATCH };

const FIELDS = new Set(['src-ip', 'dst-ip', 'protocol', 'dst-port', 'src-port', 'in-interface', 'src-zone', 'dst-zone', 'icmp-type', 'icmp-code']);
const hasOwn = Object.prototype.hasOwnProperty;

/** "packets[3]." in a batch (index >= 0), nothing for a single packet (index -1). Only called
 * on the way to an error, so a valid batch builds no prefix strings. */
function where(index: number): string {
  return index < 0 ? '' : `packets[${index}].`;
}

function bad(index: number, field: string, text: string): FwError {
  return new FwError('ERR_NET_1004', `${where(index)}${field}: ${text}`);
}

// The field checks take the field's value, read by the caller with a constant name: a load
// from an object of a known shape, where obj[field] with the name a variable was a generic
// keyed lookup (a third of parsePacket's time).

function ipInto(v: unknown, index: number, field: string, out: Int32Array, at: number): Family {
  if (v === undefined || v === null) throw bad(index, field, 'required');
  if (typeof v !== 'string') throw bad(index, field, 'must be a string');
  const family = parseIpWords(v, out, at);
  if (family === 0) throw new FwError('ERR_NET_1001', `${where(index)}${field}: invalid IP address "${v.slice(0, 64)}"`);
  return family;
}

/** A port 0-65535, or -1 when not given. */
function portField(v: unknown, index: number, field: string, required: boolean): number {
  if (v === undefined || v === null) {
    if (required) throw bad(index, field, 'required for tcp and udp');
    return -1;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65535) throw bad(index, field, 'must be an integer 0-65535');
  return v;
}

/** An ICMP packet's type << 8 | code (each 0 when not given), -1 for another protocol, whose
 * packet may not carry them. */
function icmpWord(type: unknown, code: unknown, index: number, icmp: boolean): number {
  const byte = (v: unknown, field: string): number => {
    if (v === undefined || v === null) return 0;
    if (!icmp) throw bad(index, field, 'only an icmp or icmpv6 packet has one');
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) throw bad(index, field, 'must be an integer 0-255');
    return v;
  };
  const t = byte(type, 'icmp-type');
  const c = byte(code, 'icmp-code');
  return icmp ? (t << 8) | c : -1;
}

function nameField(v: unknown, index: number, field: string): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw bad(index, field, 'must be a string');
  return v;
}

/**
 * Checks one JSON packet and writes it into slot i of `b`; `index` is its position in a batch
 * (named in error details), -1 for a single packet. Throws FwError ERR_NET_1004 (not an object,
 * unknown or missing field, wrong type, value out of range) or ERR_NET_1001 (invalid address,
 * or dst-ip of another family than src-ip). Checks run in a fixed order (unknown fields, then
 * src-ip, dst-ip, protocol, dst-port, src-port, names), so the error is the same whatever the
 * order of the keys.
 */
function parseInto(json: unknown, b: PacketBatch, i: number, index: number): void {
  if (!isPlainObject(json)) {
    throw new FwError('ERR_NET_1004', index < 0 ? 'body: must be a JSON object' : `packets[${index}]: must be an object`);
  }
  // for-in instead of Object.keys: no key array per packet (objects of one shape share the
  // enumeration cache of their hidden class); hasOwn only runs for a key that is not a field
  for (const key in json) if (!FIELDS.has(key) && hasOwn.call(json, key)) throw bad(index, key.slice(0, 64), 'unknown field');
  const src = ipInto(json['src-ip'], index, 'src-ip', b.words, i * 8);
  const dst = ipInto(json['dst-ip'], index, 'dst-ip', b.words, i * 8 + 4);
  if (src !== dst) throw new FwError('ERR_NET_1001', `${where(index)}dst-ip: address family differs from src-ip`);
  const p = json.protocol;
  let protocol: number;
  if (p === undefined || p === null) throw bad(index, 'protocol', 'required');
  if (p === 'tcp') protocol = PROTO_TCP;
  else if (p === 'udp') protocol = PROTO_UDP;
  else if (p === 'icmp') protocol = PROTO_ICMP;
  else if (p === 'sctp') protocol = PROTO.sctp;
  else if (p === 'icmpv6') protocol = PROTO.icmpv6;
  else if (typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= 255) protocol = p;
  // issue 41: any name a service takes, and a number as a string ("47"), as services take it
  else if ((protocol = protocolOf(p)) < 0) throw bad(index, 'protocol', 'must be a protocol name (tcp, udp, sctp, icmp, icmpv6, gre, ...) or a number 0-255, as an integer or a string');
  const ported = protocol === PROTO_TCP || protocol === PROTO_UDP;
  const dstPort = portField(json['dst-port'], index, 'dst-port', ported);
  const srcPort = portField(json['src-port'], index, 'src-port', false);
  // ICMP: the packet's type << 8 | code stands where a port would (src/eval/types.ts)
  const icmp = icmpWord(json['icmp-type'], json['icmp-code'], index, isIcmp(protocol));
  const inInterface = nameField(json['in-interface'], index, 'in-interface');
  const srcZone = nameField(json['src-zone'], index, 'src-zone');
  const dstZone = nameField(json['dst-zone'], index, 'dst-zone');
  b.fam[i] = src;
  b.protocol[i] = protocol;
  b.dstPort[i] = icmp >= 0 ? icmp : dstPort < 0 ? 0 : dstPort;
  b.srcPort[i] = srcPort;
  b.inInterface[i] = inInterface;
  b.srcZone[i] = srcZone;
  b.dstZone[i] = dstZone;
}

/** The bytes of an address given as words (network order; IPv4 one word). */
function wordBytes(family: Family, w0: number, w1: number, w2: number, w3: number): Uint8Array {
  const out = new Uint8Array(family === 4 ? 4 : 16);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, w0);
  if (family === 6) {
    dv.setInt32(4, w1);
    dv.setInt32(8, w2);
    dv.setInt32(12, w3);
  }
  return out;
}

/**
 * The Packet parsePacket builds: the fields and the address words are data; the address bytes
 * and text are computed when first read (by the reference evaluator, tests, benchmarks), then
 * kept. CompiledConfig.eval() reads only the words, so a parsed packet is one object: the two
 * byte arrays and two strings built up front were most of parsePacket's time and garbage.
 */
class WordPacket implements Packet {
  private srcBytes: Uint8Array | null = null;
  private dstBytes: Uint8Array | null = null;
  private srcText: string | null = null;
  private dstText: string | null = null;

  constructor(
    readonly family: Family,
    readonly s0: number,
    readonly s1: number,
    readonly s2: number,
    readonly s3: number,
    readonly d0: number,
    readonly d1: number,
    readonly d2: number,
    readonly d3: number,
    readonly protocol: number,
    readonly dstPort: number,
    readonly srcPort: number | null,
    readonly inInterface: string | null,
    readonly srcZone: string | null,
    readonly dstZone: string | null,
  ) {}

  get src(): Uint8Array {
    return (this.srcBytes ??= wordBytes(this.family, this.s0, this.s1, this.s2, this.s3));
  }

  get dst(): Uint8Array {
    return (this.dstBytes ??= wordBytes(this.family, this.d0, this.d1, this.d2, this.d3));
  }

  get srcIp(): string {
    return (this.srcText ??= formatIp(this.family, this.src));
  }

  get dstIp(): string {
    return (this.dstText ??= formatIp(this.family, this.dst));
  }
}

/** The slot parsePacket parses into (parsing is synchronous). */
const one = new PacketBatch(1);

/**
 * Checks and parses one packet. `index` is its position in a batch (named in error details).
 * Throws FwError ERR_NET_1004 (not an object, unknown or missing field, wrong type, value out
 * of range) or ERR_NET_1001 (invalid address, or dst-ip of another family than src-ip).
 */
export function parsePacket(json: unknown, index?: number): Packet {
  parseInto(json, one, 0, index ?? -1);
  const srcPort = one.srcPort[0];
  return packetOf(one.family(0), one.words, 0, one.protocol[0], one.dstPort[0], srcPort < 0 ? null : srcPort, one.inInterface[0], one.srcZone[0], one.dstZone[0]);
}

/** The Packet of valid fields, its addresses the 8 words at words[at..] (source 4, destination
 * 4, IPv4 one word and 3 zeros: a PacketBatch's layout): what parsePacket builds, and
 * benchmarks from their own arrays. */
export function packetOf(
  family: Family,
  words: Int32Array,
  at: number,
  protocol: number,
  dstPort: number,
  srcPort: number | null,
  inInterface: string | null,
  srcZone: string | null,
  dstZone: string | null,
): Packet {
  return new WordPacket(
    family,
    words[at],
    words[at + 1],
    words[at + 2],
    words[at + 3],
    words[at + 4],
    words[at + 5],
    words[at + 6],
    words[at + 7],
    protocol,
    dstPort,
    srcPort,
    inInterface,
    srcZone,
    dstZone,
  );
}

/** The packet list of a batch request body {"packets": [...]} (at most MAX_BATCH packets). */
function batchList(body: unknown): unknown[] {
  if (!isPlainObject(body)) throw new FwError('ERR_NET_1004', 'body: must be a JSON object');
  for (const key of Object.keys(body)) if (key !== 'packets') throw bad(-1, key.slice(0, 64), 'unknown field');
  const list = body.packets;
  if (list === undefined) throw bad(-1, 'packets', 'required');
  if (!Array.isArray(list)) throw bad(-1, 'packets', 'must be an array');
  if (list.length > MAX_BATCH) throw bad(-1, 'packets', `at most ${MAX_BATCH} packets per request`);
  return list;
}

/** Parses a batch request body into Packet objects (tests, and evaluators without a batch path). */
export function parseBatch(body: unknown): Packet[] {
  const list = batchList(body);
  const out = new Array<Packet>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = parsePacket(list[i], i);
  return out;
}

/** Parses a batch request body into a PacketBatch (the same checks and errors as parseBatch,
 * no object per packet); give it back with releaseBatch when done. */
export function parsePacketBatch(body: unknown): PacketBatch {
  const list = batchList(body);
  const b = takeBatch(list.length);
  try {
    for (let i = 0; i < list.length; i++) parseInto(list[i], b, i, i);
  } catch (e) {
    releaseBatch(b);
    throw e;
  }
  return b;
}

/** Evaluates packets in order; an error names the offending packet's index. */
export function evalBatch(ev: Evaluator, packets: readonly Packet[]): EvalResult[] {
  const out = new Array<EvalResult>(packets.length);
  for (let i = 0; i < packets.length; i++) {
    try {
      out[i] = ev.eval(packets[i]);
    } catch (e) {
      if (isFwError(e)) throw new FwError(e.code, `packets[${i}].${e.details}`, e.message);
      throw e;
    }
  }
  return out;
}
