// A readers-writer gate for the candidate of one process. Changes are "shared": many may be
// in flight at once (their appends pipeline to the store, which orders them by its
// compare-and-set). Rebuilding the candidate from the store is "exclusive": it waits for the
// appends in flight to settle, and new changes wait for it, so a rebuild never races an
// append whose entry it cannot see yet. Waiting writers go first (no starvation).
export class Gate {
  private shared = 0;
  private exclusive = false;
  private waitingExclusive = 0;
  private readonly queue: Array<() => void> = [];

  async runShared<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusive || this.waitingExclusive > 0) await this.wait();
    this.shared++;
    try {
      return await fn();
    } finally {
      this.shared--;
      this.wake();
    }
  }

  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.waitingExclusive++;
    try {
      while (this.exclusive || this.shared > 0) await this.wait();
    } finally {
      this.waitingExclusive--;
    }
    this.exclusive = true;
    try {
      return await fn();
    } finally {
      this.exclusive = false;
      this.wake();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** Wakes every waiter; each re-checks its own condition. */
  private wake(): void {
    for (const resolve of this.queue.splice(0)) resolve();
  }
}
