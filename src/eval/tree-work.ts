// The counted work of lookups in one built tree, on sample points of its own rules: what
// TreeBuilder compares to choose between a tree with hash nodes and one without (tree.ts).
// A regular level counts 1, a hash node HASH_COST plus 1 per extra probe, a leaf entry 1 (up
// to and including the first that matches), the measure that kept hash nodes off fw1's trees
// (where they made leaves longer) and on acl1's (where they took 20 levels down to 3).
import { rng } from './prng';
import type { FamilyTable } from './rules';
import { Layout, hashSlot } from './tree-layout';

const HASH_COST = 3; // its header, the key's words and a probe: three levels' loads

/** Up to `max` points, one in each of evenly spaced rows of `rows`, and a fifth of uniform
 * points: q words as in FamilyClassifier (src 0..3, dst 4..7, service 8), 9 per point. */
export function samplePoints(t: FamilyTable, rows: readonly number[], max: number, seed = 1): Int32Array {
  const step = Math.max(1, rows.length / max);
  const n = Math.min(rows.length, max);
  const uniform = Math.ceil(n / 4); // and a fifth of all uniform points: misses cost too
  const out = new Int32Array((n + uniform) * 9);
  const rand = rng(seed);
  const word = () => (rand() * 4294967296) | 0;
  for (let at = n * 9; at < out.length; at += 9) {
    for (let w = 0; w < 8; w++) out[at + w] = w % 4 < t.nw ? word() : 0;
    out[at + 8] = word() & 0xffffff;
  }
  for (let k = 0; k < n; k++) {
    const r = rows[Math.floor(k * step)];
    const at = k * 9;
    for (const [off, cnt, qw] of [[t.srcOff[r], t.srcCnt[r], 0], [t.dstOff[r], t.dstCnt[r], 4]]) {
      const e = off + Math.floor(rand() * cnt); // one of the field's prefixes (cnt 0: any)
      for (let w = 0; w < t.nw; w++) out[at + qw + w] = cnt === 0 ? word() : (t.addrWords[e * t.nw + w] & t.addrMask[e * t.nw + w]) | (word() & ~t.addrMask[e * t.nw + w]);
    }
    const iv = t.svcOff[r] + Math.floor(rand() * t.svcCnt[r]);
    out[at + 8] = t.svcCnt[r] === 0 ? word() & 0xffffff : t.svcLo[iv] + Math.floor(rand() * (t.svcHi[iv] - t.svcLo[iv] + 1));
  }
  return out;
}

/** Does row r of the table match point q (words at `at`)? */
function matches(t: FamilyTable, r: number, q: Int32Array, at: number): boolean {
  const inAddr = (off: number, cnt: number, qw: number) => {
    if (cnt === 0) return true;
    next: for (let e = off; e < off + cnt; e++) {
      for (let w = 0; w < t.nw; w++) if (((q[at + qw + w] ^ t.addrWords[e * t.nw + w]) & t.addrMask[e * t.nw + w]) !== 0) continue next;
      return true;
    }
    return false;
  };
  if (!inAddr(t.srcOff[r], t.srcCnt[r], 0) || !inAddr(t.dstOff[r], t.dstCnt[r], 4)) return false;
  if (t.svcCnt[r] === 0) return true;
  const v = q[at + 8];
  for (let e = t.svcOff[r]; e < t.svcOff[r] + t.svcCnt[r]; e++) if (v >= t.svcLo[e] && v <= t.svcHi[e]) return true;
  return false;
}

/** Total counted work of looking up every point in the tree at `root`. `rowOf` maps a
 * rule index (what leaves hold) to its table row. */
export function treeWork(t: FamilyTable, nodes: Int32Array, root: number, points: Int32Array, rowOf: Map<number, number>): number {
  let work = 0;
  for (let at = 0; at < points.length; at += 9) {
    let ref = root;
    while (ref >= 0) {
      const h = nodes[ref];
      const x = (points[at + (h & 15)] >>> ((h >>> 4) & 31)) & (h >= 0 ? h >>> 9 : nodes[ref + 1]);
      if (h >= 0) {
        ref = nodes[ref + 1 + x];
        work++;
        continue;
      }
      const hs = nodes[ref + 2], s = hashSlot(nodes, ref, x);
      work += HASH_COST + ((s - (Math.imul(x, Layout.HashMul) >>> hs)) & (-1 >>> hs)); // + extra probes
      ref = nodes[ref + 5 + 2 * s];
    }
    const o = ~ref;
    const stride = t.nw === 1 ? Layout.LeafStride4 : Layout.LeafStride6;
    for (let k = 0; k < nodes[o]; k++) {
      work++;
      const w = nodes[o + 1 + k * stride];
      const rule = w < 0 ? ~w : t.nw === 1 ? w >>> Layout.RuleShift : w;
      if (matches(t, rowOf.get(rule)!, points, at)) break;
    }
  }
  return work;
}
