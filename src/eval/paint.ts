// Exact first-match painting: which earlier rules take the packets of a rule's space, and
// does any packet of it reach none of them.
//
// A box is three fields of sorted disjoint intervals (source address, destination address,
// service key). Each field of the box is cut into elementary intervals at the boundaries of
// the candidates inside it, so every candidate holds an elementary interval whole or not at
// all. Two fields make a grid of cells; the third (the one with most elementary intervals)
// is a bit set per cell, 32 intervals a word. Candidates paint in rule order: a candidate
// clears its bits in the cells of its rectangle, and every bit it clears is a packet class it
// takes first. A cell with no bit left is skipped from then on (union-find over the cells), so
// each cell's state is decided once, and a wide late rule costs only the cells still open.
// A box whose cell state would pass CELL_WORDS_MAX is halved along its busiest field first.
//
// Zones (bit sets: bit 0 "none", bit z zone z) come on top (paintRegion): zone values that no
// candidate tells apart are one class, each pair of classes is a box problem over the
// candidates of that pair, and pairs with the same candidates share one answer.
import type { Interval } from './sets';
import { bitsOf, intersect, meets, within, type Region } from './coverage';
import { axis } from './paint-axis';
import type { Work } from './work';

export interface Box {
  s: Interval[];
  d: Interval[];
  v: Interval[];
}

/** A point of a region: zone bits and field values. */
export interface Point {
  zs: number;
  zd: number;
  s: bigint;
  d: bigint;
  v: bigint;
  /** a source port, when the question names some (rule-space.ts parts; painting never sets it) */
  sp?: number;
}

export interface PaintOptions {
  /** candidates whose first taken packet is recorded (for instance: of another action) */
  watch?: (c: number) => boolean;
  /** return at that first packet: `covered` and `takers` are then not known */
  stopOnWatch?: boolean;
}

export interface PaintResult {
  covered: boolean;
  /** candidate indices (ascending) that take some packet */
  takers: number[];
  /** a packet no candidate takes, when not covered */
  uncovered: Point | null;
  /** the first packet taken by a watched candidate */
  watched: { cand: number; at: Point } | null;
}

const FIELDS = ['s', 'd', 'v'] as const;
type Field = (typeof FIELDS)[number];
/** cell state (32-bit words) above which a box is halved first: 16 MB, and 8 bytes a cell */
const CELL_WORDS_MAX = 1 << 22;
/** read once: process.env is a lookup into the environment at every read */
const PAINT_DEBUG = Boolean(process.env.PAINT_DEBUG);

const ctz = (x: number) => 31 - Math.clz32(x & -x);

/** The words and masks of a candidate's runs in the bit-set field. */
function wordMasks(runs: Int32Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs.length; i += 2) {
    const a = runs[i], b = runs[i + 1];
    for (let w = a >> 5; w <= b >> 5; w++) {
      let m = -1;
      if (w === a >> 5) m &= -1 << (a & 31);
      if (w === b >> 5 && (b & 31) !== 31) m &= (1 << ((b & 31) + 1)) - 1;
      out.push(w, m);
    }
  }
  return out;
}

const meetsAll = (c: Box, R: Box) => FIELDS.every((f) => meets(c[f], R[f]));
const holdsAll = (c: Box, R: Box) => FIELDS.every((f) => within(R[f], c[f]));

/** First-match painting of box R by the candidates C (rule order). Exact. */
export function paintBox(R: Box, C: readonly Box[], work: Work, opts: PaintOptions = {}): PaintResult {
  const axes = FIELDS.map((f) => axis(R[f], C.map((c) => c[f]), work));
  const n = axes.map((a) => a.lo.length);
  // the bit-set field is the one with fewest elementary intervals: a cell's state is then a
  // word or two, and a candidate visiting a cell usually finishes it (the other way round, a
  // wide field in bits, every wide rule revisits every open cell's words)
  const z = n[0] <= n[1] && n[0] <= n[2] ? 0 : n[1] <= n[2] ? 1 : 2;
  const [x, y] = [0, 1, 2].filter((k) => k !== z);
  const W = (n[z] + 31) >> 5;
  if (PAINT_DEBUG) console.log('paintBox', n, C.length);
  if (n[x] * n[y] * W > CELL_WORDS_MAX) {
    const f = n[x] >= n[y] ? x : y;
    return halve(R, C, FIELDS[f], BigInt(axes[f].lo[n[f] >> 1]), work, opts);
  }

  const X = axes[x], Y = axes[y], Z = axes[z];
  const nX = n[x], nY = n[y], cells = nX * nY;
  work.spend(cells * (W + 2));
  const rem = new Uint32Array(cells * W);
  const lastMask = (n[z] & 31) === 0 ? -1 : (1 << (n[z] & 31)) - 1;
  if (W === 1) rem.fill(lastMask);
  else {
    rem.fill(-1 >>> 0);
    for (let k = W - 1; k < rem.length; k += W) rem[k] = lastMask;
  }
  const open = new Int32Array(cells).fill(W); // nonzero words of a cell
  const next = new Int32Array(cells + 1); // union-find: the first open cell at or after k
  for (let k = 0; k <= cells; k++) next[k] = k;
  const find = (k: number) => {
    while (next[k] !== k) {
      next[k] = next[next[k]];
      k = next[k];
    }
    return k;
  };
  let remaining = cells;
  const won = new Uint8Array(C.length);
  let watched: PaintResult['watched'] = null;
  const point = (xi: number, yi: number, bit: number): Point => {
    const v = [0n, 0n, 0n];
    // (an axis's values may be numbers: see Axis)
    v[x] = BigInt(X.lo[xi]);
    v[y] = BigInt(Y.lo[yi]);
    v[z] = BigInt(Z.lo[bit]);
    return { zs: 0, zd: 0, s: v[0], d: v[1], v: v[2] };
  };
  const result = (covered: boolean): PaintResult => {
    const takers: number[] = [];
    for (let c = 0; c < C.length; c++) if (won[c]) takers.push(c);
    let uncovered: Point | null = null;
    if (!covered) {
      const k = find(0);
      for (let w = 0; w < W; w++) {
        const bits = rem[k * W + w];
        if (bits !== 0) {
          uncovered = point(Math.floor(k / nY), k % nY, w * 32 + ctz(bits));
          break;
        }
      }
    }
    return { covered, takers, uncovered, watched };
  };

  for (let c = 0; c < C.length; c++) {
    const xr = X.runs[c], yr = Y.runs[c];
    const zw = wordMasks(Z.runs[c]);
    const watch = watched === null && opts.watch !== undefined && opts.watch(c);
    let units = zw.length;
    for (let i = 0; i < xr.length; i += 2) {
      for (let xi = xr[i]; xi <= xr[i + 1]; xi++) {
        const row = xi * nY;
        for (let j = 0; j < yr.length; j += 2) {
          const end = row + yr[j + 1];
          for (let k = find(row + yr[j]); k <= end; k = find(k + 1)) {
            const base = k * W;
            let hit = -1;
            for (let q = 0; q < zw.length; q += 2) {
              const old = rem[base + zw[q]];
              const bits = old & zw[q + 1];
              if (bits === 0) continue;
              if (hit < 0) hit = zw[q] * 32 + ctz(bits);
              const left = old & ~zw[q + 1];
              rem[base + zw[q]] = left;
              if (left === 0) open[k]--;
            }
            units += 2 + zw.length;
            if (hit < 0) continue;
            won[c] = 1;
            if (watch && watched === null) {
              watched = { cand: c, at: point(xi, k - row, hit) };
              if (opts.stopOnWatch) return result(false);
            }
            if (open[k] === 0) {
              next[k] = k + 1;
              if (--remaining === 0) return result(true);
            }
          }
        }
        units += 2;
        if (units > 4096) {
          work.spend(units);
          units = 0;
        }
      }
    }
    work.spend(units);
  }
  return result(false);
}

/** Splits R at value `at` of field f and paints both halves. */
function halve(R: Box, C: readonly Box[], f: Field, at: bigint, work: Work, opts: PaintOptions): PaintResult {
  const parts: Box[] = [
    { ...R, [f]: intersect(R[f], [[R[f][0][0], at - 1n]]) },
    { ...R, [f]: intersect(R[f], [[at, R[f][R[f].length - 1][1]]]) },
  ];
  const takers = new Set<number>();
  let uncovered: Point | null = null;
  let watched: PaintResult['watched'] = null;
  for (const part of parts) {
    // the candidates meeting this half, up to the first that holds all of it
    const ids: number[] = [];
    for (let c = 0; c < C.length; c++) {
      if (!meetsAll(C[c], part)) continue;
      ids.push(c);
      if (holdsAll(C[c], part)) break;
    }
    work.spend(C.length * 4);
    const sub = paintBox(part, ids.map((c) => C[c]), work, {
      watch: opts.watch && ((c) => watched === null && opts.watch!(ids[c])),
      stopOnWatch: opts.stopOnWatch,
    });
    for (const c of sub.takers) takers.add(ids[c]);
    uncovered ??= sub.uncovered;
    if (sub.watched && !watched) watched = { cand: ids[sub.watched.cand], at: sub.watched.at };
    if (watched && opts.stopOnWatch) return { covered: false, takers: [], uncovered: null, watched };
  }
  return { covered: uncovered === null, takers: [...takers].sort((a, b) => a - b), uncovered, watched };
}

/**
 * Zone values of `mask` grouped by which candidates hold them: one representative each
 * (a named zone rather than "none" when the class has one, so an example packet can pin it),
 * in the order of each class's lowest value. Exported for its test.
 */
export function zoneClasses(mask: bigint, sets: readonly bigint[]): number[] {
  // the classes by partition refinement: each candidate moves the zone values it holds out of
  // their class into a new one (one BigInt operation a candidate, no key strings); a candidate
  // holding every value of the mask splits nothing
  const zones = bitsOf(mask);
  const at = new Int32Array(zones.length === 0 ? 0 : zones[zones.length - 1] + 1);
  zones.forEach((z, k) => (at[z] = k));
  const cls = new Int32Array(zones.length);
  const lastMover: number[] = [-1]; // per class: the candidate that last split it, and into which class
  const movedTo: number[] = [0];
  for (let c = 0; c < sets.length; c++) {
    const held = sets[c] & mask;
    if (held === mask) continue;
    for (const z of bitsOf(held)) {
      const k = at[z], old = cls[k];
      if (lastMover[old] !== c) {
        lastMover[old] = c;
        movedTo[old] = lastMover.length;
        lastMover.push(-1);
        movedTo.push(0);
      }
      cls[k] = movedTo[old];
    }
  }
  const reps = new Map<number, number>();
  zones.forEach((z, k) => {
    const rep = reps.get(cls[k]);
    if (rep === undefined || rep === 0) reps.set(cls[k], z);
  });
  return [...reps.values()];
}

/** Per zone value of `values`, which candidates hold it (one BigInt operation a candidate and value). */
function holding(values: readonly number[], sets: readonly bigint[]): Uint8Array[] {
  return values.map((z) => {
    const bit = 1n << BigInt(z);
    const out = new Uint8Array(sets.length);
    for (let c = 0; c < sets.length; c++) out[c] = (sets[c] & bit) === 0n ? 0 : 1;
    return out;
  });
}

/** First-match painting of region R (zones and three fields) by the candidates C. Exact. */
export function paintRegion(R: Region, C: readonly Region[], work: Work, opts: PaintOptions = {}): PaintResult {
  work.spend(C.length * 2);
  const srcSets = C.map((c) => c.zs), dstSets = C.map((c) => c.zd);
  const srcReps = zoneClasses(R.zs, srcSets);
  const dstReps = zoneClasses(R.zd, dstSets);
  const srcHold = holding(srcReps, srcSets), dstHold = holding(dstReps, dstSets);
  const memo = new Map<string, PaintResult>();
  const takers = new Set<number>();
  let uncovered: Point | null = null;
  let watched: PaintResult['watched'] = null;
  for (let a = 0; a < srcReps.length; a++) {
    const zs = srcReps[a], inS = srcHold[a];
    for (let b = 0; b < dstReps.length; b++) {
      const zd = dstReps[b], inD = dstHold[b];
      const ids: number[] = [];
      for (let c = 0; c < C.length; c++) if (inS[c] & inD[c]) ids.push(c);
      work.spend(C.length);
      const key = ids.join(',');
      let res = memo.get(key);
      if (!res) {
        res = paintBox(R, ids.map((c) => C[c]), work, {
          watch: opts.watch && ((c) => watched === null && opts.watch!(ids[c])),
          stopOnWatch: opts.stopOnWatch,
        });
        memo.set(key, res);
        for (const c of res.takers) takers.add(ids[c]);
        if (res.watched && !watched) watched = { cand: ids[res.watched.cand], at: { ...res.watched.at, zs, zd } };
      }
      if (res.uncovered && !uncovered) uncovered = { ...res.uncovered, zs, zd };
      if (watched && opts.stopOnWatch) return { covered: false, takers: [], uncovered: null, watched };
    }
  }
  return { covered: uncovered === null, takers: [...takers].sort((a, b) => a - b), uncovered, watched };
}
