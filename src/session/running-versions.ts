// The running version this process serves, and the documents of other committed versions:
// loaded from the store at start, replaced by this process's commits and by versions
// committed elsewhere (refresh), each with its matchers compiling in the pool behind it.
import type { Logger } from 'pino';
import { FwError, isFwError } from '../errors';
import { parseDoc } from '../config/document';
import { applyDelta, shareUnchanged } from '../config/doc-delta';
import type { ConfigDoc } from '../config/types';
import type { Store, VersionMeta } from '../store/types';
import { sameCommit, unpackDelta } from '../store/version-deltas';
import { Lru } from '../lru';
import { RunningState } from './running';
import type { Compiler } from './types';
import { threadGarbage } from '../idle-gc';

/**
 * Parsed documents of committed versions other than the running one (rollbacks, reads of
 * GET /api/config/versions/{n}, a candidate's base) kept for reuse: a few, least recently used
 * out first. Every commit used to add its document here for good (issue 15).
 */
const VERSION_DOCS_CACHED = 8;

/** Versions committed elsewhere that an instance applies as deltas to the one it serves;
 * further behind, it reads the version whole. */
const FOLLOW_DELTAS = 32;

/**
 * How long a start keeps asking for the running version while the store answers 503
 * ERR_SYS_4002 (as long as the Redis store waits to connect): a start that read the version
 * just as Redis was slow (a 13 MB record on a loaded host) failed for good on one timed-out
 * read, where a retry a moment later succeeds.
 */
export const START_WAIT_MS = 30_000;
const START_RETRY_MS = 250;

function notFound(version: number): never {
  throw new FwError('ERR_NET_1003', `version ${version} not found`);
}

export class RunningVersions<C> {
  private running!: RunningState<C>;
  /** one load of a newer running version at a time */
  private loading: Promise<void> | null = null;
  private readonly versionDocs = new Lru<number, ConfigDoc>(VERSION_DOCS_CACHED);
  private readonly listeners: Array<(state: RunningState<C>) => void> = [];

  constructor(
    private readonly store: Pick<Store, 'runningVersion' | 'getVersion' | 'versionDelta'>,
    private readonly compiler: Compiler<C>,
    private readonly log: Logger,
    private readonly startWaitMs = START_WAIT_MS,
  ) {}

  /** Loads the store's running version, asking again while the store is unavailable (START_WAIT_MS). */
  async init(): Promise<void> {
    const until = Date.now() + this.startWaitMs;
    for (;;) {
      try {
        const meta = await this.store.runningVersion();
        const doc = await this.versionDoc(meta.version);
        this.set(new RunningState(meta, doc, this.compiler.compile(doc)));
        return;
      } catch (e) {
        if (!isFwError(e) || e.code !== 'ERR_SYS_4002' || Date.now() >= until) throw e;
        this.log.warn({ err: e.details }, 'the running version could not be read; asking again');
        await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS));
      }
    }
  }

  current(): RunningState<C> {
    return this.running;
  }

  /** Calls `listener` with every running version this process serves from now on. */
  onChange(listener: (state: RunningState<C>) => void): void {
    this.listeners.push(listener);
    if (this.running) listener(this.running);
  }

  /** The one place the running version this process serves is replaced. */
  set(state: RunningState<C>): void {
    this.running = state;
    for (const listener of this.listeners) listener(state);
    // the garbage of its making (the load's parse, the commit's diff, the previous version)
    threadGarbage.touch();
  }

  /**
   * Serves the store's running version if it is not the one we serve: newer (another
   * instance committed), or another commit under the same or a lower number (after a split,
   * the side that lost its writes: the version this process served was never acknowledged
   * and is gone from Redis, issue 31). The document at once, its matchers compiling behind it.
   */
  refresh(): Promise<void> {
    this.loading ??= this.loadOther().finally(() => { this.loading = null; });
    return this.loading;
  }

  private async loadOther(): Promise<void> {
    const before = this.running;
    const meta = await this.store.runningVersion();
    if (sameCommit(meta, before.meta)) return;
    const older = meta.version <= before.meta.version;
    // the history went back: every cached document from this number on may be the lost side's
    // (its unconfirmed commits took numbers the winning side gives to other documents)
    if (older) this.versionDocs.deleteWhere((n) => n >= meta.version);
    const followed = older ? undefined : await this.followDeltas(before, meta);
    const doc = older
      ? parseDoc((await this.store.getVersion(meta.version) ?? notFound(meta.version)).doc)
      : followed ?? (await this.versionDoc(meta.version));
    // this process committed (or loaded) meanwhile: that is newer than what we read
    if (this.running !== before) return;
    // sharing what did not change with the version served so far (equal objects for equal
    // ones: the cached document reads the same): its compile is a delta, as on the committing
    // instance
    shareUnchanged(before.doc, doc);
    this.set(new RunningState(meta, doc, this.compiler.compile(doc, before.doc)));
    if (older) this.log.warn({ version: meta.version, served: before.meta.version }, 'the running version served here is not in Redis (lost with a failed-over primary\'s unconfirmed writes): serving the one in Redis');
    else this.log.info({ version: meta.version, author: meta.author, read: followed ? 'deltas' : 'whole' }, 'loaded a running version committed elsewhere');
  }

  /**
   * The document of `meta` from the one served, when the versions after it were committed as
   * deltas on it, one on the other (version-deltas.ts): the few changes another instance
   * committed, instead of reading and parsing the whole document (~13 MB at 100,000
   * policies). Undefined when one of them is stored whole or was made on another commit.
   */
  private async followDeltas(before: RunningState<C>, meta: VersionMeta): Promise<ConfigDoc | undefined> {
    if (meta.version - before.meta.version > FOLLOW_DELTAS) return undefined;
    let doc = before.doc;
    let held: VersionMeta = before.meta;
    for (let v = held.version + 1; v <= meta.version; v++) {
      const d = await this.store.versionDelta(v);
      if (!d || !sameCommit(d.base, held)) return undefined;
      try {
        doc = applyDelta(doc, unpackDelta(doc, d.delta));
      } catch {
        return undefined; // a delta that does not fit the document held: read the version whole
      }
      held = d;
    }
    return sameCommit(held, meta) ? doc : undefined;
  }

  /** The document of a committed version (404 when there is none or it was pruned); never mutated. */
  async versionDoc(version: number): Promise<ConfigDoc> {
    if (this.running?.meta.version === version) return this.running.doc;
    const cached = this.versionDocs.get(version);
    if (cached) return cached;
    const rec = Number.isSafeInteger(version) ? await this.store.getVersion(version) : undefined;
    const doc = parseDoc((rec ?? notFound(version)).doc);
    this.versionDocs.set(version, doc);
    return doc;
  }
}
