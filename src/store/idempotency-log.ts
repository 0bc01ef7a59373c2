// The embedded store's idempotency keys: claims in memory (a restart ends the requests that
// held them), saved answers also in idempotency.log, one JSON line each, durable before the
// answer is sent, so a client retrying after a restart still gets its first answer. At open
// the file is read and rewritten without the expired lines, and again while the daemon runs
// once it holds more stale lines than live ones (a daemon lives for months: every keyed
// request adds a line, and the file must not grow with them).
import { GroupAppender, atomicWriteFile, cutPartialLastLine, readJsonLines, replaceAppendLog } from './files';
import type { IdempotencyRecord, StoredAnswer } from './types';

interface Held extends IdempotencyRecord {
  /** unix ms after which the key is free again */
  until: number;
}

interface Line {
  scope: string;
  fingerprint: string;
  answer: StoredAnswer;
  until: number;
}

/** Expired keys are swept after this many claims. */
const SWEEP_EVERY = 1024;
/** The file is not compacted below this many lines (a rewrite per few saves would cost more
 * than the lines it drops). */
const COMPACT_FROM = 1024;

export class IdempotencyLog {
  private readonly held = new Map<string, Held>();
  private appender: GroupAppender | null = null;
  private claims = 0;
  /** lines in the file: kept answers and the stale lines of expired or replaced ones */
  private lines = 0;
  private compaction: Promise<void> | null = null;

  constructor(private readonly file: string, private readonly onFailure: (e: Error) => void) {}

  async open(): Promise<void> {
    await cutPartialLastLine(this.file).catch(() => 0);
    const now = Date.now();
    const read = await readJsonLines(this.file);
    for (const v of (read?.values ?? []) as Line[]) {
      if (v.until > now) this.held.set(v.scope, { fingerprint: v.fingerprint, answer: v.answer, until: v.until });
    }
    const kept = this.keptLines(now);
    this.lines = kept.length;
    await atomicWriteFile(this.file, kept.join(''));
    this.appender = GroupAppender.open(this.file, this.onFailure);
  }

  /** Waits for a compaction under way, drains, closes the file. */
  async close(): Promise<void> {
    await this.compaction;
    await this.appender?.close();
  }

  /** The lines of the answers still kept (claims of running requests are memory only). */
  private keptLines(now: number): string[] {
    const out: string[] = [];
    for (const [scope, h] of this.held) {
      if (h.answer !== null && h.until > now) out.push(`${JSON.stringify({ scope, fingerprint: h.fingerprint, answer: h.answer, until: h.until })}\n`);
    }
    return out;
  }

  /**
   * Rewrites the file with the kept answers once most of its lines are stale. Saves go on
   * meanwhile (replaceAppendLog): one made before the rewrite is in the kept lines, one made
   * after is appended to the new file.
   */
  private compactWhenStale(): void {
    if (this.compaction || this.lines < COMPACT_FROM || this.lines < 2 * this.held.size) return;
    const { appender, done } = replaceAppendLog(this.appender!, this.file, () => {
      const kept = this.keptLines(Date.now());
      this.lines = kept.length; // saves to the new appender count on from here
      return kept.join('');
    }, this.onFailure);
    this.appender = appender;
    this.compaction = done.catch((e: unknown) => this.onFailure(e instanceof Error ? e : new Error(String(e)))).finally(() => {
      this.compaction = null;
    });
  }

  claim(scope: string, fingerprint: string, leaseMs: number): IdempotencyRecord | null {
    const now = Date.now();
    if (++this.claims % SWEEP_EVERY === 0) this.sweep(now);
    const h = this.held.get(scope);
    if (h && h.until > now) return { fingerprint: h.fingerprint, answer: h.answer };
    this.held.set(scope, { fingerprint, answer: null, until: now + leaseMs });
    return null;
  }

  async save(scope: string, fingerprint: string, answer: StoredAnswer, ttlMs: number): Promise<void> {
    const until = Date.now() + ttlMs;
    await this.appender!.append(`${JSON.stringify({ scope, fingerprint, answer, until })}\n`);
    this.lines++;
    this.held.set(scope, { fingerprint, answer, until });
    this.compactWhenStale(); // held is swept of expired keys every SWEEP_EVERY claims
  }

  release(scope: string, fingerprint: string): void {
    const h = this.held.get(scope);
    if (h && h.answer === null && h.fingerprint === fingerprint) this.held.delete(scope);
  }

  private sweep(now: number): void {
    for (const [scope, h] of this.held) if (h.until <= now) this.held.delete(scope);
  }
}
