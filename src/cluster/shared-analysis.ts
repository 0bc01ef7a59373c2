// The deep analysis of a version, done once for the cluster: every instance loads every
// version, and each ran the deep pass of it (at 100,000 policies ~20 of a three-instance
// commit run's 48 s of CPU went there). Now the instance that claims the version's lease runs
// the pass, renewing the lease while it works, and publishes the result through the store;
// the others wait for the notice (or read the result when they come to the version later).
// An instance that dies mid-pass stops renewing: its lease lapses within LEASE_MS and the next
// instance to try claims it and runs the pass itself.
import type { Logger } from 'pino';
import type { Analysis } from '../eval/analysis-types';
import type { SharedWork } from '../store/cluster-bus';
import { sameCommit, type CommitId } from '../store/version-deltas';

/** How long a lease holds without renewal: an instance that died is replaced after this. */
export const LEASE_MS = 15_000;
/** How long a published result is kept (a version served longer is analyzed again, once). */
const KEEP_MS = 24 * 3600_000;

const what = (version: number) => `deep-analysis:${version}`;

/**
 * A published result as stored: with the commit it analyzed, taken only for that commit.
 * After a failover the losing side's unconfirmed commits had taken numbers that the winning
 * side gives to other documents (issue 31); the lease may stay keyed by number (a stale one
 * only delays the pass by its LEASE_MS).
 */
interface Stored {
  commit: CommitId;
  analysis: Analysis;
}

/** What DeepAnalysis asks of the cluster for one version's pass. */
export interface DeepPassShare {
  /** The published result of this commit, if there is one (not another commit's under its number). */
  published(commit: CommitId): Promise<Analysis | null>;
  /** True when this instance now holds (or renewed) the lease of `version`'s pass. */
  claim(version: number): Promise<boolean>;
  /** Publishes this instance's result of the commit (and gives the lease up). */
  publish(commit: CommitId, analysis: Analysis): Promise<void>;
  /** Gives the lease up without a result (the pass was cancelled or failed). */
  release(version: number): Promise<void>;
  /** Calls `listener` when some instance published a version's result. */
  onPublished(listener: (version: number) => void): void;
  /** How often a holder renews its lease and a waiter tries to take it over, in ms. */
  readonly retryMs: number;
}

export class SharedDeepPasses implements DeepPassShare {
  readonly retryMs: number;

  constructor(
    private readonly work: SharedWork,
    onNotice: (listener: (what: string) => void) => void,
    private readonly nodeId: string,
    private readonly log: Logger,
    private readonly leaseMs = LEASE_MS,
  ) {
    this.retryMs = Math.max(50, Math.floor(leaseMs / 3));
    onNotice((w) => {
      const m = /^deep-analysis:(\d+)$/.exec(w);
      if (m) for (const l of this.listeners) l(Number(m[1]));
    });
  }

  private readonly listeners: Array<(version: number) => void> = [];

  async published(commit: CommitId): Promise<Analysis | null> {
    const text = await this.work.get(what(commit.version));
    if (text === null) return null;
    let stored: Stored;
    try {
      stored = JSON.parse(text) as Stored;
    } catch {
      this.log.warn({ version: commit.version }, 'shared deep analysis unreadable; analyzing here');
      return null;
    }
    return stored.commit !== undefined && sameCommit(stored.commit, commit) ? stored.analysis : null;
  }

  claim(version: number): Promise<boolean> {
    return this.work.claim(what(version), this.nodeId, this.leaseMs);
  }

  async publish(commit: CommitId, analysis: Analysis): Promise<void> {
    const stored: Stored = { commit, analysis };
    await this.work.put(what(commit.version), JSON.stringify(stored), KEEP_MS);
    await this.work.release(what(commit.version), this.nodeId);
  }

  release(version: number): Promise<void> {
    return this.work.release(what(version), this.nodeId);
  }

  onPublished(listener: (version: number) => void): void {
    this.listeners.push(listener);
  }
}
