// The layout of a built tree's arrays as the lookups read it (the node, hash node and leaf
// formats are described at the top of tree.ts): its constants and the hash node's probe. A
// module of its own so that the builder (tree.ts), the counted work of a tree (tree-work.ts)
// and the lookups (classifier.ts) share it without importing one another in a cycle.

/** The lookup's constants, as a const enum: TypeScript writes their values where they are
 * used, where an exported const would be read from the module's exports object at every use
 * (on the lookup's hot path; the multiplier, past a small integer, even as a boxed number). */
export const enum Layout {
  /** words of an IPv4 leaf entry */
  LeafStride4 = 5,
  /** words of an IPv6 leaf entry */
  LeafStride6 = 7,
  /** an inline IPv4 entry's first word: rule << RuleShift | srcLen << 6 | dstLen */
  RuleShift = 12,
  /** Fibonacci hashing of a hash node's key: Math.imul(key, HashMul) >>> (32 - log2 slots);
   * 0x9e3779b1 as an int32 */
  HashMul = -1640531535,
}

/** Rules of at least this index have IPv4 entries of the runs form (their index does not fit
 * the inline entry's first word beside the two lengths, and that word stays >= 0). */
export const INLINE_RULES = 2 ** (31 - Layout.RuleShift);

/** A hash node's header has this bit (the sign): a walk tells the two kinds of node apart by h < 0. */
export const HASH_NODE = 1 << 31;

/** The slot of hash node `ref` that answers key x: the key's own, or the first empty one
 * (which holds the default child), probed linearly from the key's hash. The IPv6 lookup
 * (classifier.ts tree6) and the counted work (tree-work.ts) call it; the IPv4 lookup writes
 * the same probe out (forest(): V8 did not always inline the call there). */
export function hashSlot(nodes: Int32Array, ref: number, x: number): number {
  // `| 0`: hs >= 1, so both fit an int32, and the optimizer keeps them out of doubles
  const hs = nodes[ref + 2], def = nodes[ref + 3], m = (-1 >>> hs) | 0;
  let s = (Math.imul(x, Layout.HashMul) >>> hs) | 0;
  while (nodes[ref + 4 + 2 * s] !== x && nodes[ref + 5 + 2 * s] !== def) s = (s + 1) & m;
  return s;
}
