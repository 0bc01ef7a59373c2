// Where an object is used: GET /api/{addresses,services,zones,interfaces,vlans}/{name}/usage
// answers every policy, NAT rule, interface, VLAN, DHCP pool and route that references it
// (refs.ts's referrers: the same list a refused delete names), in the running configuration
// or, with ?config=candidate, the candidate. An operator sees it before trying a delete.
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { referrers, type RefKind } from '../../config/refs';
import type { ConfigDoc } from '../../config/types';
import type { AppContext } from '../context';
import { readSource } from '../crud';
import type { RouteDef } from '../http';
import { configQueryDoc } from '../schemas';

export const UsageReply = Type.Object({
  kind: Type.String(),
  name: Type.String(),
  used_by: Type.Array(Type.Object({
    kind: Type.String({ description: 'policy, nat, interface, vlan, dhcp, route' }),
    key: Type.String({ description: 'the id or name of the referrer' }),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

/** The name-keyed objects others reference: path, kind in answers, kind of reference, table. */
const USED: Array<{ path: string; kind: string; ref: RefKind; table: (d: ConfigDoc) => Map<string, unknown> }> = [
  { path: 'addresses', kind: 'address', ref: 'address', table: (d) => d.addresses },
  { path: 'services', kind: 'service', ref: 'service', table: (d) => d.services },
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
