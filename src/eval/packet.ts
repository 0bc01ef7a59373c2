// Parsing eval requests into Packets, and evaluating batches. Field names are kebab-case like
// every payload. Errors name the field, and for a batch the packet's index:
// "packets[3].dst-port: must be an integer 0-65535".
import { FwError, isFwError } from '../errors';
import { formatIp, parseIp } from '../config/net';
import type { EvalResult, Evaluator, Packet } from './types';
import { PROTO_ICMP, PROTO_TCP, PROTO_UDP } from './types';

export const MAX_BATCH = 10000;

const FIELDS = new Set(['src-ip', 'dst-ip', 'protocol', 'dst-port', 'src-port', 'in-interface', 'src-zone', 'dst-zone']);
const PROTOCOLS: Record<string, number> = { tcp: PROTO_TCP, udp: PROTO_UDP, icmp: PROTO_ICMP };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bad(where: string, field: string, text: string): never {
  throw new FwError('ERR_NET_1004', `${where}${field}: ${text}`);
}

function ipField(obj: Record<string, unknown>, where: string, field: string) {
  const v = obj[field];
  if (v === undefined || v === null) bad(where, field, 'required');
  if (typeof v !== 'string') bad(where, field, 'must be a string');
  const ip = parseIp(v);
  if (!ip) throw new FwError('ERR_NET_1001', `${where}${field}: invalid IP address "${v.slice(0, 64)}"`);
  return ip;
}

function portField(obj: Record<string, unknown>, where: string, field: string, required: boolean): number | null {
  const v = obj[field];
  if (v === undefined || v === null) {
    if (required) bad(where, field, 'required for tcp and udp');
    return null;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65535) bad(where, field, 'must be an integer 0-65535');
  return v;
}

function nameField(obj: Record<string, unknown>, where: string, field: string): string | null {
  const v = obj[field];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') bad(where, field, 'must be a string');
  return v;
}

/**
 * Checks and parses one packet. `index` is its position in a batch (named in error details).
 * Throws FwError ERR_NET_1004 (not an object, unknown or missing field, wrong type, value out
 * of range) or ERR_NET_1001 (invalid address, or dst-ip of another family than src-ip).
 */
export function parsePacket(json: unknown, index?: number): Packet {
  const where = index === undefined ? '' : `packets[${index}].`;
  if (!isPlainObject(json)) {
    throw new FwError('ERR_NET_1004', index === undefined ? 'body: must be a JSON object' : `packets[${index}]: must be an object`);
  }
  for (const key of Object.keys(json)) if (!FIELDS.has(key)) bad(where, key.slice(0, 64), 'unknown field');
  const src = ipField(json, where, 'src-ip');
  const dst = ipField(json, where, 'dst-ip');
  if (src.family !== dst.family) throw new FwError('ERR_NET_1001', `${where}dst-ip: address family differs from src-ip`);
  const p = json.protocol;
  let protocol: number;
  if (p === undefined || p === null) bad(where, 'protocol', 'required');
  if (typeof p === 'string' && Object.prototype.hasOwnProperty.call(PROTOCOLS, p)) protocol = PROTOCOLS[p];
  else if (typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= 255) protocol = p;
  else bad(where, 'protocol', 'must be tcp, udp, icmp or an integer 0-255');
  const ported = protocol === PROTO_TCP || protocol === PROTO_UDP;
  const dstPort = portField(json, where, 'dst-port', ported);
  const srcPort = portField(json, where, 'src-port', false);
  return {
    family: src.family,
    srcIp: formatIp(src.family, src.bytes),
    dstIp: formatIp(dst.family, dst.bytes),
    src: src.bytes,
    dst: dst.bytes,
    protocol,
    dstPort: dstPort ?? 0,
    srcPort,
    inInterface: nameField(json, where, 'in-interface'),
    srcZone: nameField(json, where, 'src-zone'),
    dstZone: nameField(json, where, 'dst-zone'),
  };
}

/** Parses a batch request body {"packets": [...]} (at most MAX_BATCH packets). */
export function parseBatch(body: unknown): Packet[] {
  if (!isPlainObject(body)) throw new FwError('ERR_NET_1004', 'body: must be a JSON object');
  for (const key of Object.keys(body)) if (key !== 'packets') bad('', key.slice(0, 64), 'unknown field');
  const list = body.packets;
  if (list === undefined) bad('', 'packets', 'required');
  if (!Array.isArray(list)) bad('', 'packets', 'must be an array');
  if (list.length > MAX_BATCH) bad('', 'packets', `at most ${MAX_BATCH} packets per request`);
  const out = new Array<Packet>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = parsePacket(list[i], i);
  return out;
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
