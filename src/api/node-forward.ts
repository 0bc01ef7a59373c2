// ?node=ID on a request about another instance's kernel (its live connections: GET and
// DELETE /api/sessions, GET /api/config/impact): only that instance can read its conntrack
// table, so the request is sent on to its advertised address (GET /api/cluster/nodes) and its
// answer is passed back as it is. The caller's own credential never leaves this instance
// (issue 38): the request carries a node credential instead (src/cluster/node-auth.ts: the
// caller's account and role, MAC'd with a key derived from FW_JWT_SECRET, for this request
// only, for a short time), and goes only to a node whose registration carries the cluster's
// MAC, so a node registered in Redis by anything else gets nothing. The same roles and audit
// apply there, as the caller. Traffic logs need none of this: they are shared through Redis.
import { Type } from '@sinclair/typebox';
import { FwError } from '../errors';
import { withoutNode } from '../cluster/node-auth';
import type { AppContext } from './context';
import type { QueryDoc, Reply, Req } from './http';

export const NODE_QUERY: QueryDoc = { schema: Type.String(), description: 'the instance (GET /api/cluster/nodes id) whose log or live connections to read; default: the one answering' };

/** ?node=: a node of the cluster (404 when none has that id), else this one. */
export async function nodeOf(ctx: AppContext, req: Req): Promise<string> {
  const node = req.query.get('node');
  if (node === null || node === '' || node === ctx.nodes.id) return ctx.nodes.id;
  const target = await ctx.nodes.target(node);
  if (target === 'unsealed') throw unsealedNode(node);
  if (!target) throw new FwError('ERR_NET_1003', `node "${node.slice(0, 64)}" is not a node of this cluster (GET /api/cluster/nodes)`);
  return node;
}

function unsealedNode(node: string): FwError {
  return new FwError('ERR_SYS_4008', `node "${node.slice(0, 64)}" is registered in Redis without the cluster's MAC (FW_JWT_SECRET): it is not an instance of this cluster, or runs with another secret; nothing was sent to it (docs/cluster.md, "What a Redis writer can still do")`);
}

/** How long the other instance has to answer. */
const FORWARD_TIMEOUT_MS = 10_000;

export async function forwardToNode(ctx: AppContext, req: Req, node: string): Promise<Reply> {
  const target = await ctx.nodes.target(node);
  if (target === 'unsealed') throw unsealedNode(node);
  if (!target?.live) throw new FwError('ERR_SYS_4008', `node "${node}" is not live (GET /api/cluster/nodes)`);
  const signer = ctx.nodeAuth;
  if (!signer) throw new FwError('ERR_SYS_4008', `node "${node}": this instance cannot sign requests to other nodes`);
  const query = withoutNode(req.query);
  const scheme = ctx.settings.tlsCert ? 'https' : 'http';
  let res: Response;
  try {
    res = await fetch(`${scheme}://${target.address}${req.path}${query ? `?${query}` : ''}`, {
      method: req.method,
      headers: { Authorization: signer.sign(req, query, req.user, node), Accept: 'application/json', 'X-Request-Id': req.id },
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
  } catch (e) {
    throw new FwError('ERR_SYS_4008', `node "${node}" at ${target.address}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { status: res.status, body: undefined, json: await res.text() };
}
