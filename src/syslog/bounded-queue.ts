// A first-in first-out queue of fixed capacity on a ring: push and shift cost the same however
// full it is (an array's shift copies the rest), and it never holds more than its capacity.

export class BoundedQueue<T> {
  private readonly items: Array<T | undefined>;
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Appends `item`; false (nothing kept) when the queue is full. */
  push(item: T): boolean {
    if (this.count === this.capacity) return false;
    this.items[(this.head + this.count) % this.capacity] = item;
    this.count++;
    return true;
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    return item;
  }
}
