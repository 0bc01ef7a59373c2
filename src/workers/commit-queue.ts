// Commits through BullMQ, in a cluster. The instance that receives POST /api/config/commit
// enqueues one job whose id is derived from the session id and the journal length, so a
// retried commit joins the job already queued (or finished) instead of applying twice; a
// worker (in any instance, or a process of its own) runs the commit job; the request waits for
// its outcome. A worker that dies mid-commit leaves the job stalled: BullMQ hands it to another
// worker, which takes the session's claim over and finishes it, or finds it already done.
// Every worker beats in the node registry (cluster/nodes.ts): with none alive a commit is
// refused at once (503 ERR_SYS_4007) instead of waiting FW_COMMIT_TIMEOUT for nothing.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { Job, Queue, QueueEvents, Worker, type ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import { FwError, isFwError, type ErrorCode } from '../errors';
import type { CommitJob, CommitResult, CommitRunner, ConfigService } from '../session/service';
import type { ClusterBus } from '../store/cluster-bus';
import { failFastOptions, patientOptions, unreachable, type RedisTarget } from '../store/redis/connection';
import { WORKER_HEARTBEAT_MS, WorkerBeacon, liveWorkers } from '../cluster/nodes';

const QUEUE = 'commits';

/** A job's outcome: the commit's result, or the contract error it answered with. */
type Outcome = CommitResult | { error: { code: ErrorCode; details: string; message: string } };

export interface QueueSettings {
  redis: RedisTarget;
  clusterName: string;
  commitTimeoutMs: number;
}

/** The store's connection options (same server or sentinels, password, TLS); BullMQ connects itself. */
function connection(target: RedisTarget, failFast: boolean): ConnectionOptions {
  // a producer fails fast during an outage (503); workers and listeners wait it out
  const { lazyConnect: _lazy, ...options } = failFast ? failFastOptions(target) : patientOptions(target);
  return options as ConnectionOptions; // BullMQ hands them to ioredis as they are
}

/** BullMQ keys under the firewall's hash tag: the whole layout stays in one cluster slot. */
function prefixOf(clusterName: string): string {
  return `fw:{${clusterName}}:bull`;
}

/** The id of the one job that commits `sessionId` at `journalLength` changes. */
export function commitJobId(job: Pick<CommitJob, 'sessionId' | 'journalLength'>): string {
  return `commit-${job.sessionId}-${job.journalLength}`;
}

export class CommitQueue implements CommitRunner {
  private readonly queue: Queue;
  private readonly events: QueueEvents;

  constructor(private readonly s: QueueSettings, private readonly store: ClusterBus, private readonly log: Logger) {
    const prefix = prefixOf(s.clusterName);
    this.queue = new Queue(QUEUE, { connection: connection(s.redis, true), prefix });
    this.events = new QueueEvents(QUEUE, { connection: connection(s.redis, false), prefix });
    this.queue.on('error', () => undefined); // reported where a call fails
    this.events.on('error', () => undefined);
  }

  async ready(): Promise<void> {
    await Promise.all([this.queue.waitUntilReady(), this.events.waitUntilReady()]);
  }

  /** Set when this process runs a commit worker itself: one is alive, whatever the registry says. */
  localWorker = false;

  async run(job: CommitJob): Promise<CommitResult> {
    if (!this.localWorker && !(await this.someWorkerAlive())) throw this.noWorker();
    let queued: Job;
    try {
      queued = await this.queue.add(QUEUE, job, {
        jobId: commitJobId(job),
        // finished jobs are kept an hour, and at most a thousand: Redis memory stays bounded
        // however often automation commits (issue 15)
        removeOnComplete: { age: 3600, count: 1000 },
        removeOnFail: { age: 3600, count: 1000 },
      });
    } catch (e) {
      throw unreachable(e);
    }
    const outcome = await this.wait(queued);
    if ('error' in outcome) {
      // the same request again must run again (the candidate may be fixed by then)
      await queued.remove().catch(() => undefined);
      throw new FwError(outcome.error.code, outcome.error.details, outcome.error.message);
    }
    return outcome;
  }

  /**
   * Whether the registry names a live worker, looked at again for two heartbeats when it names
   * none: after a failover the registry is the new primary's, which the workers' beats reach
   * within a heartbeat (a commit right after one must not be refused for it).
   */
  private async someWorkerAlive(): Promise<boolean> {
    const until = Date.now() + 2 * WORKER_HEARTBEAT_MS;
    for (;;) {
      if ((await liveWorkers(this.store)).length > 0) return true;
      if (Date.now() >= until) return false;
      await new Promise((r) => setTimeout(r, WORKER_HEARTBEAT_MS / 4));
    }
  }

  /** 503: no worker can run the commit; the session is untouched (no job claimed it). */
  private noWorker(): FwError {
    return new FwError('ERR_SYS_4007', `no commit worker is alive in cluster "${this.s.clusterName}" (every instance runs with FW_WORKER=off and no \`npm run worker\` runs): start one and commit again; the session stays open`);
  }

  /**
   * Resolves with the 503 of noWorker() if, while `job` still waits for a worker, the last one
   * goes away (its job withdrawn first, so that nothing commits it later); stops once `done()`.
   * A job a worker has taken is left alone: if that worker dies, BullMQ hands it on.
   *
   * Also watches the job itself, once a second (issue 38 item 8): its outcome is normally heard
   * on the queue's event stream, but an event written while this instance was cut off, or on a
   * primary that a failover then discarded, is never heard, and the request (and with it this
   * instance's commit guard: every change here 409 ERR_SYS_3002) waited the whole
   * FW_COMMIT_TIMEOUT. So a job found finished answers its outcome; a job that is no longer in
   * Redis answers what the store's last-commit record says (committed: that version), else 503.
   */
  private async orphaned(job: Job, done: () => boolean): Promise<FwError | Outcome | null> {
    while (!done()) {
      await new Promise((r) => setTimeout(r, WORKER_HEARTBEAT_MS));
      if (done()) break;
      const state = await job.getState().catch(() => null);
      if (state === null) continue; // Redis unreachable: ask again
      const outcome = await this.finished(job, state);
      if (outcome) return outcome;
      if (state !== 'waiting') continue;
      const live = await liveWorkers(this.store).catch(() => null);
      if (live === null || live.length > 0) continue;
      if (await job.remove().then(() => true, () => false)) return this.noWorker();
    }
    return null;
  }

  /** The outcome of a job found finished, or lost, by its state; null while it may still finish. */
  private async finished(job: Job, state: string): Promise<FwError | Outcome | null> {
    if (state === 'completed' || state === 'failed') {
      const now = await Job.fromId(this.queue, job.id!).catch(() => undefined);
      if (!now) return null;
      if (state === 'failed') return new FwError('ERR_SYS_4001', `the commit job failed: ${now.failedReason}`);
      return (typeof now.returnvalue === 'string' ? JSON.parse(now.returnvalue) : now.returnvalue) as Outcome;
    }
    if (state !== 'unknown') return null;
    const data = job.data as CommitJob;
    const version = await this.store.committedVersion(data.sessionId, data.journalLength).catch(() => null);
    if (version === null) return null; // Redis unreachable: ask again
    if (version !== undefined) return { version, warnings: [] };
    this.log.warn({ job: job.id }, 'the commit job is no longer in Redis (lost with a failed-over primary?) and did not commit');
    return new FwError('ERR_SYS_4002', `the commit job ${job.id} is no longer in Redis (lost in a failover?) and did not commit: the session is as it was, commit again`);
  }

  private async wait(job: Job): Promise<Outcome> {
    let value: unknown;
    let finished = false;
    try {
      const watched = this.orphaned(job, () => finished).then((e) => {
        if (e instanceof FwError) throw e;
        if (e) return e; // found finished by its state
        return new Promise<never>(() => undefined); // the job's own outcome decides
      });
      value = await Promise.race([job.waitUntilFinished(this.events, this.s.commitTimeoutMs), watched]);
    } catch (e) {
      if (isFwError(e) && (e.code === 'ERR_SYS_4007' || e.code === 'ERR_SYS_4002')) throw e;
      const reason = isFwError(e) ? e.details.replace(/^the commit job failed: /, '') : e instanceof Error ? e.message : String(e);
      if (/timed out/.test(reason)) {
        throw new FwError('ERR_SYS_4004', `the commit job ${job.id} did not finish within ${this.s.commitTimeoutMs} ms; it goes on, see GET /api/config/versions`);
      }
      this.log.error({ job: job.id, reason }, 'commit job failed');
      throw new FwError('ERR_SYS_4001', `the commit job failed: ${reason}`);
    } finally {
      finished = true;
    }
    return (typeof value === 'string' ? JSON.parse(value) : value) as Outcome;
  }

  /**
   * `force` (Redis unreachable): drops the connections without waiting. QUIT would wait for
   * Redis, and so does BullMQ's disconnect, for an 'end' that ioredis does not emit while it
   * is between reconnection attempts.
   */
  async close(force = false): Promise<void> {
    const closing = force ? [this.events.disconnect(), this.queue.disconnect()] : [this.events.close(), this.queue.close()];
    const settled = Promise.allSettled(closing);
    if (!force) await settled;
  }
}

/** Runs commit jobs in this process (every instance by default, or `npm run worker`). */
export class CommitWorker {
  private readonly worker: Worker;
  private readonly beacon: WorkerBeacon;

  constructor(s: QueueSettings, store: ClusterBus, config: ConfigService<unknown>, log: Logger) {
    this.worker = new Worker(QUEUE, (job: Job) => runJob(job.data as CommitJob, store, config), {
      connection: connection(s.redis, false),
      prefix: prefixOf(s.clusterName),
      concurrency: 1,
      // a worker that died is noticed within seconds; a live one renews its lock while it compiles
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 3,
    });
    this.worker.on('error', (e) => log.warn({ err: e.message }, 'commit worker: Redis error'));
    this.worker.on('failed', (job, e) => log.error({ job: job?.id, err: e.message }, 'commit job failed'));
    this.beacon = new WorkerBeacon(store, `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`, log);
  }

  /** Ready to take jobs, and known to the registry as alive. */
  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
    await this.beacon.start();
  }

  /**
   * Stops taking jobs and lets the one in progress finish; `force` (Redis unreachable: it
   * could not finish) drops the connections at once, and BullMQ hands the job to another
   * worker once its lock expires, as after a crash.
   */
  async close(force = false): Promise<void> {
    const leaving = this.beacon.close(); // no new commit counts on this worker
    if (!force) await leaving;
    await this.worker.close(force);
  }
}

async function runJob(job: CommitJob, store: ClusterBus, config: ConfigService<unknown>): Promise<Outcome> {
  try {
    // a job retried after its worker died may find its own commit already made
    const done = await store.committedVersion(job.sessionId, job.journalLength);
    if (done !== undefined) return { version: done, warnings: [] };
    return await config.commitJob(job);
  } catch (e) {
    if (isFwError(e)) return { error: { code: e.code, details: e.details, message: e.message } };
    throw e;
  }
}
