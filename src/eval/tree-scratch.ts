// The tree builder's scratch (tree.ts): a stack of Int32Array words its cuts take and give
// back, and the lists a cut keeps per child. Apart from the builder so that tree.ts keeps to
// the cutting itself.

/**
 * The cuts' scratch arrays (a cut's lists per child, the children it writes out), taken and
 * given back in stack order: a cut takes its arrays, builds its children (whose cuts take
 * theirs above), and gives them back. A new Int32Array per cut was ~4 allocations of an ArrayBuffer
 * for each of ~15,000 cuts a commit at 20,000 policies, the largest part of the tree build's
 * own time. The words taken are not zeroed: a cut writes every one it reads.
 */
export class Stack {
  private buf = new Int32Array(1 << 16);
  top = 0;
  /** A view of n words. When the buffer is full a larger one takes over: the views taken
   * before keep the old one, whose words they alone use. */
  take(n: number): Int32Array {
    if (this.top + n > this.buf.length) this.buf = new Int32Array(Math.max(2 * this.buf.length, this.top + n));
    const v = this.buf.subarray(this.top, this.top + n);
    this.top += n;
    return v;
  }
}

/** Rule i's 6 run words into rule slot k of `to` (a subarray and set() per copy allocated a
 * view each time: a few hundred thousand of them per commit at 20,000 policies). */
export function copyRun(from: Int32Array, i: number, to: Int32Array, k: number): void {
  for (let w = 0; w < 6; w++) to[k * 6 + w] = from[i * 6 + w];
}

/** A cut's per-child lists (TreeBuilder.cut in tree.ts): the parent's rows and runs, the rows covering field
 * d, and per listed entry its row and run in d. */
export interface ChildLists {
  rules: Int32Array;
  runs: Int32Array;
  d: number;
  cov: Int32Array;
  nCov: number;
  row: Int32Array;
  first: Int32Array;
  end: Int32Array;
}

/** Is the list [a, b) (the child before) the same as the n entries from b (the same rules,
 * the same runs)? */
export function sameList(l: ChildLists, a: number, b: number, n: number): boolean {
  if (b - a !== n) return false;
  for (let i = 0; i < n; i++) if (l.row[a + i] !== l.row[b + i] || l.first[a + i] !== l.first[b + i] || l.end[a + i] !== l.end[b + i]) return false;
  return true;
}
