// The piscina compile worker: a document in (doc-feed.ts: whole, or the changes from one it
// holds), the compiled tables out in one SharedArrayBuffer (no copy) plus the analysis. The
// worker boundary is a typed message protocol: a failure comes back as a reply with the
// error's code, never as a class instance.
import { isFwError } from '../errors';
import { analyze, type Analysis } from '../eval/analysis';
import type { AnalysisMemo } from '../eval/analysis-memo';
import { BuildMemo, type ReuseStats } from '../eval/build-memo';
import { compileImage, policySpecs } from '../eval/compile';
import { CompiledConfig } from '../eval/compiled';
import type { ImageMeta } from '../eval/image';
import { workingCopy } from '../config/document';
import type { ConfigDoc } from '../config/types';
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

/**
 * `doc` compiled and analyzed from this thread's last build and analysis; `keep`: recorded as
 * the last ones (a rehearsal's are not).
 */
function compileOn(doc: ConfigDoc, keep: boolean) {
  // the policy table's RuleSpecs are built once, for the tables and for the analysis; what
  // the last build on this thread made and did not change is reused (build-memo.ts)
  const build = new BuildMemo(lastBuild);
  const specs = policySpecs(doc, build);
  const image = compileImage(doc, { specs, build });
  if (keep) lastBuild = build.done();
  const t0 = performance.now();
  const memo: { previous: AnalysisMemo | null; next?: AnalysisMemo | null } = { previous: lastMemo };
  const analysis = analyze(doc, CompiledConfig.fromImage(image), { specs, memo });
  if (keep) lastMemo = memo.next ?? lastMemo; // one a deadline cut short records nothing
  return { image, build, analysis, analysisMs: performance.now() - t0 };
}

/**
 * After a full build of a big rule base, the thread rehearses the incremental path while idle:
 * a few one-policy changes of the document, compiled from the build just made and thrown away.
 * The code of that path (tree copies, spec reuse, the analysis memo) runs only in incremental
 * builds, and its first runs are V8's unoptimized code: at 100,000 policies the first three
 * one-policy commits after a load took 276-357 ms without a rehearsal, 174-291 with it (later
 * ones 110-190). One rehearsal a turn of the event loop, so a real task waits for one at most;
 * a task cancels the rest.
 */
export const rehearsals = {
  /** after a build of at least this many policies that reused less than half their specs */
  fromPolicies: 5000,
  /** one-policy changes rehearsed */
  count: 3,
  /** idle time before the first: the commit that made the build is still answering (on Redis
   * the other instances then read the version, and the rehearsal took their CPU) */
  afterMs: 3000,
  /** rehearsals run (tests) */
  run: 0,
};
let rehearsal: NodeJS.Timeout | null = null;

/** Whether rehearsals are waiting to run (tests). */
export function rehearsing(): boolean {
  return rehearsal !== null;
}

function rehearseSoon(doc: ConfigDoc, left: number, delayMs: number): void {
  rehearsal = setTimeout(() => {
    rehearsal = null;
    idle.busy();
    try {
      const copy = workingCopy(doc);
      const k = (left * 7919) % doc.policies.length;
      copy.policies = doc.policies.map((p, i) => (i === k ? { ...p, action: p.action === 'allow' ? 'deny' : 'allow' } : p));
      compileOn(copy, false);
      rehearsals.run++;
    } catch {
      // a rehearsal only warms the code: whatever it meets, the real task will report
    }
    idle.touch();
    if (left > 1) rehearseSoon(doc, left - 1, 20);
  }, delayMs);
  rehearsal.unref();
}

export default function compileTask(task: CompileTask): CompileReply {
  idle.busy();
  if (rehearsal) clearTimeout(rehearsal);
  rehearsal = null;
  try {
    const doc = held.take(task);
    if (!doc) return noBaseReply;
    const { image, build, analysis, analysisMs } = compileOn(doc, true);
    // a build that reused little (a load, a start) is followed by a rehearsal
    if (doc.policies.length >= rehearsals.fromPolicies && build.stats.specsReused < doc.policies.length / 2) rehearseSoon(doc, rehearsals.count, rehearsals.afterMs);
    // the image's SharedArrayBuffer is shared with the HTTP thread by the post, not copied
    return { ok: true, meta: image.meta, buffer: image.buffer, analysis, analysisMs, reuse: build.stats };
  } catch (e) {
    const reply: CompileReply = isFwError(e)
      ? { ok: false, code: e.code, details: e.details, message: e.message }
      : { ok: false, code: 'ERR_SYS_4001', details: `compile failed: ${e instanceof Error ? e.message : String(e)}`, message: 'internal error' };
    return reply;
  } finally {
    idle.touch();
  }
}
