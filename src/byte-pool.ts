// Reused memory for large, short-lived byte buffers: the batch eval endpoint's request bodies
// (0.8 MB for 10,000 packets) and answers (2 MB). Memory the process has not written yet is
// paid for page by page: writing a fresh 2 MB buffer costs 0.9-1.5 ms of CPU (page faults),
// writing one already used 0.1 ms; and every fresh ArrayBuffer counts towards the external
// memory that starts full garbage collections. A pool keeps a few buffers for good.

export class BytePool {
  private readonly free: ArrayBuffer[] = [];
  /** the buffers this pool made: only those are taken back */
  private readonly made = new WeakSet<ArrayBufferLike>();

  /** `keep`: how many released buffers are held (one per request in flight at the same time). */
  constructor(private readonly keep: number) {}

  /** A buffer of at least `size` bytes (a released one when one is large enough; a new one is
   * rounded up to a power of two, so that answers of about the same size reuse it). Its bytes
   * are whatever was written before. */
  take(size: number): ArrayBuffer {
    const free = this.free;
    // the smallest that fits: a small body does not take the memory a large one will need
    let best = -1;
    for (let i = 0; i < free.length; i++) {
      if (free[i].byteLength >= size && (best < 0 || free[i].byteLength < free[best].byteLength)) best = i;
    }
    if (best >= 0) return this.remove(best);
    // none fits: the smallest gives way to the larger buffer made now
    if (free.length > 0) this.remove(free.reduce((m, b, i) => (b.byteLength < free[m].byteLength ? i : m), 0));
    const b = new ArrayBuffer(2 ** Math.ceil(Math.log2(Math.max(size, 1024))));
    this.made.add(b);
    return b;
  }

  private remove(i: number): ArrayBuffer {
    const b = this.free[i];
    this.free[i] = this.free[this.free.length - 1];
    this.free.pop();
    return b;
  }

  /** Gives back the memory under `bytes` (a view of a buffer take() returned; anything else is
   * ignored, and so is a second release). Nothing may read or write it after. */
  release(bytes: Uint8Array): void {
    const b = bytes.buffer;
    if (!this.made.has(b) || this.free.length >= this.keep || this.free.includes(b as ArrayBuffer)) return;
    this.free.push(b as ArrayBuffer);
  }
}
