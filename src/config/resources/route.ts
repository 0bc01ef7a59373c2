// Static routes: id-keyed, listed by id. Reachability of the gateway is a commit check
// (commit-checks.ts); here: formats, ranges, the interface reference and the gateway family.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, RouteObj } from '../types';
import type { ResourceOps, RuleTable } from '../resource';
import { FwError } from '../../errors';
import { linkExists } from '../refs';
import { parseCidr, parseIp } from '../net';
import { checkDescription, MAX_DESCRIPTION, nextId, replacedAt, ruleIndex, withoutRule } from '../moves';
import { checkCidr, checkIp, checkRange, checkRef, checkSameKey, shapeChecker, checked } from '../validate';

const fields = {
  description: Type.Optional(Type.String(checked({ maxLength: MAX_DESCRIPTION }))),
  gateway: Type.Optional(Type.String()),
  interface: Type.Optional(Type.String()),
  metric: Type.Optional(Type.Integer({ description: 'default 0', ...checked({ minimum: 0, maximum: 65535 }) })),
};
export const bodies = {
  create: Type.Object({ ...fields, destination: Type.String() }, { additionalProperties: false }),
  update: Type.Object({ ...fields, id: Type.Optional(Type.Integer()), destination: Type.Optional(Type.String()) }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);

/** "default" is the IPv4 default route, stored as 0.0.0.0/0. */
function checkDestination(value: string): string {
  return value === 'default' ? '0.0.0.0/0' : checkCidr('destination', value);
}

/** The checks every stored route satisfies, on the merged fields. */
function checkRoute(r: RouteObj): void {
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

/** The checked route of a create body, or of an update body over `old` (its id: old's, or 0). */
function buildRoute(doc: ConfigDoc, body: unknown, old?: RouteObj): RouteObj {
  const b = old ? updateShape(body) : createShape(body);
  const link = (n: string) => linkExists(doc, n);
  const r: RouteObj = {
    id: old?.id ?? 0,
    description: b.description === undefined ? old?.description ?? '' : checkDescription(b.description),
    destination: b.destination === undefined ? old!.destination : checkDestination(b.destination),
    gateway: b.gateway === undefined ? old?.gateway ?? '' : b.gateway === '' ? '' : checkIp('gateway', b.gateway),
    interface: b.interface === undefined ? old?.interface ?? '' : checkRef('interface', b.interface, link, 'interface'),
    metric: b.metric === undefined ? old?.metric ?? 0 : checkRange('metric', b.metric, 0, 65535),
  };
  checkRoute(r);
  return r;
}

export const routeOps: ResourceOps = {
  bodies,
  rules: { table: 'routes', counter: 'route', build: buildRoute as RuleTable['build'] },
  create(doc: ConfigDoc, body: unknown) {
    const r = buildRoute(doc, body);
    const id = nextId(doc, 'route');
    doc.routes = [...doc.routes, { ...r, id }]; // ids only grow: the list stays sorted by id
    return { id };
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    const i = ruleIndex(doc.routes, key, 'route');
    checkSameKey('id', b.id, key);
    doc.routes = replacedAt(doc.routes, i, buildRoute(doc, body, doc.routes[i]));
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    doc.routes = withoutRule(doc.routes, key, 'route');
    return {};
  },
};
