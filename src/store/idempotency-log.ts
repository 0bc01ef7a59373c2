// The embedded store's idempotency keys: claims in memory (a restart ends the requests that
// held them), saved answers also in idempotency.log, one JSON line each, durable before the
// answer is sent, so a client retrying after a restart still gets its first answer. At open
// the file is read and rewritten without the expired lines.
import { GroupAppender, atomicWriteFile, cutPartialLastLine, readJsonLines } from './files';
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

export class IdempotencyLog {
  private readonly held = new Map<string, Held>();
  private appender: GroupAppender | null = null;
  private claims = 0;

  constructor(private readonly file: string, private readonly onFailure: (e: Error) => void) {}

  async open(): Promise<void> {
    await cutPartialLastLine(this.file).catch(() => 0);
    const now = Date.now();
    const read = await readJsonLines(this.file);
    for (const v of (read?.values ?? []) as Line[]) {
      if (v.until > now) this.held.set(v.scope, { fingerprint: v.fingerprint, answer: v.answer, until: v.until });
    }
    const kept = [...this.held].map(([scope, h]) => `${JSON.stringify({ scope, fingerprint: h.fingerprint, answer: h.answer, until: h.until })}\n`);
    await atomicWriteFile(this.file, kept.join(''));
    this.appender = GroupAppender.open(this.file, this.onFailure);
  }

  async close(): Promise<void> {
    await this.appender?.close();
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
    this.held.set(scope, { fingerprint, answer, until });
  }

  release(scope: string, fingerprint: string): void {
    const h = this.held.get(scope);
    if (h && h.answer === null && h.fingerprint === fingerprint) this.held.delete(scope);
  }

  private sweep(now: number): void {
    for (const [scope, h] of this.held) if (h.until <= now) this.held.delete(scope);
  }
}
