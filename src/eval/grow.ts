// A growing Int32Array: the tree builder's output (tree.ts) and the pools and columns of a
// FamilyTable (rules.ts). Typed, so that a table of 20,000 rules does not go through JS
// arrays of boxed-size slots and their copies on growth (rules.ts used number[] and
// Int32Array.from: a sizeable part of a commit's garbage).
export class GrowI32 {
  buf: Int32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.buf = new Int32Array(capacity);
  }
  reserve(n: number): number {
    const at = this.length;
    if (at + n > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < at + n) cap *= 2;
      const b = new Int32Array(cap);
      b.set(this.buf.subarray(0, at));
      this.buf = b;
    }
    this.length += n;
    return at;
  }
  /** room for `n` elements in all, without growing on the way there */
  ensureCapacity(n: number): void {
    if (n <= this.buf.length) return;
    const b = new Int32Array(n);
    b.set(this.buf.subarray(0, this.length));
    this.buf = b;
  }
  /** stored as an int32 (ToInt32, as `v | 0`) */
  push(v: number): void {
    const at = this.reserve(1);
    this.buf[at] = v;
  }
  done(): Int32Array {
    return this.buf.slice(0, this.length);
  }
}
