// The piscina deep-analysis worker: a document (doc-feed.ts: whole, or the changes from the
// last one), its compiled tables (the version's image, shared memory, for the probe packets)
// and a deadline in, the deep analysis out (every policy decided unless the deadline came
// first; `complete` says which).
import { isFwError } from '../errors';
import { analyze } from '../eval/analysis';
import type { Analysis } from '../eval/analysis-types';
import type { AnalysisMemo } from '../eval/analysis-memo';
import { compileImage } from '../eval/compile';
import type { CompiledImage } from '../eval/image';
import { CompiledConfig } from '../eval/compiled';
import { IdleCollector } from '../idle-gc';
import { HeldDocs, noBaseReply, type DocTask } from './doc-feed';

export type AnalysisTask = DocTask & {
  deadline: number; // epoch ms
  /** the document's compiled tables; absent: compiled here */
  image?: CompiledImage;
  /** on a SharedArrayBuffer: set when a newer version cancels the pass, which then ends as at
   * its deadline and leaves the thread (and its memo) alive */
  cancel?: Int32Array;
};

export type AnalysisReply =
  | { ok: true; analysis: Analysis; ms: number }
  | { ok: false; code: string; details: string };

/** The last deep pass's record: the next pass decides again only what its changes reach (a
 * pass ended by its deadline leaves none). */
let lastMemo: AnalysisMemo | null = null;

/** the last pass's document: the next one comes as its changes */
const held = new HeldDocs(1);

/** the garbage of a pass goes once the thread is idle (idle-gc.ts) */
const idle = new IdleCollector(1000, 2);

export default function analysisTask(task: AnalysisTask): AnalysisReply {
  const t0 = Date.now();
  idle.busy();
  try {
    const doc = held.take(task);
    if (!doc) return noBaseReply;
    const memo: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: lastMemo };
    const analysis = analyze(doc, CompiledConfig.fromImage(task.image ?? compileImage(doc)), { deep: true, deadline: task.deadline, cancel: task.cancel, memo });
    // a pass cut short records nothing: the memo before it still serves (any version does)
    lastMemo = memo.next ?? lastMemo;
    return { ok: true, analysis, ms: Date.now() - t0 };
  } catch (e) {
    return isFwError(e)
      ? { ok: false, code: e.code, details: e.details }
      : { ok: false, code: 'ERR_SYS_4001', details: `analysis failed: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    idle.touch();
  }
}
