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
import { SVC_MAX } from './sets';

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
 * Copies `tree` of `old` into `mem` with its refs, rule indices and pool offsets moved, and
 * without the leaf entries of the rules `drop` marks (by previous position: rules deleted or
 * changed, whose new version is in another tree); returns its range there, or null when it
 * cannot be copied so (a rule whose new position no longer fits an inline entry, a dropped
 * rule that covers a leaf): then the caller builds the tree.
 */
export function relocateTree(old: Int32Array, tree: TreeRange, mem: GrowI32, v4: boolean, moves: RuleMoves, drop?: Uint8Array): TreeRange | null {
  const len = tree.end - tree.start;
  const at0 = mem.reserve(len);
  const m = mem.buf;
  m.set(old.subarray(tree.start, tree.end), at0);
  const delta = at0 - tree.start;
  let dropped = 0; // leaf entries left out
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
    // a leaf: [count, entries]; the entries of dropped rules are left out (the kept ones close
    // up), unless one covers the leaf: the builder may have cut the rules after it, which a
    // leaf without it would need (then the tree is built)
    const n = old[off];
    const stride = v4 ? Layout.LeafStride4 : Layout.LeafStride6;
    let kept = 0;
    for (let e = off + 1, end = e + n * stride; e < end; e += stride) {
      const to = o + 1 + kept * stride;
      if (v4) {
        const w = old[e];
        if (w >= 0) {
          const at = w >>> Layout.RuleShift;
          if (drop && drop[at] === 1) {
            if ((w & ((1 << Layout.RuleShift) - 1)) === 0 && old[e + 3] === 0 && old[e + 4] === SVC_MAX) return abandon(mem, at0);
            dropped++;
            continue;
          }
          const rule = pos[at];
          if (rule >= INLINE_RULES) return abandon(mem, at0);
          m.copyWithin(to, e + delta, e + delta + stride);
          m[to] = (rule << Layout.RuleShift) | (w & ((1 << Layout.RuleShift) - 1));
        } else {
          const rule = ~w;
          const rec = old[e + 1];
          if (drop && drop[rule] === 1) {
            if (old[rec + 1] === 0 && old[rec + 3] === 0 && old[rec + 5] === 0) return abandon(mem, at0);
            dropped++;
            continue;
          }
          m.copyWithin(to, e + delta, e + delta + stride);
          m[to] = ~pos[rule];
          m[to + 1] = rec + delta;
          moveRuns(m, rec + delta, old, rec, src[rule], dst[rule], svc[rule]);
        }
      } else {
        const rule = old[e];
        if (drop && drop[rule] === 1) {
          if (old[e + 2] === 0 && old[e + 4] === 0 && old[e + 6] === 0) return abandon(mem, at0);
          dropped++;
          continue;
        }
        m.copyWithin(to, e + delta, e + delta + stride);
        m[to] = pos[rule];
        moveRuns(m, to + 1, old, e + 1, src[rule], dst[rule], svc[rule]);
      }
      kept++;
    }
    m[o] = kept;
  }
  return { root: moveRef(tree.root), start: at0, end: at0 + len, entries: tree.entries - dropped };
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
