// Where a commit's time went, for its log line: an operator who sees a slow commit reads which
// step it was (checks, compile, data plane, store) instead of guessing; the commit benchmarks
// read the same line.
export class PhaseClock {
  private last = performance.now();
  private readonly start = this.last;
  readonly ms: Record<string, number> = {};

  /** The time since the previous mark (or the start), recorded as `phase`. */
  mark(phase: string): void {
    const now = performance.now();
    this.ms[phase] = Math.round((this.ms[phase] ?? 0) + now - this.last);
    this.last = now;
  }

  /** Every phase, and their total. */
  done(): Record<string, number> {
    return { ...this.ms, total: Math.round(performance.now() - this.start) };
  }
}
