// POST /api/eval, POST /api/eval/batch, GET /api/analysis: what the committed (or, with
// ?config=candidate, the candidate) configuration does to packets. The matchers are built in
// the worker pool; this thread only looks packets up.
import { FwError } from '../../errors';
import { parsePacket, parsePacketBatch } from '../../eval/packet';
import { scanPacketBatch } from '../../eval/batch-scan';
import { releaseBatch } from '../../eval/batch';
import type { CompiledConfig } from '../../eval/compiled';
import type { AppContext } from '../context';
import { configQuery } from '../crud';
import { parseJsonBody, type Req, type RouteDef } from '../http';

/** The largest batch body: 10,000 IPv6 packets with every optional field fit in it. */
const BATCH_BODY_BYTES = 8 * 1024 * 1024;

/** The compiled configuration a request asks for, and the running version it answers for. */
async function target(ctx: AppContext, req: Req): Promise<{ compiled: CompiledConfig; version: number }> {
  if (configQuery(req) === 'candidate') {
    // the candidate is answered for the running version it is based on
    const { compiled } = await ctx.config.compiledCandidate();
    return { compiled, version: ctx.config.current().meta.version };
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
    { method: 'POST', pattern: '/api/eval/batch', maxBody: BATCH_BODY_BYTES, body: 'raw', handler: async (req) => {
      // typed arrays end to end: the body scanned into a PacketBatch (JSON.parse and
      // parsePacketBatch when the scanner leaves it: anything unusual, and every refused
      // packet, whose error they word), all packets before the target so that a bad packet is
      // a 400 whatever the target; answers as indexes; the reply written as bytes from the
      // configuration's precomputed JSON fragments
      const raw = req.raw ?? null;
      const batch = (raw !== null && scanPacketBatch(raw)) || parsePacketBatch(raw === null ? undefined : parseJsonBody(raw));
      try {
        const { compiled, version } = await target(ctx, req);
        return { body: undefined, json: compiled.evalBatchJson(version, batch) };
      } finally {
        releaseBatch(batch);
      }
    } },
    { method: 'GET', pattern: '/api/analysis', body: 'none', handler: async (req) => {
      const { compiled, version } = await target(ctx, req);
      if (!compiled.analysis) throw new FwError('ERR_SYS_4001', 'the analysis was not computed');
      // the running version's deep result once it is there; the commit's quick one until then
      const deep = configQuery(req) === 'candidate' ? null : ctx.analysis?.result(version) ?? null;
      return { body: { version, pass: deep ? 'deep' : 'quick', ...(deep ?? compiled.analysis) } };
    } },
  ];
}

