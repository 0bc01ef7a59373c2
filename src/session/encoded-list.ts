// A list answer (a JSON array) encoded a slice of items at a time. A running version's list is
// encoded as it is first streamed (src/api/list-reply.ts) and kept, so the first reader of a
// 100,000-policy list gets its first bytes after one slice rather than after the whole 40 MB,
// and later readers write the kept bytes. Slices are built on demand, in order or not: two
// readers streaming at once share them. A big list's bytes are kept only while it is being
// read (KEEP_MS after its last slice was asked for): at 100,000 policies they were 45 MB of
// the daemon's RSS for the life of the version, for a read that takes ~0.5 s of CPU to
// encode again and whose first byte never waits for more than one slice anyway.
import { threadGarbage } from '../idle-gc';

/** Items per slice: small enough that one slice renders in milliseconds. */
export const SLICE_ITEMS = 500;
/** A list of this many slices or more (10,000 items) keeps its bytes only while read, and is
 * collected after (idle-gc.ts). */
const BIG_SLICES = 20;
/** How long a big list's bytes outlive its last read: a burst of readers, or a client paging
 * through it, share one encoding. */
export const KEEP_MS = 10_000;

export class EncodedList<T = unknown> {
  private readonly slices: Array<Buffer | undefined>;
  private dropTimer: NodeJS.Timeout | null = null;
  /** encoded whole up front (encodeAll): kept, since its items may change after */
  private pinned = false;

  constructor(private readonly items: readonly T[], private readonly render: (item: T) => unknown, private readonly keepMs = KEEP_MS) {
    this.slices = new Array<Buffer | undefined>(Math.max(1, Math.ceil(items.length / SLICE_ITEMS)));
  }

  get sliceCount(): number {
    return this.slices.length;
  }

  /** Slices encoded and kept now. */
  get keptSlices(): number {
    return this.slices.filter((b) => b !== undefined).length;
  }

  /** The i-th slice's bytes: "[" before the first item, "," between items, "]" after the last. */
  slice(i: number): Buffer {
    if (this.slices.length >= BIG_SLICES && !this.pinned) this.keepAWhile();
    let b = this.slices[i];
    if (b === undefined) {
      const from = i * SLICE_ITEMS;
      const to = Math.min(this.items.length, from + SLICE_ITEMS);
      const parts: string[] = [];
      for (let k = from; k < to; k++) parts.push(JSON.stringify(this.render(this.items[k])));
      b = Buffer.from(`${i === 0 ? '[' : ','}${parts.join(',')}${i === this.slices.length - 1 ? ']' : ''}`);
      this.slices[i] = b;
      // a big list's rendering leaves tens of MB of strings behind (idle-gc.ts)
      if (i === this.slices.length - 1 && this.slices.length >= BIG_SLICES) threadGarbage.touch();
    }
    return b;
  }

  /** Encodes every slice now (a list whose items may change after this call: the candidate's). */
  encodeAll(): this {
    this.pinned = true;
    if (this.dropTimer) clearTimeout(this.dropTimer);
    this.dropTimer = null;
    for (let i = 0; i < this.slices.length; i++) this.slice(i);
    return this;
  }

  /** A big list's bytes are dropped keepMs after this (the last read); they are encoded again if asked. */
  private keepAWhile(): void {
    if (this.dropTimer) {
      this.dropTimer.refresh();
      return;
    }
    this.dropTimer = setTimeout(() => {
      this.dropTimer = null;
      this.slices.fill(undefined);
      threadGarbage.touch();
    }, this.keepMs);
    this.dropTimer.unref();
  }
}
