// POST /api/eval, POST /api/eval/batch, GET /api/analysis: what the committed (or, with
// ?config=candidate, the candidate) configuration does to packets. The matchers are built in
// the worker pool; this thread only looks packets up.
import { FwError } from '../../errors';
import { parseBatch, parsePacket, evalBatch } from '../../eval/packet';
import type { CompiledConfig } from '../../eval/compiled';
import type { AppContext } from '../context';
import type { Req, RouteDef } from '../http';

/** The largest batch body: 10,000 IPv6 packets with every optional field fit in it. */
const BATCH_BODY_BYTES = 8 * 1024 * 1024;

/** The compiled configuration a request asks for, and the running version it answers for. */
async function target(ctx: AppContext, req: Req): Promise<{ compiled: CompiledConfig; version: number }> {
  const which = req.query.get('config');
  if (which === 'candidate') {
    // the candidate is answered for the running version it is based on
    const { compiled } = await ctx.config.compiledCandidate();
    return { compiled, version: ctx.config.current().meta.version };
  }
  if (which !== null && which !== 'running') {
    throw new FwError('ERR_NET_1005', `query "config": "${which}" is not one of running, candidate`);
  }
  const running = ctx.config.current();
  const { compiled } = await running.compiled;
  return { compiled, version: running.meta.version };
}

export function evalRoutes(ctx: AppContext): RouteDef[] {
  return [
    { method: 'POST', pattern: '/api/eval', handler: async (req) => {
      const packet = parsePacket(req.body);
      const { compiled, version } = await target(ctx, req);
      return { body: { version, ...compiled.eval(packet) } };
    } },
    { method: 'POST', pattern: '/api/eval/batch', maxBody: BATCH_BODY_BYTES, handler: async (req) => {
      const packets = parseBatch(req.body);
      const { compiled, version } = await target(ctx, req);
      return { body: { version, results: evalBatch(compiled, packets) } };
    } },
    { method: 'GET', pattern: '/api/analysis', body: 'none', handler: async (req) => {
      const { compiled, version } = await target(ctx, req);
      if (!compiled.analysis) throw new FwError('ERR_SYS_4001', 'the analysis was not computed');
      return { body: { version, ...compiled.analysis } };
    } },
  ];
}

