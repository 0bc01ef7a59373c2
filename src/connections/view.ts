// The session table (GET/DELETE /api/sessions): the kernel's conntrack entries as the API
// shows them (zones, the accepting policy from the mark, the NAT applied), and the filters.
import { Type, type TSchema } from '@sinclair/typebox';
import { parseCidr, parseIp, parseIpWords, type Cidr, type IpAddr } from '../config/net';
import type { ConnEntry, FlowTuple } from '../dataplane/conntrack';
import { readMark } from '../dataplane/marks';
import type { CompiledConfig } from '../eval/compiled';
import { parsePacket } from '../eval/packet';
import { FwError } from '../errors';

export interface TupleView {
  src: string;
  dst: string;
  'src-port': number | null;
  'dst-port': number | null;
  packets: number;
  bytes: number;
}

export interface Translation {
  ip: string;
  port: number | null;
}

export interface SessionView {
  id: string;
  family: 4 | 6;
  protocol: string;
  state: string | null;
  age: number | null;
  timeout: number;
  original: TupleView;
  reply: TupleView;
  packets: number;
  bytes: number;
  srcZone: string | null;
  dstZone: string | null;
  policy: number | null;
  /** the rematch of a commit refused it (its packets are dropped): the data plane deletes it within 5 seconds */
  cut: boolean;
  nat: { snat: Translation | null; dnat: Translation | null };
}

function tupleView(t: FlowTuple): TupleView {
  return { src: t.src, dst: t.dst, 'src-port': t.sport, 'dst-port': t.dport, packets: t.packets, bytes: t.bytes };
}

/**
 * The translations conntrack applied, read from the tuples: the reply comes from the real
 * destination (dnat when it is not the original one) and goes to the real source (snat).
 */
function natOf(e: ConnEntry): SessionView['nat'] {
  const o = e.original;
  const r = e.reply;
  const dnat = r.src !== o.dst || r.sport !== o.dport ? { ip: r.src, port: r.sport !== o.dport ? r.sport : null } : null;
  const snat = r.dst !== o.src || r.dport !== o.sport ? { ip: r.dst, port: r.dport !== o.sport ? r.dport : null } : null;
  return { snat, dnat };
}

/**
 * Source and destination zone of a connection by the running version: eval.md's address
 * steps on its original source and its real (post-dnat) destination.
 */
function zonesOf(e: ConnEntry, compiled: CompiledConfig | null): { srcZone: string | null; dstZone: string | null } {
  if (!compiled) return { srcZone: null, dstZone: null };
  const z = zoneIndexes(e, compiled);
  return z ? { srcZone: compiled.zoneName(z[0]), dstZone: compiled.zoneName(z[1]) } : { srcZone: null, dstZone: null };
}

/** The zones' indexes (CompiledConfig.zonesOf: eval's zones without its policy step); null when eval cannot take the addresses (e.g. a zone id). */
function zoneIndexes(e: ConnEntry, compiled: CompiledConfig): [number, number] | null {
  try {
    return compiled.zonesOf(parsePacket({ 'src-ip': e.original.src, 'dst-ip': e.reply.src, protocol: e.protonum, 'dst-port': e.reply.sport ?? 0 }));
  } catch {
    return null;
  }
}

export function sessionView(e: ConnEntry, compiled: CompiledConfig | null): SessionView {
  const mark = readMark(e.mark);
  return {
    id: String(e.id),
    family: e.family,
    protocol: e.protocol,
    state: e.state,
    age: e.age,
    timeout: e.timeout,
    original: tupleView(e.original),
    reply: tupleView(e.reply),
    packets: e.original.packets + e.reply.packets,
    bytes: e.original.bytes + e.reply.bytes,
    ...zonesOf(e, compiled),
    policy: mark.policy,
    cut: mark.cut,
    nat: natOf(e),
  };
}

/** What ?address= ... selects; every given field must match. */
export interface SessionFilter {
  address?: Cidr;
  port?: number;
  protocol?: string;
  zone?: string;
  policy?: number;
  state?: string;
  id?: string;
  src?: IpAddr;
  dst?: IpAddr;
  sport?: number;
  dport?: number;
}

const PROTOCOLS: Record<string, string> = { 1: 'icmp', 6: 'tcp', 17: 'udp', 58: 'icmpv6', 132: 'sctp', 33: 'dccp', 47: 'gre' };
const STATES = ['SYN_SENT', 'SYN_RECV', 'ESTABLISHED', 'FIN_WAIT', 'CLOSE_WAIT', 'LAST_ACK', 'TIME_WAIT', 'CLOSE', 'SYN_SENT2'];

/** The filters' documentation (OpenAPI) and fwctl's options: one list. */
export const FILTER_DOCS: Record<string, string> = {
  address: 'an address or prefix: any address of either direction (before or after NAT) in it',
  port: 'a port of either direction',
  protocol: 'tcp, udp, icmp, icmpv6, sctp, dccp, gre or a protocol number',
  zone: 'the source or the destination zone',
  policy: 'the id of the policy that accepted it',
  state: `the TCP state: ${STATES.join(', ')} (any case)`,
  id: 'the kernel\'s id of the entry',
  src: 'the original source address (exact)',
  dst: 'the original destination address (exact)',
  sport: 'the original source port',
  dport: 'the original destination port',
};

/** A pattern of these words in any case (JSON Schema patterns have no case-insensitive flag). */
function anyCase(words: readonly string[]): string {
  const letters = (w: string) => [...w].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[^A-Za-z0-9]/g, '\\$&'))).join('');
  return words.map(letters).join('|');
}

/** The schemas of the filters in the OpenAPI document: what parseSessionFilter takes, no more (issue 43: the document said string). */
export const FILTER_SCHEMAS: Record<string, TSchema> = {
  port: Type.Integer({ minimum: 0, maximum: 65535 }), sport: Type.Integer({ minimum: 0, maximum: 65535 }), dport: Type.Integer({ minimum: 0, maximum: 65535 }),
  policy: Type.Integer({ minimum: 0, maximum: 2 ** 31 }), id: Type.Integer({ minimum: 0, maximum: 2 ** 32 }),
  protocol: Type.String({ pattern: `^(${anyCase(Object.values(PROTOCOLS))}|[0-9]{1,10})$` }),
  state: Type.String({ pattern: `^(${anyCase(STATES)})$` }),
};

/** ?protocol=: a name or number, as protocolName writes it; 400 ERR_NET_1006 otherwise. */
export function parseProtocolQuery(protocol: string): string {
  const name = /^\d+$/.test(protocol) ? PROTOCOLS[int('protocol', protocol, 255)] ?? protocol : protocol.toLowerCase();
  if (!Object.values(PROTOCOLS).includes(name) && !/^\d+$/.test(name)) throw new FwError('ERR_NET_1006', `query "protocol": "${protocol.slice(0, 64)}" is not one of ${Object.values(PROTOCOLS).join(', ')} or a number`);
  return name;
}

/** ?address=: an address or prefix; 400 ERR_NET_1001 otherwise. */
export function parseAddressQuery(address: string): Cidr {
  const c = parseCidr(address);
  if (!c) throw new FwError('ERR_NET_1001', `query "address": "${address.slice(0, 64)}" is not an IP address or prefix`);
  return c;
}

export function int(name: string, text: string, max: number): number {
  if (!/^\d{1,10}$/.test(text)) throw new FwError('ERR_NET_1004', `query "${name}": "${text.slice(0, 64)}" is not a whole number`);
  const n = Number(text);
  if (n > max) throw new FwError('ERR_NET_1008', `query "${name}": ${n} is not within 0-${max}`);
  return n;
}

function ip(name: string, text: string): IpAddr {
  const a = parseIp(text);
  if (!a) throw new FwError('ERR_NET_1001', `query "${name}": "${text.slice(0, 64)}" is not an IP address`);
  return a;
}

/** The filters of a query; a bad one is 400 with the contract's code. */
export function parseSessionFilter(q: URLSearchParams): SessionFilter {
  const f: SessionFilter = {};
  const get = (k: string) => q.get(k) ?? undefined;
  const address = get('address');
  if (address !== undefined) f.address = parseAddressQuery(address);
  const protocol = get('protocol');
  if (protocol !== undefined) f.protocol = parseProtocolQuery(protocol);
  const state = get('state');
  if (state !== undefined) {
    if (!STATES.includes(state.toUpperCase())) throw new FwError('ERR_NET_1005', `query "state": "${state.slice(0, 64)}" is not one of ${STATES.join(', ')}`);
    f.state = state.toUpperCase();
  }
  for (const k of ['port', 'sport', 'dport'] as const) {
    const v = get(k);
    if (v !== undefined) f[k] = int(k, v, 65535);
  }
  const policy = get('policy');
  if (policy !== undefined) f.policy = int('policy', policy, 2 ** 31);
  const id = get('id');
  if (id !== undefined) f.id = String(int('id', id, 2 ** 32));
  const zone = get('zone');
  if (zone !== undefined) f.zone = zone;
  const src = get('src');
  if (src !== undefined) f.src = ip('src', src);
  const dst = get('dst');
  if (dst !== undefined) f.dst = ip('dst', dst);
  return f;
}

export const isEmptyFilter = (f: SessionFilter) => Object.keys(f).length === 0;

/** Scratch words of the address being compared (synchronous, so shared). */
const scratch = new Int32Array(4);

/** The big-endian 32-bit words of an address's bytes, as parseIpWords writes them. */
function wordsOf(bytes: Uint8Array): Int32Array {
  const w = new Int32Array(4);
  for (let i = 0; i < bytes.length; i++) w[i >> 2] |= bytes[i] << (24 - 8 * (i & 3));
  return w;
}

/**
 * A test of an address text against a prefix (a /32 or /128 is one address): the text is
 * read into words in place, with no allocation, since a filter meets four addresses of every
 * live connection (100,000 of them: docs/performance.md, "Session table and impact").
 */
export function prefixTest(c: Cidr): (text: string) => boolean {
  const base = wordsOf(c.bytes);
  const mask = new Int32Array(4);
  for (let i = 0; i < 4; i++) {
    const bits = Math.max(0, Math.min(32, c.prefix - 32 * i));
    mask[i] = bits === 0 ? 0 : (-1 << (32 - bits)) | 0;
    base[i] &= mask[i];
  }
  return (text) => {
    if (parseIpWords(text, scratch, 0) !== c.family) return false;
    for (let i = 0; i < 4; i++) if ((scratch[i] & mask[i]) !== base[i]) return false;
    return true;
  };
}

const exactly = (a: IpAddr): Cidr => ({ family: a.family, bytes: a.bytes, prefix: a.family === 4 ? 32 : 128 });

/**
 * The test of a filter on the kernel's entries: every field but the zone is read from the
 * entry itself, and the zones (a lookup in the running version) only of the entries that
 * pass the rest; so a listing builds the API's view only of the page it returns.
 */
export function entryMatcher(f: SessionFilter, compiled: CompiledConfig | null): (e: ConnEntry) => boolean {
  const prefix = f.address && prefixTest(f.address);
  const src = f.src && prefixTest(exactly(f.src));
  const dst = f.dst && prefixTest(exactly(f.dst));
  const id = f.id === undefined ? undefined : Number(f.id);
  const zone = f.zone === undefined ? 0 : compiled?.zoneIndex(f.zone) ?? -1; // -1: no such zone, nothing matches
  return (e) => {
    const o = e.original;
    const r = e.reply;
    if (id !== undefined && e.id !== id) return false;
    if (f.protocol !== undefined && e.protocol !== f.protocol) return false;
    if (f.state !== undefined && e.state !== f.state) return false;
    if (f.policy !== undefined && readMark(e.mark).policy !== f.policy) return false;
    if (f.sport !== undefined && o.sport !== f.sport) return false;
    if (f.dport !== undefined && o.dport !== f.dport) return false;
    if (f.port !== undefined && o.sport !== f.port && o.dport !== f.port && r.sport !== f.port && r.dport !== f.port) return false;
    if (src && !src(o.src)) return false;
    if (dst && !dst(o.dst)) return false;
    if (prefix && !prefix(o.src) && !prefix(o.dst) && !prefix(r.src) && !prefix(r.dst)) return false;
    if (f.zone !== undefined) {
      const z = zone > 0 && compiled ? zoneIndexes(e, compiled) : null;
      if (!z || (z[0] !== zone && z[1] !== zone)) return false;
    }
    return true;
  };
}
