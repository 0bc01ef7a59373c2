// Static routes: id-keyed, listed by id. Reachability of the gateway is a commit check
// (commit-checks.ts); here: formats, ranges, the interface reference and the gateway family.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, RouteObj } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { linkExists } from '../refs';
import { parseCidr, parseIp } from '../net';
import { checkDescription, nextId, replacedAt, ruleIndex, withoutRule } from '../moves';
import { checkCidr, checkIp, checkRange, checkRef, checkSameKey, shapeChecker } from '../validate';

const fields = {
  description: Type.Optional(Type.String()),
  gateway: Type.Optional(Type.String()),
  interface: Type.Optional(Type.String()),
  metric: Type.Optional(Type.Integer()),
};
export const bodies = {
  create: Type.Object({ ...fields, destination: Type.String() }, { additionalProperties: false }),
  update: Type.Object({ ...fields, id: Type.Optional(Type.Integer()), destination: Type.Optional(Type.String()) }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

type RouteFields = Omit<RouteObj, 'id'>;

/** "default" is the IPv4 default route, stored as 0.0.0.0/0. */
function checkDestination(value: string): string {
  return value === 'default' ? '0.0.0.0/0' : checkCidr('destination', value);
}

/** The checks every stored route satisfies, on the merged fields. */
function checkRoute(r: RouteFields): void {
  if (r.gateway === '' && r.interface === '') {
    throw new FwError('ERR_NET_1004', 'a route needs a "gateway", an "interface" or both');
  }
  if (r.gateway !== '') {
    const dest = parseCidr(r.destination);
    const gw = parseIp(r.gateway);
    if (dest && gw && dest.family !== gw.family) {
      throw new FwError('ERR_NET_1001', `field "gateway": ${r.gateway} is not of the family of the destination ${r.destination}`);
    }
  }
}

export const routeOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const r: RouteFields = {
      description: checkDescription(b.description ?? ''),
      destination: checkDestination(b.destination),
      gateway: b.gateway ? checkIp('gateway', b.gateway) : '',
      interface: checkRef('interface', b.interface ?? '', (n) => linkExists(doc, n), 'interface'),
      metric: checkRange('metric', b.metric ?? 0, 0, 65535),
    };
    checkRoute(r);
    const id = nextId(doc, 'route');
    doc.routes = [...doc.routes, { id, ...r }]; // ids only grow: the list stays sorted by id
    return { id };
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    const i = ruleIndex(doc.routes, key, 'route');
    checkSameKey('id', b.id, key);
    const old = doc.routes[i];
    const r: RouteFields = {
      description: b.description === undefined ? old.description : checkDescription(b.description),
      destination: b.destination === undefined ? old.destination : checkDestination(b.destination),
      gateway: b.gateway === undefined ? old.gateway : b.gateway === '' ? '' : checkIp('gateway', b.gateway),
      interface: b.interface === undefined ? old.interface : checkRef('interface', b.interface, (n) => linkExists(doc, n), 'interface'),
      metric: b.metric === undefined ? old.metric : checkRange('metric', b.metric, 0, 65535),
    };
    checkRoute(r);
    doc.routes = replacedAt(doc.routes, i, { id: old.id, ...r });
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    doc.routes = withoutRule(doc.routes, key, 'route');
    return {};
  },
};
