// What the configuration service's modules and its callers (routes, app.ts, the commit queue)
// share: options, the shapes of answers and of a commit job.
import type { DocDelta } from '../config/doc-delta';
import type { ConfigDoc } from '../config/types';

/** Compiles a document (in worker threads) and returns its analysis warnings. */
export interface Compiler<C> {
  /** `base`: a document compiled before that `doc` shares its unchanged objects with (the
   * running version's): only what differs need travel to the compile thread; `delta`:
   * docDelta(base, doc), when the caller has it */
  compile(doc: ConfigDoc, base?: ConfigDoc, delta?: DocDelta, signal?: AbortSignal): Promise<{ compiled: C; warnings: string[] }>;
}

export interface SessionOptions {
  sessionTimeoutSec: number;
  commitTimeoutMs: number;
  /** FW_MAX_EXPANSION (config/expansion.ts); absent: no budget */
  maxExpansion?: number;
  /** FW_COMPILE_TIMEOUT_MS; absent: commitTimeoutMs */
  compileTimeoutMs?: number;
}

/** A commit confirmed waiting for POST /api/config/confirm. */
export interface PendingConfirm {
  version: number;
  author: string;
  deadline: string; // ISO time
}

export interface SessionInfo {
  active: boolean;
  owner: string | null;
  started_at: string | null;
  expires_at: string | null;
  changes: number;
  pending_confirm: PendingConfirm | null;
}

/** The user the daemon's own actions are recorded as (an automatic revert, a session expiry). */
export const SYSTEM_USER = 'system';

/** One commit: the session, how many of its changes it commits, who asked and why. */
export interface CommitJob {
  sessionId: string;
  journalLength: number;
  user: string;
  description: string;
  /** a commit confirmed: seconds from the swap until the daemon reverts it unless confirmed */
  confirmTimeoutSec?: number;
}

export interface CommitResult {
  version: number;
  warnings: string[];
  /** a commit confirmed: its deadline (unix ms) */
  confirmBy?: number;
}

/** Runs a commit job: in this process (embedded store) or on a queue worker (cluster). */
export interface CommitRunner {
  run(job: CommitJob): Promise<CommitResult>;
}

/** Waits until every live instance serves `version`; answers the ids of those that did not. */
export type VersionSync = (version: number) => Promise<string[]>;
