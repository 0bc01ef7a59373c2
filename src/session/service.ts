// The configuration service: one facade over the running versions (running-versions.ts), the
// candidate replicated from the store's journal (candidate.ts), the session's life
// (lifecycle.ts), changes (changes.ts) and the commit pipeline (commit-pipeline.ts). The
// candidate is the base running version plus the session's journal, and the store holds both,
// so any instance sharing the store can serve any request of the session; a commit is one job
// (in this process, or on a queue worker in a cluster). Routes, app.ts and the workers call
// only this class.
import type { Logger } from 'pino';
import { FwError, isFwError } from '../errors';
import type { ApplyContext, Change } from '../config/changes';
import type { ChangeResult } from '../config/resource';
import type { ConfigDiff } from '../config/diff';
import type { ConfigDoc } from '../config/types';
import type { Store, VersionMeta } from '../store/types';
import { NoDataPlane, type DataPlane } from '../dataplane/types';
import type { EventEmitterFn } from '../events/types';
import type { RunningState } from './running';
import { RunningVersions } from './running-versions';
import { CandidateReplica } from './candidate';
import { CommitGuard } from './conflicts';
import { SessionLifecycle } from './lifecycle';
import { ChangeWriter } from './change-writer';
import { CommitPipeline } from './commit-pipeline';
import { SYSTEM_USER, type CommitJob, type CommitResult, type CommitRunner, type Compiler, type PendingConfirm, type SessionInfo, type SessionOptions, type VersionSync } from './types';

export { SYSTEM_USER };
export type { CommitJob, CommitResult, CommitRunner, Compiler, PendingConfirm, SessionInfo, SessionOptions, VersionSync };

export class ConfigService<C = unknown> {
  /** where session, commit and confirmation events are reported (GET /api/events) */
  events: EventEmitterFn = () => undefined;
  private readonly versions: RunningVersions<C>;
  private readonly replica: CandidateReplica<C>;
  private readonly lifecycle: SessionLifecycle<C>;
  private readonly changes: ChangeWriter<C>;
  private readonly pipeline: CommitPipeline<C>;
  /** the committed versions' metas, as the store lists them (GET /api/config/versions) */
  private readonly history: () => Promise<VersionMeta[]>;

  constructor(
    store: Store,
    opts: SessionOptions,
    private readonly log: Logger,
    compiler: Compiler<C>,
    commitChecks: (doc: ConfigDoc) => string[],
    /** enforces each committed version before it becomes running (none: FW_DATAPLANE=none) */
    dataPlane: DataPlane = new NoDataPlane(),
  ) {
    const emit: EventEmitterFn = (e) => this.events(e); // the emitter set after construction
    const guard = new CommitGuard();
    this.history = () => store.listVersions();
    this.versions = new RunningVersions(store, compiler, log);
    this.replica = new CandidateReplica(store, this.versions);
    this.lifecycle = new SessionLifecycle(store, this.replica, this.versions, guard, opts, log, emit);
    this.changes = new ChangeWriter(store, this.replica, this.lifecycle, guard, log, opts.maxExpansion);
    this.pipeline = new CommitPipeline(store, this.replica, this.versions, this.lifecycle, guard, { compiler, commitChecks, dataPlane }, opts, log, emit);
  }

  /** Loads the running version and rebuilds an active session's candidate from its journal. */
  async init(): Promise<void> {
    await this.versions.init();
    await this.replica.synced();
    const s = this.replica.session;
    if (s) this.log.info({ owner: s.owner, changes: this.replica.cand?.seq }, 'session restored');
  }

  /** Commits go through `runner` (a queue) and answer after `sync` (every instance serves them). */
  useCluster(runner: CommitRunner, sync: VersionSync): void {
    this.pipeline.useCluster(runner, sync);
  }

  current(): RunningState<C> {
    return this.versions.current();
  }

  /** Calls `listener` with every running version this process serves from now on. */
  onRunningChange(listener: (state: RunningState<C>) => void): void {
    this.versions.onChange(listener);
  }

  /** Serves the store's running version if it is newer than ours (another instance committed). */
  refreshRunning(): Promise<void> {
    return this.versions.refresh();
  }

  /** The document of a committed version (404 when there is none or it was pruned); never mutated. */
  versionDoc(version: number): Promise<ConfigDoc> {
    return this.versions.versionDoc(version);
  }

  /** The committed versions still kept (author, time, description, summary), oldest first as the store lists them. */
  versionHistory(): Promise<VersionMeta[]> {
    return this.history();
  }

  /** One committed version's meta; 404 ERR_NET_1003 when it is not kept. The meta comes from
   * the history (a few hundred bytes a version): a version stored as a delta is not rebuilt. */
  async versionMeta(version: number): Promise<VersionMeta> {
    const rec = (await this.history()).find((m) => m.version === version);
    if (!rec) throw new FwError('ERR_NET_1003', `version ${version} not found`);
    return rec;
  }

  /** The store may no longer hold what the cached candidate holds: rebuild it before its next use. */
  storeChanged(): void {
    this.replica.storeChanged();
  }

  /** Ends a session that sat idle past the timeout (called by a timer too). */
  expireIdle(): Promise<void> {
    return this.lifecycle.expireIdle();
  }

  info(): Promise<SessionInfo> {
    return this.lifecycle.info();
  }

  pendingConfirm(): Promise<PendingConfirm | null> {
    return this.lifecycle.pendingConfirm();
  }

  begin(user: string): Promise<void> {
    return this.lifecycle.begin(user);
  }

  change(user: string, change: Change, ctx: ApplyContext = {}): Promise<ChangeResult> {
    return this.changes.change(user, change, ctx);
  }

  async rollback(user: string, version: number): Promise<void> {
    await this.lifecycle.ownedSession(user);
    const versionDoc = await this.versions.versionDoc(version);
    await this.changes.change(user, { op: 'rollback', version }, { versionDoc });
    this.events({ type: 'rollback', version, user });
  }

  discard(user: string, force: boolean, mayForce?: (owner: string) => void): Promise<string> {
    return this.lifecycle.discard(user, force, mayForce);
  }

  /** Ends `owner`'s session if it holds the active one (its account deleted): see SessionLifecycle. */
  endSessionOf(owner: string, by: string): Promise<boolean> {
    return this.lifecycle.endSessionOf(owner, by);
  }

  /** The candidate of the active session (any admin may read it). */
  candidate(): Promise<{ doc: ConfigDoc; seq: number; sessionId: string; baseVersion: number }> {
    return this.lifecycle.candidate();
  }

  compiledCandidate(): Promise<{ compiled: C; warnings: string[] }> {
    return this.pipeline.compiledCandidate();
  }

  diff(): Promise<ConfigDiff & { base_version: number }> {
    return this.pipeline.diff();
  }

  validate(): Promise<{ warnings: string[] }> {
    return this.pipeline.validate();
  }

  commit(user: string, description: string, confirmTimeoutSec?: number): Promise<CommitResult & { unconfirmed: string[] }> {
    return this.pipeline.commit(user, description, confirmTimeoutSec);
  }

  commitJob(job: CommitJob): Promise<CommitResult> {
    return this.pipeline.commitJob(job);
  }

  /**
   * Restores the version before the unconfirmed `version` as a new version, with the same
   * pipeline as any commit (checks, data plane, atomic swap): in a session of the system's
   * own, after ending any session that is open (it was begun on the version withdrawn).
   * The caller holds the store's revert claim. Resolves to the new version, or null when
   * `version` is no longer running (a commit came first: it confirmed it).
   */
  async revertUnconfirmed(version: number, description: string): Promise<number | null> {
    await this.versions.refresh();
    if (this.current().meta.version !== version) return null;
    for (let attempt = 0; ; attempt++) {
      // a user's session (409 while a commit holds it: the revert is tried again later), or a
      // revert's own that died half-way (start over)
      const s = await this.lifecycle.liveSession();
      if (s) await this.lifecycle.endSession(s, 'discarded', SYSTEM_USER);
      try {
        await this.begin(SYSTEM_USER);
        break;
      } catch (e) {
        if (!(isFwError(e) && e.code === 'ERR_SYS_3002') || attempt >= 3) throw e;
        // someone began a session in between: end it too
      }
    }
    await this.versions.refresh();
    if (this.current().meta.version !== version) return null;
    await this.rollback(SYSTEM_USER, version - 1);
    const { s, cand } = await this.lifecycle.ownedSession(SYSTEM_USER);
    return (await this.commitJob({ sessionId: s.id, journalLength: cand.seq, user: SYSTEM_USER, description })).version;
  }
}
