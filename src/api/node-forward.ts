// ?node=ID on a request about another instance's kernel (its live connections: GET and
// DELETE /api/sessions, GET /api/config/impact): only that instance can read its conntrack
// table, so the request is sent on to its advertised address (GET /api/cluster/nodes) with
// the caller's own credential, and its answer is passed back as it is (the same roles and
// audit apply there). Traffic logs need none of this: they are shared through Redis.
import { Type } from '@sinclair/typebox';
import { FwError } from '../errors';
import type { AppContext } from './context';
import type { QueryDoc, Reply, Req } from './http';

export const NODE_QUERY: QueryDoc = { schema: Type.String(), description: 'the instance (GET /api/cluster/nodes id) whose log or live connections to read; default: the one answering' };

/** ?node=: a node of the cluster (404 when none has that id), else this one. */
export async function nodeOf(ctx: AppContext, req: Req): Promise<string> {
  const node = req.query.get('node');
  if (node === null || node === '' || node === ctx.nodes.id) return ctx.nodes.id;
  const known = (await ctx.nodes.nodes()).some((n) => n.id === node);
  if (!known) throw new FwError('ERR_NET_1003', `node "${node.slice(0, 64)}" is not a node of this cluster (GET /api/cluster/nodes)`);
  return node;
}

/** How long the other instance has to answer. */
const FORWARD_TIMEOUT_MS = 10_000;

export async function forwardToNode(ctx: AppContext, req: Req, node: string): Promise<Reply> {
  const info = (await ctx.nodes.nodes()).find((n) => n.id === node);
  if (!info?.live) throw new FwError('ERR_SYS_4008', `node "${node}" is not live (GET /api/cluster/nodes)`);
  const q = new URLSearchParams(req.query);
  q.delete('node');
  const scheme = ctx.settings.tlsCert ? 'https' : 'http';
  const query = q.toString();
  let res: Response;
  try {
    res = await fetch(`${scheme}://${info.address}${req.path}${query ? `?${query}` : ''}`, {
      method: req.method, headers: { Authorization: req.headers.authorization, Accept: 'application/json' },
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
  } catch (e) {
    throw new FwError('ERR_SYS_4008', `node "${node}" at ${info.address}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { status: res.status, body: undefined, json: await res.text() };
}
