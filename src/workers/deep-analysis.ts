// The deep analysis after each commit: for every running version this process serves
// (ConfigService.onRunningChange: start-up, own commits, and in cluster mode versions loaded
// from another instance) a piscina worker analyzes the document with no work budget, capped
// by FW_ANALYSIS_TIMEOUT of wall clock. A newer version cancels the older pass (the task is
// aborted, its thread ended). GET /api/analysis shows the deep result of the running version
// once it is there, the commit's quick result (complete: false) until then. In a cluster (a
// DeepPassShare) one instance runs a version's pass and the others take its published result
// (src/cluster/shared-analysis.ts); `passes` counts both.
import path from 'node:path';
import type { Logger } from 'pino';
import { Piscina } from 'piscina';
import type { ConfigDoc } from '../config/types';
import type { Analysis } from '../eval/analysis-types';
import type { CompiledConfig } from '../eval/compiled';
import type { DeepPassShare } from '../cluster/shared-analysis';
import type { CommitId } from '../store/version-deltas';
import type { RunningState } from '../session/running';
import type { AnalysisReply, AnalysisTask } from './analysis-worker';
import { WORKER_ATOMICS, WORKER_RESOURCE_LIMITS } from './compile-pool';
import { DocFeed } from './doc-feed';

export interface DeepAnalysisOptions {
  /** wall-clock cap of one pass in ms; 0: no deep pass */
  timeoutMs: number;
  logger: Logger;
  /** a cluster's: one instance runs each version's pass, the others take its result */
  share?: DeepPassShare;
  /** when a version's pass waits before it starts (DEFER: the defaults) */
  defer?: { from: number; ms: number };
}

/**
 * A version with at least `from` policies that the version before did not have (a load, a
 * start-up) waits `ms` before its pass. That pass is whole: seconds of a core at 100,000
 * policies. Started at once, it took that core while the commit was still storing the version
 * and the other instances were reading it back: with three instances on two cores, a full
 * commit of 100,000 policies answered in 2.7-3.1 s with it and 2.3-2.5 s without it
 * (performance.md). A version of a few changes starts its pass at once: that pass is short,
 * and a wait would be most of the time to its result.
 */
const DEFER = { from: 5000, ms: 1500 };

/**
 * In a cluster, the instance whose thread analyzed the version before holds its memo, and its
 * pass of the next version is incremental; on any other instance it is whole. So the others
 * wait this long before they claim a version (a notice of its result ends the wait). Without
 * it, whichever instance claimed first ran the pass: after a load, the first one-change
 * commits' passes took ~5 s each at 100,000 policies on instances without the memo, against
 * ~0.6 s on the one with it. An instance that died with the memo costs the others this wait.
 */
const HEAD_START_MS = 1500;

/** What the API reads: the finished deep analysis of a version, if any. */
export interface DeepAnalysisResults {
  result(version: number): Analysis | null;
}

/** One version's pass: `abort` ends its thread (past the deadline, at close), `cancel` asks
 * the analysis to stop (a newer version). */
interface Pass {
  /** the commit the pass is of (a number is not enough across a failover) */
  commit: CommitId;
  abort: AbortController;
  cancel: Int32Array;
  result: Analysis | null;
  done: Promise<void>;
  /** wakes a pass waiting for another instance's result (a notice came) */
  wake: (() => void) | null;
  /** a notice came while the pass was not waiting (it looks again at once) */
  noticed: boolean;
}

/** Past the deadline the worker returns what it decided; past this much more it is ended. */
const GRACE_MS = 5000;

export class DeepAnalysis implements DeepAnalysisResults {
  private readonly pool: Piscina<AnalysisTask, AnalysisReply> | null;
  private pass: Pass | null = null;
  /** documents go to the thread as the changes from the last pass's (`sent`) */
  private readonly feed = new DocFeed();
  private sent: ConfigDoc | undefined;
  /** the document of the last version watched (what the next one is compared with) */
  private watched: ConfigDoc | undefined;
  private closed = false;
  /** passes run in this process, and results taken from another instance's pass; passes that waited first (DEFER, HEAD_START_MS) */
  readonly passes = { run: 0, shared: 0, waited: 0 };

  constructor(private readonly opts: DeepAnalysisOptions) {
    // one thread: passes do not overlap (a newer one cancels the older), and commits keep
    // the compile pool's threads to themselves
    this.pool = opts.timeoutMs > 0
      ? new Piscina<AnalysisTask, AnalysisReply>({
        filename: path.join(__dirname, 'analysis-worker.js'), minThreads: 0, maxThreads: 1, maxQueue: 4, idleTimeout: 30_000, resourceLimits: WORKER_RESOURCE_LIMITS, atomics: WORKER_ATOMICS,
      })
      : null;
    opts.share?.onPublished((version) => {
      if (this.pass?.commit.version !== version) return;
      this.pass.noticed = true;
      this.pass.wake?.();
    });
  }

  result(version: number): Analysis | null {
    return this.pass?.commit.version === version ? this.pass.result : null;
  }

  /**
   * Starts the pass of a new running version, cancelling the pass under way: through a shared
   * flag the analysis looks at, so that it ends within milliseconds and its thread lives on
   * with the memo of its last whole pass (the next pass decides again only what changed;
   * ending the thread lost it, and at 100,000 policies the next pass took ~10 s again).
   */
  watch(state: RunningState<CompiledConfig>): void {
    if (!this.pool || this.closed) return;
    if (this.pass) {
      Atomics.store(this.pass.cancel, 0, 1);
      this.pass.wake?.(); // one waiting for another instance's result ends now
    }
    const abort = new AbortController();
    const { version, time, author } = state.meta;
    const pass: Pass = { commit: { version, time, author }, abort, cancel: new Int32Array(new SharedArrayBuffer(4)), result: null, done: Promise.resolve(), wake: null, noticed: false };
    const { from, ms } = this.opts.defer ?? DEFER;
    const before = this.watched;
    this.watched = state.doc;
    const fresh = mostlyNew(state.doc, before, from);
    // (a version mostly new is a whole pass anywhere: no head start to give)
    const heldHere = before !== undefined && this.sent === before;
    const waitMs = fresh ? ms : this.opts.share && !heldHere ? HEAD_START_MS : 0;
    pass.done = this.run(state, pass, abort, waitMs);
    this.pass = pass;
  }

  /** Settles when the current pass has finished or stopped (tests, shutdown). */
  async idle(): Promise<void> {
    await this.pass?.done;
  }

  private async run(state: RunningState<CompiledConfig>, pass: Pass, abort: AbortController, waitMs: number): Promise<void> {
    const signal = abort.signal;
    const log = this.opts.logger;
    const version = state.meta.version;
    // after the commit's own compile: the quick result is what answers meanwhile
    let image: CompiledConfig['image'];
    try {
      image = (await state.compiled).compiled.image;
    } catch {
      return; // the compile failed and was reported where it is awaited
    }
    if (waitMs > 0) {
      this.passes.waited++;
      await nap(pass, waitMs);
    }
    if (signal.aborted || Atomics.load(pass.cancel, 0) !== 0) {
      log.info({ version }, 'deep analysis cancelled by a newer version');
      return;
    }
    const share = this.opts.share;
    if (share && !(await this.turn(share, pass))) return;
    // the lease is renewed while the pass runs: an instance that dies stops renewing it
    const renew = share ? setInterval(() => void share.claim(version).catch(() => undefined), share.retryMs) : null;
    renew?.unref();
    let published = false;
    const deadline = Date.now() + this.opts.timeoutMs;
    let timedOut = false;
    const kill = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.opts.timeoutMs + GRACE_MS);
    kill.unref();
    try {
      // the version's tables go along (shared memory): compiling them again for the probes was
      // ~0.6 s of CPU after every commit at 100,000 policies
      const base = this.sent;
      this.sent = state.doc;
      const reply = await this.feed.send(state.doc, base, (task) => this.pool!.run({ ...task, deadline, image, cancel: pass.cancel }, { signal }));
      if (Atomics.load(pass.cancel, 0) !== 0) {
        log.info({ version }, 'deep analysis cancelled by a newer version');
        return;
      }
      if (!reply.ok) {
        log.warn({ version, code: reply.code, details: reply.details }, 'deep analysis failed');
        return;
      }
      pass.result = reply.analysis;
      this.passes.run++;
      if (share) {
        published = true;
        share.publish(pass.commit, reply.analysis).catch((err: unknown) => log.warn({ version, err: String(err) }, 'could not publish the deep analysis'));
      }
      const a = reply.analysis;
      log.info({ version, ms: reply.ms, complete: a.complete, shadowed: a.shadowed.length, redundant: a.redundant.length, undecided: a.undecided.length, partiallyShadowed: a.partiallyShadowed.length, unreachableNat: a.unreachableNat.length }, 'deep analysis done');
    } catch (e) {
      if (signal.aborted) {
        if (timedOut) log.warn({ version, timeoutMs: this.opts.timeoutMs }, 'deep analysis ended past its deadline');
        else log.info({ version }, 'deep analysis cancelled by a newer version');
        return;
      }
      log.warn({ version, err: e }, 'deep analysis failed');
    } finally {
      clearTimeout(kill);
      if (renew) clearInterval(renew);
      // cancelled or failed: another instance may take the version over at once
      if (share && !published) share.release(version).catch(() => undefined);
    }
  }

  /**
   * A pass's turn in a cluster: true when this instance holds the version's lease and runs the
   * pass, false when another instance's result was taken (or the pass was cancelled). While
   * another instance holds the lease this waits for its notice, and tries again every
   * `retryMs` (the holder may have died: its lease lapses). A store that cannot be reached
   * does not hold the analysis back: the pass runs here.
   */
  private async turn(share: DeepPassShare, pass: Pass): Promise<boolean> {
    const version = pass.commit.version;
    const log = this.opts.logger;
    for (;;) {
      if (this.closed || pass.abort.signal.aborted || Atomics.load(pass.cancel, 0) !== 0) return false;
      try {
        pass.noticed = false;
        let got = await share.published(pass.commit);
        if (!got && await share.claim(version)) {
          // the holder may have published and let go just before the claim: look once more
          got = await share.published(pass.commit);
          if (!got) return true;
          await share.release(version);
        }
        if (got) {
          if (this.pass === pass) {
            pass.result = got;
            this.passes.shared++;
            log.info({ version }, 'deep analysis taken from another instance');
          }
          return false;
        }
      } catch (err) {
        log.warn({ version, err: String(err) }, 'shared deep analysis unavailable; analyzing here');
        return true;
      }
      if (pass.noticed) continue; // published while this looked: read it now
      await nap(pass, share.retryMs);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pass?.wake?.();
    this.pass?.abort.abort();
    await this.pass?.done;
    await this.pool?.destroy();
  }
}

/**
 * Waits `ms`, or less: a newer version (watch), another instance's notice and close() wake the
 * pass through `pass.wake`. The timer alone keeps no process alive.
 */
async function nap(pass: Pass, ms: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref();
    pass.wake = () => {
      clearTimeout(t);
      resolve();
    };
  });
  pass.wake = null;
}

/**
 * Does `doc` hold at least `from` policies that `before` does not (by object: versions share
 * their unchanged policies)? Position by position first, which is all a version of a few
 * changes costs; a policy inserted near the top moves the rest, so a count past `from` is
 * checked again by set.
 */
function mostlyNew(doc: ConfigDoc, before: ConfigDoc | undefined, from: number): boolean {
  const now = doc.policies;
  if (now.length < from) return false;
  const old = before?.policies ?? [];
  let moved = 0;
  for (let i = 0; i < now.length && moved < from; i++) if (now[i] !== old[i]) moved++;
  if (moved < from) return false;
  const had = new Set(old);
  let added = 0;
  for (const p of now) if (!had.has(p) && ++added >= from) return true;
  return false;
}
