// The piscina compile worker: a serialized document in, the compiled tables out as one
// transferred ArrayBuffer (no copy) plus the analysis. The worker boundary is a typed message
// protocol: a failure comes back as a reply with the error's code, never as a class instance.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { parseDoc, type SerializedDoc } from '../config/document';
import { applyDelta, type DocDelta } from '../config/doc-delta';
import type { ConfigDoc } from '../config/types';
import { isFwError } from '../errors';
import { analyze, type Analysis } from '../eval/analysis';
import type { AnalysisMemo } from '../eval/analysis-memo';
import { BuildMemo, type ReuseStats } from '../eval/build-memo';
import { compileImage, policySpecs } from '../eval/compile';
import { CompiledConfig } from '../eval/compiled';
import type { ImageMeta } from '../eval/image';
import { IdleCollector } from '../idle-gc';

/** The whole document, or the changes from one this thread was sent before (`base`: its key). */
export type CompileTask = { key?: number } & ({ doc: SerializedDoc } | { base: number; delta: DocDelta });

/** The reply's code when the thread does not hold the base document (the pool sends it whole). */
export const NO_BASE = 'NO_BASE';

/** The documents this thread was sent last, by key: the running version's and a candidate's. */
const held = new Map<number, ConfigDoc>();
const HELD = 2;

export type CompileReply =
  | { ok: true; meta: ImageMeta; buffer: ArrayBuffer; analysis: Analysis; analysisMs: number; reuse: ReuseStats }
  | { ok: false; code: string; details: string; message: string };

/**
 * What this thread's last analysis recorded: the next compile's analysis decides again only the
 * policies its changes reach (whatever version the memo is of: the policies are compared, so
 * a validate, a failed commit or another thread's commit in between cost only a larger diff).
 */
let lastMemo: AnalysisMemo | null = null;

/** This thread's last build: the next compile copies what its changes do not reach (any
 * document: specs and trees are compared, as the analysis memo's policies are). */
let lastBuild: BuildMemo | null = null;

/** the garbage of a compile goes once the thread is idle (idle-gc.ts) */
const idle = new IdleCollector(1000, 2);

export default function compileTask(task: CompileTask): unknown {
  idle.busy();
  try {
    let doc: ConfigDoc;
    if ('doc' in task) doc = parseDoc(task.doc);
    else {
      const base = held.get(task.base);
      if (!base) return { ok: false, code: NO_BASE, details: 'the base document is not held here', message: 'internal error' } satisfies CompileReply;
      doc = applyDelta(base, task.delta);
      held.delete(task.base); // kept over older ones: the next commit is likely on it again
      held.set(task.base, base);
    }
    if (task.key !== undefined) {
      held.delete(task.key);
      held.set(task.key, doc);
      for (const k of held.keys()) if (held.size > HELD) held.delete(k);
    }
    // the policy table's RuleSpecs are built once, for the tables and for the analysis; what
    // the last build on this thread made and did not change is reused (build-memo.ts)
    const build = new BuildMemo(lastBuild);
    const specs = policySpecs(doc, build);
    const image = compileImage(doc, { specs, build });
    lastBuild = build.done();
    const t0 = performance.now();
    const memo: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: lastMemo };
    const analysis = analyze(doc, CompiledConfig.fromImage(image), { specs, memo });
    lastMemo = memo.next ?? lastMemo; // one with undecided policies records nothing
    const reply: CompileReply = { ok: true, meta: image.meta, buffer: image.buffer, analysis, analysisMs: performance.now() - t0, reuse: build.stats };
    // a Transferable marked by move(): piscina posts `reply` with the buffer in the transfer list
    return move({ [transferableSymbol]: [image.buffer], [valueSymbol]: reply } as unknown as Parameters<typeof move>[0]);
  } catch (e) {
    const reply: CompileReply = isFwError(e)
      ? { ok: false, code: e.code, details: e.details, message: e.message }
      : { ok: false, code: 'ERR_SYS_4001', details: `compile failed: ${e instanceof Error ? e.message : String(e)}`, message: 'internal error' };
    return reply;
  } finally {
    idle.touch();
  }
}
