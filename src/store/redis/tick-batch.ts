// What arrives within one turn of the event loop, handed over in one call: the audit entries
// of many concurrent changes become one script call instead of one round trip each.
/** Items per call at most (one script's arguments stay small). */
const MAX_BATCH = 512;

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class TickBatch<T> {
  private waiting: Array<Waiting<T>> = [];

  /** `send` writes a batch, all or nothing: each item's promise settles with it. */
  constructor(private readonly send: (items: T[]) => Promise<unknown>) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.waiting.push({ item, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const all = this.waiting.splice(0);
    for (let i = 0; i < all.length; i += MAX_BATCH) {
      const batch = all.slice(i, i + MAX_BATCH);
      this.send(batch.map((w) => w.item)).then(
        () => { for (const w of batch) w.resolve(); },
        (e: unknown) => { for (const w of batch) w.reject(e); },
      );
    }
  }
}
