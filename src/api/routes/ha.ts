// /api/ha (issue 39): the HA pair's document (GET, PUT into the candidate, committed like
// everything else), this node's VRRP and sync state (GET /api/ha/status, any instance for
// any node with ?node=), and a controlled step-down (POST /api/ha/failover).
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context';
import { message, type Req, type RouteDef } from '../http';
import { configQueryDoc, MessageReply } from '../schemas';
import { readSource } from '../crud';
import { FwError } from '../../errors';
import { HaModel, haNode, haPeer, renderHa } from '../../config/ha';
import { HaStatusModel, type HaStatus } from '../../dataplane/ha-types';
import { forwardToNode, NODE_QUERY, nodeOf } from '../node-forward';
import { isPlainObject } from '../../config/json';

const FailoverBody = Type.Object({
  action: Type.Optional(Type.Union([Type.Literal('step-down'), Type.Literal('resume')], {
    description: 'step-down (default): this node leaves the master role and stays out of it (maintenance) until resume',
  })),
}, { additionalProperties: false });

/** The status of a node without an HA runtime (FW_DATAPLANE=none): what the configuration says. */
function configuredStatus(ctx: AppContext): HaStatus {
  const { doc } = ctx.config.current();
  const me = haNode(doc.ha, ctx.nodes.id);
  const peer = doc.ha && me ? haPeer(doc.ha, me.node) : undefined;
  return {
    node: ctx.nodes.id, enabled: Boolean(doc.ha?.enabled && me), state: 'disabled', since: null, maintenance: false,
    dataplane_ok: ctx.dataPlane.status().error === null,
    virtual_addresses: (doc.ha?.enabled ? doc.ha.virtualAddresses : []).flatMap((v) => v.addresses.map((a) => ({ interface: v.interface, vrid: v.vrid, address: a, held: false }))),
    peer: peer ? { node: peer.node, priority: peer.priority, last_advert: null } : null,
    sync: { interface: doc.ha?.syncInterface ?? '', running: false, connected: false, sent: 0, received: 0, errors: 0, external_cache: 0, internal_cache: 0 },
    processes: { keepalived: null, conntrackd: null },
  };
}

/** The action of a failover: its body's, or its query's (`?action=`: how a forwarded one carries it, a node credential covering no body). */
function failoverAction(body: unknown, query: URLSearchParams): 'step-down' | 'resume' {
  const inQuery = query.get('action');
  if (inQuery !== null && body !== undefined && body !== null) throw new FwError('ERR_NET_1004', 'give the action in the body or in ?action=, not both');
  if (inQuery !== null) body = { action: inQuery };
  if (body === undefined || body === null) return 'step-down';
  if (!isPlainObject(body)) throw new FwError('ERR_NET_1004', 'the request body must be a JSON object');
  for (const k of Object.keys(body)) if (k !== 'action') throw new FwError('ERR_NET_1004', `unknown field "${k}"`);
  if (body.action === undefined) return 'step-down';
  if (body.action !== 'step-down' && body.action !== 'resume') throw new FwError('ERR_NET_1005', `field "action": "${String(body.action)}" is not one of step-down, resume`);
  return body.action;
}

export function haRoutes(ctx: AppContext): RouteDef[] {
  const status = async (): Promise<HaStatus> => (ctx.dataPlane.ha ? ctx.dataPlane.ha.status() : configuredStatus(ctx));
  const local = async (req: Req) => {
    const node = await nodeOf(ctx, req);
    return node === ctx.nodes.id ? null : forwardToNode(ctx, req, node);
  };
  return [
    {
      method: 'GET', pattern: '/api/ha', body: 'none', permission: 'read',
      doc: { tag: 'ha', summary: 'The HA pair\'s configuration (running, or the candidate with ?config=candidate)', response: HaModel, query: configQueryDoc, errors: [409] },
      handler: async (req) => ({ body: renderHa((await readSource(ctx, req)).doc.ha) }),
    },
    {
      method: 'PUT', pattern: '/api/ha', permission: 'configure',
      doc: { tag: 'ha', summary: 'Replace the HA pair\'s configuration in the candidate', body: HaModel, response: MessageReply, errors: [409] },
      change: { build: (_p, body) => ({ op: 'update', kind: 'ha', key: 'ha', body }), message: 'ha updated in candidate' },
      handler: async (req) => {
        await ctx.config.change(req.user.username, { op: 'update', kind: 'ha', key: 'ha', body: req.body });
        await ctx.audit.record(req, 'change.update', 'ha', req.body);
        return message('ha updated in candidate');
      },
    },
    {
      method: 'GET', pattern: '/api/ha/status', body: 'none', permission: 'read',
      doc: { tag: 'ha', summary: 'This node\'s HA state, virtual addresses, peer and sync link (?node= another instance\'s)', response: HaStatusModel, query: { node: NODE_QUERY }, errors: [404, 503] },
      handler: async (req) => (await local(req)) ?? { body: await status() },
    },
    {
      method: 'POST', pattern: '/api/ha/failover', permission: 'configure',
      doc: { tag: 'ha', summary: 'This node steps down from the master role for maintenance (or resumes); audited', body: FailoverBody, bodyOptional: true, response: MessageReply, query: { node: NODE_QUERY, action: { schema: Type.Union([Type.Literal('step-down'), Type.Literal('resume')]), description: 'step-down or resume, instead of the body (how a request sent on to another node carries it)' } }, errors: [404, 409, 503] },
      handler: async (req) => {
        const action = failoverAction(req.body, req.query);
        // sent on to another node with its action in the query (the node credential covers no body)
        const query = new URLSearchParams(req.query);
        query.set('action', action);
        const forwarded = await local({ ...req, query, body: undefined });
        if (forwarded) return forwarded;
        const ha = ctx.dataPlane.ha;
        if (!ha || !(await ha.status()).enabled) throw new FwError('ERR_SYS_3005', `node ${ctx.nodes.id} runs no HA pair (an enabled ha naming it, FW_DATAPLANE=linux)`);
        await ha.setMaintenance(action === 'step-down');
        await ctx.audit.record(req, 'ha.failover', `${action} on node ${ctx.nodes.id}`, { action });
        return message(action === 'step-down' ? 'node stepping down' : 'node resumed', { node: ctx.nodes.id });
      },
    },
  ];
}
