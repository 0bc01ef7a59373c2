// L4 service objects: a protocol and a list of ports or port ranges.
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
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, PortEntry, Protocol } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { removeUnused } from '../refs';
import { checkEnum, checkName, checkSameKey, existing, shapeChecker } from '../validate';

const PROTOCOLS: readonly Protocol[] = ['tcp', 'udp'];
const MAX_PORT_ENTRIES = 1024;

const Ports = Type.Array(Type.Union([Type.Integer(), Type.String()]));
export const bodies = {
  create: Type.Object({ name: Type.String(), protocol: Type.String(), ports: Ports }, { additionalProperties: false }),
  update: Type.Object(
    { name: Type.Optional(Type.String()), protocol: Type.Optional(Type.String()), ports: Type.Optional(Ports) },
    { additionalProperties: false },
  ),
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
export function checkPorts(ports: Array<number | string>): PortEntry[] {
  if (ports.length === 0) throw outOfRange('ports', 'at least one port is required');
  if (ports.length > MAX_PORT_ENTRIES) throw outOfRange('ports', `at most ${MAX_PORT_ENTRIES} entries`);
  const spans = ports.map((p, i) => parsePort(`ports[${i}]`, p));
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i][0] <= sorted[i - 1][1]) {
      const [a, b] = [showPort(sorted[i - 1]), showPort(sorted[i])];
      throw outOfRange('ports', a === b ? `port ${a} appears twice` : `${a} and ${b} overlap`);
    }
  }
  return spans.map(([low, high]) => (low === high ? low : `${low}-${high}`));
}

function checkProtocol(value: string): Protocol {
  return checkEnum('protocol', value, PROTOCOLS, 'ERR_NET_1006');
}

export const serviceOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const name = checkName('name', b.name);
    const protocol = checkProtocol(b.protocol);
    const ports = checkPorts(b.ports);
    if (doc.services.has(name)) throw new FwError('ERR_NET_2006', `service "${name}" already exists`);
    doc.services.set(name, { name, protocol, ports });
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.services, 'service', key);
    const protocol = b.protocol === undefined ? old.protocol : checkProtocol(b.protocol);
    const ports = b.ports === undefined ? old.ports : checkPorts(b.ports);
    doc.services.set(key, { name: key, protocol, ports });
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    removeUnused(doc, doc.services, 'service', 'service', key);
    return {};
  },
};
