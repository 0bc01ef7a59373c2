// The compile worker pool. The HTTP thread never compiles: compile() serializes the document,
// a piscina worker builds the tables and the analysis, and the reply's buffer is wrapped in
// place as a CompiledConfig. The queue is bounded: a full one is 503 ERR_SYS_4002 at once.
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { DocDelta } from '../config/doc-delta';
import type { ConfigDoc } from '../config/types';
import { ERRORS, FwError, type ErrorCode } from '../errors';
import { CompiledConfig } from '../eval/compiled';
import type { CompileReply, CompileTask } from './compile-worker';
import { DocFeed } from './doc-feed';

export interface CompilePoolOptions {
  maxThreads?: number; // default: cores - 1, at least 1, at most 4
  maxQueue?: number; // tasks waiting for a thread; default 16
  idleTimeout?: number; // ms before an idle thread past the first exits; default 60 s
}

/**
 * The young generation of a compile or analysis thread: 16 MB instead of V8's 48 MB. Each
 * thread compiles or analyzes whole configurations, allocating tens of MB a task; with the
 * default every such thread keeps its young generation grown to the maximum, which the
 * process's RSS carries between commits (soak: RSS 221-239 MB against 252-300 with the
 * default). 8 MB cost scavenges: a profile of the grouped 20,000-policy commit spent 12 % of
 * the compile thread in the collector, and 16 MB made that commit 2.09 -> 1.85 s for
 * 5-10 MB of RSS in the soak (docs/performance.md, "The young generation of the threads").
 */
export const WORKER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 16 };

/**
 * How an idle compile or analysis thread waits for its next task: on Atomics.waitAsync, so its
 * event loop runs meanwhile (piscina's default, a blocking Atomics.wait, stops the thread's
 * timers and V8's own idle work: its collection after a task (idle-gc.ts) never ran).
 */
export const WORKER_ATOMICS = 'async' as const;

export class CompilePool {
  private readonly pool: Piscina<CompileTask, CompileReply>;
  /** the documents sent to the threads */
  private readonly feed = new DocFeed();

  constructor(opts: CompilePoolOptions = {}) {
    const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
    this.pool = new Piscina<CompileTask, CompileReply>({
      filename: path.join(__dirname, 'compile-worker.js'),
      // one thread lives as long as the pool: it holds the running version's document and its
      // last build, which make a commit compile only what changed. With none kept, a commit
      // more than idleTimeout after the one before found a new thread and built everything
      // (1.6 s instead of 0.1-0.3 at 100,000 policies: a firewall's commits are minutes apart)
      minThreads: 1,
      maxThreads: opts.maxThreads ?? Math.max(1, Math.min(4, cores - 1)),
      maxQueue: opts.maxQueue ?? 16,
      idleTimeout: opts.idleTimeout ?? 60_000,
      resourceLimits: WORKER_RESOURCE_LIMITS,
      atomics: WORKER_ATOMICS,
    });
  }

  /**
   * Compiles in a worker; rejects with FwError ERR_SYS_4002 when the queue is full. With `base`
   * (a document sent before), only what `doc` changes travels (doc-feed.ts); a thread that no
   * longer holds the base (another thread, or it was ended when idle) asks for the whole
   * document, which is sent then. `delta`: docDelta(base, doc), when the caller has it.
   * `signal`: aborted, the compile is stopped: piscina ends the thread running it (a
   * thread cannot be interrupted otherwise) and starts another, and this rejects at once.
   */
  async compile(doc: ConfigDoc, base?: ConfigDoc, delta?: DocDelta, signal?: AbortSignal): Promise<CompiledConfig> {
    const reply = await this.feed.send(doc, base, (task) => this.run(task, signal), delta);
    if (!reply.ok) {
      const code = (Object.prototype.hasOwnProperty.call(ERRORS, reply.code) ? reply.code : 'ERR_SYS_4001') as ErrorCode;
      throw new FwError(code, reply.details);
    }
    return CompiledConfig.fromImage({ meta: reply.meta, buffer: reply.buffer }, reply.analysis);
  }

  private async run(task: CompileTask, signal?: AbortSignal): Promise<CompileReply> {
    let reply: CompileReply;
    try {
      reply = await this.pool.run(task, signal ? { signal } : undefined);
    } catch (e) {
      if (signal?.aborted) throw signal.reason instanceof FwError ? signal.reason : new FwError('ERR_SYS_4004', 'the compile was stopped');
      const msg = e instanceof Error ? e.message : String(e);
      if (/queue is at limit|No task queue available/.test(msg)) {
        throw new FwError('ERR_SYS_4002', 'compile queue is full, retry later', undefined, { 'Retry-After': '1' });
      }
      throw new FwError('ERR_SYS_4001', `compile worker failed: ${msg}`);
    }
    if (typeof reply !== 'object' || reply === null || typeof reply.ok !== 'boolean') {
      throw new FwError('ERR_SYS_4001', 'compile worker gave a malformed reply');
    }
    return reply;
  }

  /** Compiles sent with the whole document, and as the changes from one a thread holds. */
  get sends(): { whole: number; delta: number } {
    return { ...this.feed.counts };
  }

  /** The compile threads alive (tests: an aborted compile's thread is gone). */
  get threadIds(): number[] {
    return this.pool.threads.map((t) => t.threadId);
  }

  /** Tasks waiting for a thread. */
  get queueSize(): number {
    return this.pool.queueSize;
  }

  /** Finishes the compiles in flight, then stops the threads. */
  async close(): Promise<void> {
    await this.pool.close();
  }
}
