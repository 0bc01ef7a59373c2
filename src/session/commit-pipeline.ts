// The commit pipeline: a commit is one job (run in this process, or on a queue worker in a
// cluster) that claims the session at exactly the journal length its user saw, checks,
// compiles, has the data plane enforce the new version, and swaps atomically; then, in a
// cluster, the answer waits until every live instance serves the new version. Validation
// and the candidate's compiled matchers use the same checks and compile.
import type { Logger } from 'pino';
import { FwError, isFwError } from '../errors';
import { serializeDoc } from '../config/document';
import { docDelta, type DocDelta } from '../config/doc-delta';
import { versionChange } from '../store/version-deltas';
import { diffDocs, type ConfigDiff } from '../config/diff';
import { changeSummary } from '../config/diff-detail';
import type { ConfigDoc } from '../config/types';
import type { DataPlane } from '../dataplane/types';
import type { EventEmitterFn } from '../events/types';
import type { SessionRecord, Store, VersionMeta } from '../store/types';
import type { Candidate, CandidateReplica } from './candidate';
import { COMMIT_IN_PROGRESS, type CommitGuard, conflictAsSessionError, sessionBusy } from './conflicts';
import { downLinkWarnings } from '../dataplane/down-links';
import { expansionProblem } from '../config/expansion';
import { haWarnings } from '../config/ha';
import type { SessionLifecycle } from './lifecycle';
import { PhaseClock } from './phase-clock';
import { RunningState } from './running';
import type { RunningVersions } from './running-versions';
import { SYSTEM_USER, type CommitJob, type CommitResult, type CommitRunner, type Compiler, type SessionOptions, type VersionSync } from './types';

/** What the pipeline checks and compiles with, and where it enforces a version. */
export interface CommitTools<C> {
  compiler: Compiler<C>;
  commitChecks: (doc: ConfigDoc) => string[];
  /** enforces each committed version before it becomes running */
  dataPlane: DataPlane;
}

/** The session and candidate a commit claimed, and whether the cache served or was rebuilt (its log line says). */
interface ClaimedCandidate {
  s: SessionRecord;
  cand: Candidate;
  candidate: 'cached' | 'rebuilt';
}

export class CommitPipeline<C> {
  private runner: CommitRunner = { run: (job) => this.commitJob(job) };
  private versionSync: VersionSync = async () => [];
  /** the candidate compiled on demand (eval with ?config=candidate), by session and journal length */
  private candCompiled: { key: string; result: Promise<{ compiled: C; warnings: string[] }> } | null = null;

  constructor(
    private readonly store: Store,
    private readonly replica: CandidateReplica<C>,
    private readonly versions: RunningVersions<C>,
    private readonly lifecycle: SessionLifecycle<C>,
    private readonly guard: CommitGuard,
    private readonly tools: CommitTools<C>,
    private readonly opts: SessionOptions,
    private readonly log: Logger,
    private readonly emit: EventEmitterFn,
  ) {}

  /** Commits go through `runner` (a queue) and answer after `sync` (every instance serves them). */
  useCluster(runner: CommitRunner, sync: VersionSync): void {
    this.runner = runner;
    this.versionSync = sync;
  }

  /** The candidate compiled in the worker pool; rebuilt only when the journal has grown. */
  async compiledCandidate(): Promise<{ compiled: C; warnings: string[] }> {
    const cand = await this.lifecycle.candidate();
    const key = `${cand.sessionId}:${cand.seq}`;
    if (this.candCompiled?.key !== key) {
      const result = this.compileInTime(cand.doc);
      result.catch(() => { if (this.candCompiled?.key === key) this.candCompiled = null; });
      this.candCompiled = { key, result };
    }
    return this.candCompiled.result;
  }

  async diff(): Promise<ConfigDiff & { base_version: number }> {
    const { doc } = await this.lifecycle.candidate();
    await this.versions.refresh();
    const running = this.versions.current();
    return { base_version: running.meta.version, ...diffDocs(running.doc, doc) };
  }

  /** The commit checks and compile warnings, without committing. */
  async validate(): Promise<{ warnings: string[] }> {
    const { doc } = await this.lifecycle.candidate();
    await this.checkCommittable(doc);
    // the cached compile of this candidate: the route measures the warnings against running
    // with the same result (warning-summary.ts), and a diff with analysis after it is free
    const { warnings } = await this.compiledCandidate();
    return { warnings: [...downLinkWarnings(doc), ...haWarnings(doc), ...warnings] };
  }

  /**
   * Commits the session of `user`: one job (run here or on a queue worker), then, in a cluster,
   * waits until every live instance serves the new version; `unconfirmed` names those that
   * did not within the bound.
   */
  async commit(user: string, description: string, confirmTimeoutSec?: number): Promise<CommitResult & { unconfirmed: string[] }> {
    this.guard.check();
    this.guard.requests++; // from here to the answer, this process's changes and discards get 409
    try {
      const { s, length } = await this.lifecycle.sessionToCommit(user);
      const job: CommitJob = { sessionId: s.id, journalLength: length, user, description };
      if (confirmTimeoutSec !== undefined) job.confirmTimeoutSec = confirmTimeoutSec;
      const result = await this.runner.run(job);
      await this.versions.refresh();
      const unconfirmed = await this.versionSync(result.version);
      return { ...result, unconfirmed };
    } finally {
      this.guard.requests--;
    }
  }

  /**
   * The commit job itself: claims the session at exactly the journal length the user saw,
   * validates, compiles and swaps. Refuses (409) if the session moved on since.
   */
  async commitJob(job: CommitJob): Promise<CommitResult> {
    if (this.guard.jobRunning) throw sessionBusy(COMMIT_IN_PROGRESS);
    this.guard.jobRunning = true; // from here to the swap, this process's changes and discards get 409
    const clock = new PhaseClock();
    try {
      await this.versions.refresh();
      clock.mark('refresh');
      await this.replica.synced();
      clock.mark('sync');
      const { s, cand } = this.sessionToClaim(job);
      const digest = await this.store.claimCommit(s.id, cand.seq, this.opts.commitTimeoutMs * 2).catch(conflictAsSessionError);
      clock.mark('claim');
      try {
        const built = await this.candidateOfJournal(job, digest, clock);
        return await this.checkCompileSwap(job, built, clock);
      } catch (e) {
        await this.store.releaseCommit(s.id, cand.seq).catch(() => undefined);
        throw e;
      }
    } finally {
      this.guard.jobRunning = false;
    }
  }

  /** The cached session and candidate, if they are the job's (its session, owner and length). */
  private sessionToClaim(job: CommitJob): { s: SessionRecord; cand: Candidate } {
    const { session: s, cand } = this.replica;
    if (!s || !cand || s.id !== job.sessionId) throw new FwError('ERR_SYS_3001', 'the session to commit is no longer active');
    if (s.owner !== job.user) throw new FwError('ERR_SYS_3002', `owner: ${s.owner}`);
    if (cand.seq !== job.journalLength) {
      throw sessionBusy(`the session changed concurrently: ${cand.seq} changes, not ${job.journalLength}`);
    }
    return { s, cand };
  }

  /**
   * The candidate of the journal claimed, whose digest the claim answered (null: a sole
   * writer's, the cache is its journal). A commit is built from the journal in the store,
   * never from a cache that differs from it: after a split the cache may hold the losing
   * side's unconfirmed changes under the same session and length as the winning side's
   * journal, and the commit script checks only those two (issue 31: a commit acknowledged
   * without changes acknowledged before it). The cache serves when its digest is the
   * journal's; otherwise it is rebuilt from the journal, which the claim keeps as it is.
   */
  private async candidateOfJournal(job: CommitJob, digest: string | null, clock: PhaseClock): Promise<ClaimedCandidate> {
    const cached = digest === null ? this.store.soleWriter : digest === this.replica.journalDigest();
    if (cached) return { ...this.sessionToClaim(job), candidate: 'cached' };
    this.replica.storeChanged();
    await this.replica.synced();
    clock.mark('sync');
    return { ...this.sessionToClaim(job), candidate: 'rebuilt' };
  }

  private async checkCompileSwap(job: CommitJob, { s, cand, candidate }: ClaimedCandidate, clock: PhaseClock): Promise<CommitResult> {
    await this.checkCommittable(cand.doc);
    clock.mark('checks');
    const { compiled, warnings: analysis, base, delta, summary } = await this.compileAndDiff(cand.doc);
    clock.mark('compile');
    const warnings = [...downLinkWarnings(cand.doc), ...haWarnings(cand.doc), ...analysis];
    const meta: VersionMeta = {
      version: base.meta.version + 1,
      author: job.user,
      time: Date.now(),
      description: job.description,
      summary,
    };
    // the deadline counts from the swap, not from the request (a slow compile does not eat it)
    if (job.confirmTimeoutSec !== undefined) meta.confirmBy = Date.now() + job.confirmTimeoutSec * 1000;
    const unconfirmed = await this.enforceAndRecord(s, cand, meta, { base, delta }, `the candidate of ${job.user}'s session, on version ${base.meta.version}`, clock);
    this.reportCommit(job, meta); // before the swap's own events (node version)
    // the candidate document becomes the immutable running version (versionDoc() serves it from there)
    if (this.versions.current().meta.version < meta.version) this.versions.set(new RunningState(meta, cand.doc, Promise.resolve({ compiled, warnings: analysis })));
    this.replica.forget(s.id);
    clock.mark('swap');
    this.log.info({ version: meta.version, author: job.user, summary: meta.summary, unconfirmed: unconfirmed !== null, candidate, ms: clock.done() }, 'commit');
    await this.confirmedByCommit(job, meta, base.meta);
    if (unconfirmed) throw unconfirmed;
    return meta.confirmBy === undefined ? { version: meta.version, warnings } : { version: meta.version, warnings, confirmBy: meta.confirmBy };
  }

  /**
   * The kernel holds the new version before it is durable; a refused apply has restored the
   * previous version's state and throws, so running stays what it was. Then the store records
   * it. Resolves to the error of a commit made on the primary but not confirmed by enough
   * replicas: it is the running version now (the same request again finds it done) and the
   * answer says unconfirmed; any other failure puts the kernel back and throws.
   */
  private async enforceAndRecord(s: SessionRecord, cand: Candidate, meta: VersionMeta, { base, delta }: { base: RunningState<C>; delta: DocDelta }, label: string, clock: PhaseClock): Promise<FwError | null> {
    await this.tools.dataPlane.apply(cand.doc, meta.version, label);
    clock.mark('dataplane');
    try {
      // the store records the change from the running version rather than the whole document (version-deltas.ts)
      const change = versionChange(base, cand.doc, delta);
      const record = { ...meta, doc: serializeDoc(cand.doc) };
      clock.mark('delta');
      await this.store.commit(s.id, cand.seq, record, change).catch(conflictAsSessionError);
      clock.mark('store');
      return null;
    } catch (e) {
      if (isFwError(e) && e.code === 'ERR_SYS_4006') return e;
      await this.tools.dataPlane.apply(base.doc, base.meta.version).catch((e2: unknown) => {
        this.log.error({ err: e2 }, 'data plane: restoring the running version failed');
      });
      throw e;
    }
  }

  /**
   * The events of a commit, from the instance that made it (in a cluster, the worker: they
   * are reported even if the instance that took the request is gone).
   */
  private reportCommit(job: CommitJob, meta: VersionMeta): void {
    const deadline = meta.confirmBy === undefined ? undefined : new Date(meta.confirmBy).toISOString();
    this.emit({ type: 'commit', version: meta.version, author: job.user, description: job.description, summary: meta.summary, ...(deadline ? { confirm_by: deadline } : {}) });
    this.emit({ type: 'session', state: 'committed', owner: job.user, user: job.user });
    if (deadline) this.emit({ type: 'confirm', state: 'pending', version: meta.version, user: job.user, deadline });
  }

  /** A commit on top of an unconfirmed commit confirms it (as Junos does): recorded and audited. */
  private async confirmedByCommit(job: CommitJob, meta: VersionMeta, base: VersionMeta): Promise<void> {
    if (base.confirmBy === undefined || job.user === SYSTEM_USER) return;
    try {
      if ((await this.store.confirmedVersion()) >= base.version) return;
      await this.store.confirmVersion(base.version);
      await this.store.audit({ at: Date.now(), user: job.user, action: 'config.confirm', details: `version ${base.version}, by the commit of version ${meta.version}`, reqId: '' });
      this.emit({ type: 'confirm', state: 'confirmed', version: base.version, user: job.user });
    } catch (e) {
      this.log.warn({ err: String(e), version: base.version }, 'could not record the confirmation by commit');
    }
  }

  /**
   * Compiles the candidate on a pool thread and, meanwhile on this thread, diffs it against
   * the running version for the commit's summary (at 20,000 policies the diff is ~0.1 s that
   * used to wait for the compile). `base` is the running version the summary and `delta` (the
   * compile thread's and the store's record of the change) are against: if another version
   * became running during the compile, both are made again.
   */
  private async compileAndDiff(doc: ConfigDoc): Promise<{ compiled: C; warnings: string[]; base: RunningState<C>; delta: DocDelta; summary: VersionMeta['summary'] }> {
    let base = this.versions.current();
    let delta = docDelta(base.doc, doc);
    const compiling = this.compileInTime(doc, base.doc, delta);
    let summary: VersionMeta['summary'];
    try {
      summary = changeSummary(base.doc, doc);
    } catch (e) {
      await compiling.catch(() => undefined); // its failure is not left unhandled
      throw e;
    }
    const { compiled, warnings } = await compiling;
    if (this.versions.current() !== base) {
      base = this.versions.current();
      summary = changeSummary(base.doc, doc);
      delta = docDelta(base.doc, doc);
    }
    return { compiled, warnings, base, delta, summary };
  }

  /** The commit checks, then the data plane's own (names, `nft -c`): 400 ERR_SYS_3003. */
  private async checkCommittable(doc: ConfigDoc): Promise<void> {
    let problems = this.tools.commitChecks(doc);
    const over = this.opts.maxExpansion === undefined ? null : expansionProblem(doc, this.opts.maxExpansion);
    if (over) problems = [...problems, over]; // before the compile it would overrun
    if (problems.length === 0) problems = await this.tools.dataPlane.check(doc);
    if (problems.length) throw new FwError('ERR_SYS_3003', problems.join('\n'));
  }

  /** `base` and `delta`: the running version's document and docDelta(base, doc), if at hand. */
  /**
   * The compile, stopped at FW_COMPILE_TIMEOUT_MS: 504 ERR_SYS_4004, and the abort ends the
   * thread that ran it (issue 38: a timed-out compile ran on for minutes, and the commits after
   * it waited for its thread).
   */
  private async compileInTime(doc: ConfigDoc, base = this.versions.current().doc, delta?: DocDelta): Promise<{ compiled: C; warnings: string[] }> {
    const ms = this.opts.compileTimeoutMs ?? this.opts.commitTimeoutMs;
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = new FwError('ERR_SYS_4004', `compile took over ${ms} ms and was stopped`);
        this.log.warn({ ms, policies: doc.policies.length }, 'compile over its deadline: stopped, its thread replaced');
        stop.abort(e);
        reject(e);
      }, ms);
    });
    const compiling = this.tools.compiler.compile(doc, base, delta, stop.signal);
    compiling.catch(() => undefined); // a rejection after the timeout's is not left unhandled
    try {
      return await Promise.race([compiling, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
