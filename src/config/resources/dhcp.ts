// DHCP server pools: at most one per interface or VLAN, keyed by the link's name. IPv4 only.
//
// Immediate checks are those of the payload itself: addresses are IPv4 (400 ERR_NET_1001),
// start_ip <= end_ip (400 ERR_NET_1008: the range is inverted), lease_time 1-525600 minutes
// (default 1440; 400 ERR_NET_1008), dns at most 8 IPv4 servers, none twice (400 ERR_NET_1004).
// Whether the range and the gateway lie inside the interface's subnet is a commit check
// (commit-checks.ts), since the interface address may still change in the same session.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, DhcpPool } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { compareIp, parseIPv4 } from '../net';
import { linkExists } from '../refs';
import { checkRange, checkRef, checkSameKey, checkUnique, existing, shapeChecker, checked } from '../validate';

export const DEFAULT_LEASE_MIN = 1440;
const MAX_LEASE_MIN = 525600; // one year
const MAX_DNS = 8;

const fields = {
  gateway: Type.Optional(Type.String()),
  dns: Type.Optional(Type.Array(Type.String())),
  lease_time: Type.Optional(Type.Integer({ description: 'minutes; default 1440', ...checked({ minimum: 1, maximum: MAX_LEASE_MIN }) })),
};
export const bodies = {
  create: Type.Object({ interface: Type.String(), start_ip: Type.String(), end_ip: Type.String(), ...fields }, { additionalProperties: false }),
  update: Type.Object(
    { interface: Type.Optional(Type.String()), start_ip: Type.Optional(Type.String()), end_ip: Type.Optional(Type.String()), ...fields },
    { additionalProperties: false },
  ),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

/** An IPv4 address in canonical dotted form; anything else (IPv6 included) is 400 ERR_NET_1001. */
function checkIPv4(field: string, value: string): string {
  const b = parseIPv4(value);
  if (b) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const why = value.includes(':') ? 'DHCP pools are IPv4 only' : 'not an IPv4 address';
  throw new FwError('ERR_NET_1001', `field "${field}": "${value}": ${why}`);
}

function checkDns(values: string[]): string[] {
  if (values.length > MAX_DNS) throw new FwError('ERR_NET_1008', `field "dns": at most ${MAX_DNS} servers`);
  return checkUnique('dns', values.map((v, i) => checkIPv4(`dns[${i}]`, v)));
}

function checkOrder(p: DhcpPool): void {
  if (compareIp(parseIPv4(p.startIp)!, parseIPv4(p.endIp)!) > 0) {
    throw new FwError('ERR_NET_1008', `start_ip ${p.startIp} is above end_ip ${p.endIp}`);
  }
}

export const dhcpOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const link = b.interface;
    if (link === '') throw new FwError('ERR_NET_1004', 'field "interface": an interface or VLAN name is required');
    checkRef('interface', link, (n) => linkExists(doc, n), 'interface or VLAN');
    const p: DhcpPool = {
      interface: link,
      startIp: checkIPv4('start_ip', b.start_ip),
      endIp: checkIPv4('end_ip', b.end_ip),
      gateway: b.gateway === undefined || b.gateway === '' ? '' : checkIPv4('gateway', b.gateway),
      dns: checkDns(b.dns ?? []),
      leaseTime: checkRange('lease_time', b.lease_time ?? DEFAULT_LEASE_MIN, 1, MAX_LEASE_MIN),
    };
    checkOrder(p);
    if (doc.dhcp.has(link)) throw new FwError('ERR_NET_2006', `"${link}" already has a DHCP pool`);
    doc.dhcp.set(link, p);
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('interface', b.interface, key);
    const old = existing(doc.dhcp, 'dhcp pool', key);
    const p: DhcpPool = {
      interface: key,
      startIp: b.start_ip === undefined ? old.startIp : checkIPv4('start_ip', b.start_ip),
      endIp: b.end_ip === undefined ? old.endIp : checkIPv4('end_ip', b.end_ip),
      gateway: b.gateway === undefined ? old.gateway : b.gateway === '' ? '' : checkIPv4('gateway', b.gateway),
      dns: b.dns === undefined ? old.dns : checkDns(b.dns),
      leaseTime: b.lease_time === undefined ? old.leaseTime : checkRange('lease_time', b.lease_time, 1, MAX_LEASE_MIN),
    };
    checkOrder(p);
    doc.dhcp.set(key, p);
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    existing(doc.dhcp, 'dhcp pool', key);
    doc.dhcp.delete(key);
    return {};
  },
};
