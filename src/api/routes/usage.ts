// Where an object is used, and a search across every object type (GET /api/search). Where used: GET /api/{addresses,services,address-groups,service-groups,zones,interfaces,vlans}/{name}/usage
// answers every policy, NAT rule, group, interface, VLAN, DHCP pool and route that references it
// (refs.ts's referrers: the same list a refused delete names), in the running configuration
// or, with ?config=candidate, the candidate. An operator sees it before trying a delete.
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { referrers, type RefKind } from '../../config/refs';
import { parseIp } from '../../config/net';
import { searchByAddress, searchByName, searchByTag, searchByPort } from '../../config/search';
import type { ConfigDoc } from '../../config/types';
import type { AppContext } from '../context';
import { readSource } from '../crud';
import type { RouteDef } from '../http';
import { configQueryDoc } from '../schemas';

export const UsageReply = Type.Object({
  kind: Type.String(),
  name: Type.String(),
  used_by: Type.Array(Type.Object({
    kind: Type.String({ description: 'policy, nat, interface, vlan, dhcp, route, address-group, service-group' }),
    key: Type.String({ description: 'the id or name of the referrer' }),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

/** The name-keyed objects others reference: path, kind in answers, kind of reference, table. */
const USED: Array<{ path: string; kind: string; ref: RefKind; table: (d: ConfigDoc) => Map<string, unknown> }> = [
  { path: 'addresses', kind: 'address', ref: 'address', table: (d) => d.addresses },
  { path: 'services', kind: 'service', ref: 'service', table: (d) => d.services },
  { path: 'address-groups', kind: 'address-group', ref: 'address', table: (d) => d.addressGroups },
  { path: 'service-groups', kind: 'service-group', ref: 'service', table: (d) => d.serviceGroups },
  { path: 'zones', kind: 'zone', ref: 'zone', table: (d) => d.zones },
  { path: 'interfaces', kind: 'interface', ref: 'link', table: (d) => d.interfaces },
  { path: 'vlans', kind: 'vlan', ref: 'link', table: (d) => d.vlans },
];

export function usageRoutes(ctx: AppContext): RouteDef[] {
  return USED.map((u) => ({
    method: 'GET' as const, pattern: `/api/${u.path}/:name/usage`, body: 'none' as const, permission: 'read' as const,
    doc: { tag: u.path, summary: `What references a ${u.kind}`, response: UsageReply, query: configQueryDoc, errors: [404, 409] },
    handler: async (req) => {
      const name = req.params.name;
      const { doc } = await readSource(ctx, req);
      if (!u.table(doc).has(name)) throw new FwError('ERR_NET_1003', `${u.kind} "${name}" not found`);
      const used_by = referrers(doc, u.ref, name).map((r) => {
        const at = r.indexOf(' ');
        return { kind: r.slice(0, at), key: r.slice(at + 1) };
      });
      return { body: { kind: u.kind, name, used_by } };
    },
  }));
}

export const SearchReply = Type.Object({
  results: Type.Array(Type.Object({
    kind: Type.String(), key: Type.String(), match: Type.String({ description: 'the field and value that matched' }),
    name: Type.Optional(Type.String({ description: 'a policy\'s or NAT rule\'s name, beside its id (absent when it has none)' })),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

const searchQuery = {
  ...configQueryDoc,
  name: { schema: Type.String(), description: 'a part of a name (any case), or a rule id' },
  address: { schema: Type.String(), description: 'an IP address: the objects that hold it' },
  port: { schema: Type.Integer({ minimum: 0, maximum: 65535 }), description: 'a port: services and NAT rules that hold it' },
  tag: { schema: Type.String(), description: 'a tag (any case): the policies and NAT rules carrying it' },
};

/** GET /api/search: exactly one of name, address, port, tag (search.ts). */
export function searchRoutes(ctx: AppContext): RouteDef[] {
  return [{
    method: 'GET', pattern: '/api/search', body: 'none', permission: 'read',
    doc: { tag: 'config', summary: 'Objects of every type by name, address, port or tag', response: SearchReply, query: searchQuery, errors: [409] },
    handler: async (req) => {
      const given = (['name', 'address', 'port', 'tag'] as const).filter((k) => req.query.get(k) !== null);
      if (given.length !== 1) throw new FwError('ERR_NET_1005', 'exactly one of the queries "name", "address", "port", "tag" is required');
      const value = req.query.get(given[0])!;
      const { doc } = await readSource(ctx, req);
      if (given[0] === 'name') {
        if (value === '') throw new FwError('ERR_NET_1005', 'query "name": empty');
        return { body: { results: searchByName(doc, value) } };
      }
      if (given[0] === 'tag') {
        if (value === '') throw new FwError('ERR_NET_1005', 'query "tag": empty');
        return { body: { results: searchByTag(doc, value) } };
      }
      if (given[0] === 'address') {
        const ip = parseIp(value);
        if (!ip) throw new FwError('ERR_NET_1001', `query "address": "${value}" is not an IPv4 or IPv6 address`);
        return { body: { results: searchByAddress(doc, ip) } };
      }
      if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new FwError('ERR_NET_1005', `query "port": "${value}" is not a port 0-65535`);
      return { body: { results: searchByPort(doc, Number(value)) } };
    },
  }];
}
