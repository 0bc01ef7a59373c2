// The relocating copy of a built tree (issue 30, incremental compile): a tree of the previous
// build whose rules are the same RuleSpec objects in the same order is copied into the new
// build's `mem` instead of being built again. A tree's words are one contiguous range of the
// mem it was built in (TreeBuilder appends while it builds one tree, and a build it gives up
// is cut off again), plus refs to the shared empty leaf at offset 0; inside the range, what
// must change is:
//   - node refs (offsets) and leaf refs (~offset), including a hash node's default child: the
//     range moved by `delta`;
//   - rule indices (inline entries' rule << RuleShift, runs entries' ~rule, IPv6 entries'
//     rule): the rule's position in the new table (insertions and deletions elsewhere shift
//     it; the order within the tree is the same, so the first-match order in its leaves holds);
//   - pool offsets in runs records and IPv6 entries: the rule's sets are the same sets but
//     their runs sit elsewhere in the new table's pools (numbered in order of first use).
// Inline values (prefix words and lengths, service bounds) and hash keys stay as they are.
// The walk starts at the root and visits each node and leaf once (cuts share one subtree
// among equal children, and a hash node's default child among its empty slots).
import type { GrowI32 } from './grow';
import { INLINE_RULES, Layout } from './tree-layout';

/** Where a tree sits in the mem it was built in. */
export interface TreeRange {
  root: number; // a ref: >= 0 a node, < 0 ~leaf (-1: the shared empty leaf)
  start: number;
  end: number;
  entries: number; // leaf entries (TreeBuilder.entries: the memory valve counts them)
}

/** Per rule position of the previous table: its position in the new one, and how far each of
 * its runs moved in the pools (source and destination prefixes, service intervals). */
export interface RuleMoves {
  pos: Int32Array;
  src: Int32Array;
  dst: Int32Array;
  svc: Int32Array;
}

/**
 * Copies `tree` of `old` into `mem` with its refs, rule indices and pool offsets moved;
 * returns its range there, or null when it cannot be copied as it is (a rule whose new
 * position no longer fits an inline entry): then the caller builds the tree.
 */
export function relocateTree(old: Int32Array, tree: TreeRange, mem: GrowI32, v4: boolean, moves: RuleMoves): TreeRange | null {
  const len = tree.end - tree.start;
  const at = mem.reserve(len);
  const m = mem.buf;
  m.set(old.subarray(tree.start, tree.end), at);
  const delta = at - tree.start;
  const seen = new Uint8Array(len);
  const moveRef = (ref: number) => (ref >= 0 ? ref + delta : ref === -1 ? -1 : ~(~ref + delta));
  const { pos, src, dst, svc } = moves;
  // an explicit stack of old refs (trees are shallow, but a cut has up to 4,096 children)
  const todo: number[] = [tree.root];
  while (todo.length > 0) {
    const ref = todo.pop()!;
    if (ref === -1) continue;
    const off = ref >= 0 ? ref : ~ref;
    if (seen[off - tree.start] === 1) continue;
    seen[off - tree.start] = 1;
    const o = off + delta;
    if (ref >= 0) {
      const h = old[off];
      if (h >= 0) {
        for (let c = off + 1, e = c + 1 + (h >>> 9); c < e; c++) {
          m[c + delta] = moveRef(old[c]);
          todo.push(old[c]);
        }
      } else {
        const slots = 2 ** (32 - old[off + 2]);
        m[o + 3] = moveRef(old[off + 3]);
        todo.push(old[off + 3]);
        for (let s = 0; s < slots; s++) {
          const c = off + 5 + 2 * s;
          m[c + delta] = moveRef(old[c]);
          todo.push(old[c]);
        }
      }
      continue;
    }
    // a leaf: [count, entries]
    const n = old[off];
    if (v4) {
      for (let e = off + 1, end = e + n * Layout.LeafStride4; e < end; e += Layout.LeafStride4) {
        const w = old[e];
        if (w >= 0) {
          const rule = pos[w >>> Layout.RuleShift];
          if (rule >= INLINE_RULES) return abandon(mem, at);
          m[e + delta] = (rule << Layout.RuleShift) | (w & ((1 << Layout.RuleShift) - 1));
        } else {
          const rule = ~w;
          m[e + delta] = ~pos[rule];
          const rec = old[e + 1];
          m[e + 1 + delta] = rec + delta;
          moveRuns(m, rec + delta, old, rec, src[rule], dst[rule], svc[rule]);
        }
      }
    } else {
      for (let e = off + 1, end = e + n * Layout.LeafStride6; e < end; e += Layout.LeafStride6) {
        const rule = old[e];
        m[e + delta] = pos[rule];
        moveRuns(m, e + 1 + delta, old, e + 1, src[rule], dst[rule], svc[rule]);
      }
    }
  }
  return { root: moveRef(tree.root), start: at, end: at + len, entries: tree.entries };
}

/** (srcOff, srcCnt, dstOff, dstCnt, svcOff, svcCnt) at `from` of old, moved, at `to` of m
 * (a count of 0: the field covers the leaf, its offset is not read). */
function moveRuns(m: Int32Array, to: number, old: Int32Array, from: number, ds: number, dd: number, dv: number): void {
  if (old[from + 1] !== 0) m[to] = old[from] + ds;
  if (old[from + 3] !== 0) m[to + 2] = old[from + 2] + dd;
  if (old[from + 5] !== 0) m[to + 4] = old[from + 4] + dv;
}

function abandon(mem: GrowI32, at: number): null {
  mem.length = at;
  return null;
}
