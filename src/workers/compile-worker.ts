// The piscina compile worker: a serialized document in, the compiled tables out as one
// transferred ArrayBuffer (no copy) plus the analysis. The worker boundary is a typed message
// protocol: a failure comes back as a reply with the error's code, never as a class instance.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { parseDoc, type SerializedDoc } from '../config/document';
import { isFwError } from '../errors';
import { analyze, type Analysis } from '../eval/analysis';
import type { AnalysisMemo } from '../eval/analysis-memo';
import { compileImage, policySpecs } from '../eval/compile';
import { CompiledConfig } from '../eval/compiled';
import type { ImageMeta } from '../eval/image';

export interface CompileTask {
  doc: SerializedDoc;
}

export type CompileReply =
  | { ok: true; meta: ImageMeta; buffer: ArrayBuffer; analysis: Analysis; analysisMs: number }
  | { ok: false; code: string; details: string; message: string };

/**
 * What this thread's last analysis recorded: the next compile's analysis decides again only the
 * policies its changes reach (whatever version the memo is of: the policies are compared, so
 * a validate, a failed commit or another thread's commit in between cost only a larger diff).
 */
let lastMemo: AnalysisMemo | null = null;

export default function compileTask(task: CompileTask): unknown {
  try {
    const doc = parseDoc(task.doc);
    // the policy table's RuleSpecs are built once, for the tables and for the analysis
    const specs = policySpecs(doc);
    const image = compileImage(doc, { specs });
    const t0 = performance.now();
    const memo: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: lastMemo };
    const analysis = analyze(doc, CompiledConfig.fromImage(image), { specs, memo });
    lastMemo = memo.next ?? null;
    const reply: CompileReply = { ok: true, meta: image.meta, buffer: image.buffer, analysis, analysisMs: performance.now() - t0 };
    // a Transferable marked by move(): piscina posts `reply` with the buffer in the transfer list
    return move({ [transferableSymbol]: [image.buffer], [valueSymbol]: reply } as unknown as Parameters<typeof move>[0]);
  } catch (e) {
    const reply: CompileReply = isFwError(e)
      ? { ok: false, code: e.code, details: e.details, message: e.message }
      : { ok: false, code: 'ERR_SYS_4001', details: `compile failed: ${e instanceof Error ? e.message : String(e)}`, message: 'internal error' };
    return reply;
  }
}
