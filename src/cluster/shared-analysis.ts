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

/** How long a lease holds without renewal: an instance that died is replaced after this. */
export const LEASE_MS = 15_000;
/** How long a published result is kept (a version served longer is analyzed again, once). */
const KEEP_MS = 24 * 3600_000;

const what = (version: number) => `deep-analysis:${version}`;

/** What DeepAnalysis asks of the cluster for one version's pass. */
export interface DeepPassShare {
  /** The published result of `version`, if there is one. */
  published(version: number): Promise<Analysis | null>;
  /** True when this instance now holds (or renewed) the lease of `version`'s pass. */
  claim(version: number): Promise<boolean>;
  /** Publishes this instance's result of `version` (and gives the lease up). */
  publish(version: number, analysis: Analysis): Promise<void>;
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

  async published(version: number): Promise<Analysis | null> {
    const text = await this.work.get(what(version));
    if (text === null) return null;
    try {
      return JSON.parse(text) as Analysis;
    } catch {
      this.log.warn({ version }, 'shared deep analysis unreadable; analyzing here');
      return null;
    }
  }

  claim(version: number): Promise<boolean> {
    return this.work.claim(what(version), this.nodeId, this.leaseMs);
  }

  async publish(version: number, analysis: Analysis): Promise<void> {
    await this.work.put(what(version), JSON.stringify(analysis), KEEP_MS);
    await this.work.release(what(version), this.nodeId);
  }

  release(version: number): Promise<void> {
    return this.work.release(what(version), this.nodeId);
  }

  onPublished(listener: (version: number) => void): void {
    this.listeners.push(listener);
  }
}
