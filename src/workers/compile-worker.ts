// The piscina compile worker: a document in (doc-feed.ts: whole, or the changes from one it
// holds), the compiled tables out in one SharedArrayBuffer (no copy) plus the analysis. The worker boundary is a typed message
// protocol: a failure comes back as a reply with the error's code, never as a class instance.
import { isFwError } from '../errors';
import { analyze, type Analysis } from '../eval/analysis';
import type { AnalysisMemo } from '../eval/analysis-memo';
import { BuildMemo, type ReuseStats } from '../eval/build-memo';
import { compileImage, policySpecs } from '../eval/compile';
import { CompiledConfig } from '../eval/compiled';
import type { ImageMeta } from '../eval/image';
import { IdleCollector } from '../idle-gc';
import { HeldDocs, noBaseReply, type DocTask } from './doc-feed';

export { NO_BASE } from './doc-feed';
export type CompileTask = DocTask;

/** the documents this thread was sent last: the running version's and a candidate's */
const held = new HeldDocs(2);

export type CompileReply =
  | { ok: true; meta: ImageMeta; buffer: SharedArrayBuffer; analysis: Analysis; analysisMs: number; reuse: ReuseStats }
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

export default function compileTask(task: CompileTask): CompileReply {
  idle.busy();
  try {
    const doc = held.take(task);
    if (!doc) return noBaseReply;
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
    // the image's SharedArrayBuffer is shared with the HTTP thread by the post, not copied
    return { ok: true, meta: image.meta, buffer: image.buffer, analysis, analysisMs: performance.now() - t0, reuse: build.stats };
  } catch (e) {
    const reply: CompileReply = isFwError(e)
      ? { ok: false, code: e.code, details: e.details, message: e.message }
      : { ok: false, code: 'ERR_SYS_4001', details: `compile failed: ${e instanceof Error ? e.message : String(e)}`, message: 'internal error' };
    return reply;
  } finally {
    idle.touch();
  }
}
