// Service objects: a protocol and, for tcp, udp and sctp, a list of ports or port ranges; for
// icmp and icmpv6 an optional type and code; any other IP protocol by name or number alone
// (src/config/protocols.ts).
//
// Decisions (contract section 2 leaves them open):
// - A port is an integer 1-65535; a range is a string "low-high" with 1 <= low <= high <= 65535.
//   A digit string "443" is read as the port 443 and a range "80-80" as the port 80, so the
//   stored form is canonical: a range is kept only when low < high.
// - `ports` must be non-empty, and no port may appear twice after that normalization, either as
//   an exact repeat or through overlapping ranges ("80" and "70-90"). Every one of these value
//   failures is 400 ERR_NET_1008, as the contract says for `ports` ("other: 400 ERR_NET_1008");
//   an entry that is neither an integer nor a string (80.5, true, null) is a wrong JSON type,
//   400 ERR_NET_1004.
// - Entries keep the order they were given in.
// - `ports` is required for tcp, udp and sctp (missing: 400 ERR_NET_1004, as the seed's shape
//   check answered for tcp and udp) and refused for the other protocols unless empty (400
//   ERR_NET_1006 naming the protocol, as the seed refused "icmp" with ports). An unknown protocol name or a number outside 0-255: 400 ERR_NET_1006.
//   A number may be a JSON integer or a decimal string (issue 41, as POST /api/eval); a
//   fraction or another JSON type is 400 ERR_NET_1004.
// - `icmp-type` and `icmp-code` (0-255, else 400 ERR_NET_1008) only for icmp and icmpv6, and a
//   code only with a type (else 400 ERR_NET_1004). The merged service of a PUT is checked as
//   a whole. A PUT changes the protocol only between tcp and udp, as the seed's edits did
//   (its suite refuses "sctp" there): any other change is 400 ERR_NET_1006, the service is
//   deleted and created anew.
// - `source-ports` (issue 27) is optional, takes the syntax and checks of `ports` (its errors
//   name "source-ports"), and only for tcp, udp and sctp (another protocol: 400 ERR_NET_1006
//   naming the field). Absent: every source port. `[]` removes it (on a PUT: back to every
//   source port); it is kept across a PUT that does not name it, dropped when the PUT changes
//   the protocol to one without ports (refused anyway: only tcp and udp swap).
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, PortEntry, Protocol, ServiceObj } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { removeUnused } from '../refs';
import { checked, checkName, checkRange, checkSameKey, existing, shapeChecker } from '../validate';
import { hasPorts, isIcmp, protocolName, protocolNumber, protocolOf, PROTOCOL_NUMBERS } from '../protocols';

const MAX_PORT_ENTRIES = 1024;
/** The protocols a PUT may swap between (the seed's, whose edits refuse every other protocol). */
const SEED_PROTOCOLS = ['tcp', 'udp'];

const Ports = Type.Array(Type.Union([Type.Integer(), Type.String()]));
// issue 41: a number is written as a JSON integer (47) or a string ("47"), as POST /api/eval
// takes it (this reverses, on purpose, the earlier refusal of a JSON number as the seed's wrong type)
const ProtocolField = Type.Union([Type.String(checked({ pattern: `^(${[...PROTOCOL_NUMBERS.keys()].join('|')}|[0-9]{1,3})$` })), Type.Integer(checked({ minimum: 0, maximum: 255 }))], {
  description: 'tcp, udp, sctp, icmp, icmpv6, another IP protocol\'s name, or its number 0-255 (an integer, 47, or a string, "47")',
});
const extra = {
  ports: Type.Optional(Ports),
  'icmp-type': Type.Optional(Type.Integer({ description: 'icmp/icmpv6 only: 0-255', ...checked({ minimum: 0, maximum: 255 }) })),
  'icmp-code': Type.Optional(Type.Integer({ description: 'with icmp-type only: 0-255', ...checked({ minimum: 0, maximum: 255 }) })),
  'source-ports': Type.Optional(Type.Array(Type.Union([Type.Integer(), Type.String()]), { description: 'tcp, udp and sctp only: source ports or ranges, as ports; absent or []: every source port' })),
};
export const bodies = {
  create: Type.Object({ name: Type.String(), protocol: ProtocolField, ...extra }, { additionalProperties: false }),
  update: Type.Object({ name: Type.Optional(Type.String()), protocol: Type.Optional(ProtocolField), ...extra }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

const RANGE = /^(\d{1,5})-(\d{1,5})$/;
const SINGLE = /^\d{1,5}$/;

function outOfRange(field: string, what: string): FwError {
  return new FwError('ERR_NET_1008', `field "${field}": ${what}`);
}

/** One entry as [low, high], after checking it. */
function parsePort(field: string, entry: number | string): [number, number] {
  if (typeof entry === 'number') {
    if (entry < 1 || entry > 65535) throw outOfRange(field, `${entry} is not a port within 1-65535`);
    return [entry, entry];
  }
  if (SINGLE.test(entry)) return parsePort(field, Number(entry));
  const m = RANGE.exec(entry);
  if (!m) throw outOfRange(field, `"${entry}" is neither a port 1-65535 nor a range "low-high"`);
  const low = Number(m[1]);
  const high = Number(m[2]);
  if (low < 1 || high > 65535) throw outOfRange(field, `range "${entry}" is not within 1-65535`);
  if (low > high) throw outOfRange(field, `range "${entry}" has its low end above its high end`);
  return [low, high];
}

function showPort([low, high]: [number, number]): string {
  return low === high ? String(low) : `${low}-${high}`;
}

/** Checks and normalizes a port list (see the decisions above). */
export function checkPorts(ports: Array<number | string>, field = 'ports'): PortEntry[] {
  if (ports.length === 0) throw outOfRange(field, 'at least one port is required');
  if (ports.length > MAX_PORT_ENTRIES) throw outOfRange(field, `at most ${MAX_PORT_ENTRIES} entries`);
  const spans = ports.map((p, i) => parsePort(`${field}[${i}]`, p));
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i][0] <= sorted[i - 1][1]) {
      const [a, b] = [showPort(sorted[i - 1]), showPort(sorted[i])];
      throw outOfRange(field, a === b ? `port ${a} appears twice` : `${a} and ${b} overlap`);
    }
  }
  return spans.map(([low, high]) => (low === high ? low : `${low}-${high}`));
}

/** A protocol as stored: a name of protocols.ts, or the decimal number of one without a name. */
function checkProtocol(value: string | number): Protocol {
  const n = protocolOf(value);
  if (n < 0) {
    throw new FwError('ERR_NET_1006', `field "protocol": ${JSON.stringify(value)} is neither a known protocol name (${[...PROTOCOL_NUMBERS.keys()].join(', ')}) nor a number 0-255`);
  }
  return protocolName(n);
}

type Body = ReturnType<typeof updateShape>;

/** The service `b` makes over `old` (a create: no old), checked as a whole. */
function merged(name: string, old: ServiceObj | undefined, b: Body): ServiceObj {
  const protocol = b.protocol === undefined ? old!.protocol : checkProtocol(b.protocol);
  if (old && protocol !== old.protocol && !(SEED_PROTOCOLS.includes(protocol) && SEED_PROTOCOLS.includes(old.protocol))) {
    throw new FwError('ERR_NET_1006', `field "protocol": a ${old.protocol} service cannot become ${protocol} (only tcp and udp swap; delete and create it)`);
  }
  const n = protocolNumber(protocol);
  const given = b.ports ?? old?.ports;
  let ports: PortEntry[] = [];
  if (hasPorts(n)) {
    if (given === undefined) throw new FwError('ERR_NET_1004', 'missing field "ports"');
    ports = b.ports === undefined ? given : checkPorts(b.ports);
  } else if (given !== undefined && given.length > 0) {
    // the seed refused such a service for its protocol (icmp with ports): so does this
    throw new FwError('ERR_NET_1006', `field "protocol": a service with ports is tcp, udp or sctp; ${protocol} has none (give "ports": [])`);
  }
  const svc: ServiceObj = { name, protocol, ports };
  const sources = b['source-ports'] ?? (b.protocol === undefined || hasPorts(n) ? old?.sourcePorts : undefined);
  if (sources !== undefined && sources.length > 0) {
    if (!hasPorts(n)) throw new FwError('ERR_NET_1006', `field "source-ports": a service with source ports is tcp, udp or sctp; ${protocol} has none`);
    svc.sourcePorts = b['source-ports'] === undefined ? sources : checkPorts(sources, 'source-ports');
  }
  const type = b['icmp-type'] ?? (b.protocol === undefined ? old?.icmpType : undefined);
  const code = b['icmp-code'] ?? (b.protocol === undefined ? old?.icmpCode : undefined);
  if (type !== undefined || code !== undefined) {
    if (!isIcmp(n)) throw new FwError('ERR_NET_1004', `field "${type !== undefined ? 'icmp-type' : 'icmp-code'}": only an icmp or icmpv6 service has a type and code`);
    if (type === undefined) throw new FwError('ERR_NET_1004', 'field "icmp-code": a code needs an icmp-type');
    svc.icmpType = checkRange('icmp-type', type, 0, 255);
    if (code !== undefined) svc.icmpCode = checkRange('icmp-code', code, 0, 255);
  }
  return svc;
}

export const serviceOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const name = checkName('name', b.name);
    const svc = merged(name, undefined, b);
    if (doc.services.has(name)) throw new FwError('ERR_NET_2006', `service "${name}" already exists`);
    if (doc.serviceGroups.has(name)) throw new FwError('ERR_NET_2006', `service group "${name}" already exists (a name is either a service or a service group)`);
    doc.services.set(name, svc);
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.services, 'service', key);
    doc.services.set(key, merged(key, old, b));
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    removeUnused(doc, doc.services, 'service', 'service', key);
    return {};
  },
};
