// The running version this process serves, and the documents of other committed versions:
// loaded from the store at start, replaced by this process's commits and by versions
// committed elsewhere (refresh), each with its matchers compiling in the pool behind it.
import type { Logger } from 'pino';
import { FwError } from '../errors';
import { parseDoc } from '../config/document';
import { shareUnchanged } from '../config/doc-delta';
import type { ConfigDoc } from '../config/types';
import type { Store } from '../store/types';
import { Lru } from '../lru';
import { RunningState } from './running';
import type { Compiler } from './types';
import { threadGarbage } from '../workers/idle-gc';

/**
 * Parsed documents of committed versions other than the running one (rollbacks, reads of
 * GET /api/config/versions/{n}, a candidate's base) kept for reuse: a few, least recently used
 * out first. Every commit used to add its document here for good (issue 15).
 */
const VERSION_DOCS_CACHED = 8;

export class RunningVersions<C> {
  private running!: RunningState<C>;
  /** one load of a newer running version at a time */
  private loading: Promise<void> | null = null;
  private readonly versionDocs = new Lru<number, ConfigDoc>(VERSION_DOCS_CACHED);
  private readonly listeners: Array<(state: RunningState<C>) => void> = [];

  constructor(
    private readonly store: Pick<Store, 'runningVersion' | 'getVersion'>,
    private readonly compiler: Compiler<C>,
    private readonly log: Logger,
  ) {}

  /** Loads the store's running version. */
  async init(): Promise<void> {
    const meta = await this.store.runningVersion();
    const doc = await this.versionDoc(meta.version);
    this.set(new RunningState(meta, doc, this.compiler.compile(doc)));
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
   * Serves the store's running version if it is newer than ours (another instance committed):
   * the document at once, its matchers compiling in the pool behind it.
   */
  refresh(): Promise<void> {
    this.loading ??= this.loadNewer().finally(() => { this.loading = null; });
    return this.loading;
  }

  private async loadNewer(): Promise<void> {
    const meta = await this.store.runningVersion();
    if (meta.version <= this.running.meta.version) return;
    const doc = await this.versionDoc(meta.version);
    if (meta.version <= this.running.meta.version) return;
    // sharing what did not change with our running version (equal objects for equal ones: the
    // cached document reads the same): its compile is a delta, as on the committing instance
    const base = this.running.doc;
    shareUnchanged(base, doc);
    this.set(new RunningState(meta, doc, this.compiler.compile(doc, base)));
    this.log.info({ version: meta.version, author: meta.author }, 'loaded a running version committed elsewhere');
  }

  /** The document of a committed version (404 when there is none or it was pruned); never mutated. */
  async versionDoc(version: number): Promise<ConfigDoc> {
    if (this.running?.meta.version === version) return this.running.doc;
    const cached = this.versionDocs.get(version);
    if (cached) return cached;
    const rec = Number.isSafeInteger(version) ? await this.store.getVersion(version) : undefined;
    if (!rec) throw new FwError('ERR_NET_1003', `version ${version} not found`);
    const doc = parseDoc(rec.doc);
    this.versionDocs.set(version, doc);
    return doc;
  }
}
