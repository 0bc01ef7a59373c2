// Exact first-match coverage of one rule's space by earlier rules (the analysis's core).
//
// A region is a product of five fields: source zones and destination zones (bit sets, bit 0 is
// "none"), source address, destination address and service key (sorted disjoint intervals).
// takers(R, C) splits R field by field into cells on which every candidate rule is all in or
// all out (elementary intervals of the candidates' boundaries; zones one by one). The rules
// containing a cell, in rule order, are its "active set"; the first active rule of a final cell
// takes it. Two shortcuts keep this small: a cell whose first active rule covers the rest of R
// is taken by that rule at once, and a cell whose active set was already solved at the same
// field is not solved again (sets are found by an incremental hash and compared bit for bit,
// so the memo never changes an answer). A cell with no active rule means R is not covered.
import type { Interval } from './sets';

export interface Region {
  zs: bigint;
  zd: bigint;
  s: Interval[];
  d: Interval[];
  v: Interval[];
}

const FIELDS = ['s', 'd', 'v', 'zs', 'zd'] as const;

export function subtract(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const [lo0, hi] of a) {
    let lo = lo0;
    while (j < b.length && b[j][1] < lo) j++;
    let k = j;
    while (lo <= hi && k < b.length && b[k][0] <= hi) {
      if (b[k][0] > lo) out.push([lo, b[k][0] - 1n]);
      lo = b[k][1] + 1n;
      k++;
    }
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

export function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    const lo = a[i][0] > b[j][0] ? a[i][0] : b[j][0];
    const hi = a[i][1] < b[j][1] ? a[i][1] : b[j][1];
    if (lo <= hi) out.push([lo, hi]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

function within(a: Interval[], b: Interval[]): boolean {
  return subtract(a, b).length === 0;
}

/** Does rule o hold all of R in field number k (FIELDS order)? */
function coversField(o: Region, R: Region, k: number): boolean {
  const name = FIELDS[k];
  if (name === 'zs' || name === 'zd') return (R[name] & ~o[name]) === 0n;
  return within(R[name], o[name]);
}

/** Does rule o hold all of R? */
export function covers(o: Region, R: Region): boolean {
  for (let k = 0; k < FIELDS.length; k++) if (!coversField(o, R, k)) return false;
  return true;
}

export class OverBudget extends Error {}

function meets(a: Interval[], b: Interval[]): boolean {
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    if (a[i][1] < b[j][0]) i++;
    else if (b[j][1] < a[i][0]) j++;
    else return true;
  }
  return false;
}

/**
 * takers() by plain box subtraction: the first candidate that meets a box takes box ∩ rule,
 * and the box minus the rule (one box per field: earlier fields inside the rule, this one
 * outside) goes on to the later candidates. Quick when few rules cover R; on a rule set where
 * hundreds do, the boxes fragment, which is what the budget is for.
 */
export function takersBySubtraction(R: Region, C: readonly Region[], budget: { left: number }): number[] | null {
  const won = new Uint8Array(C.length);
  const work: Array<[Region, number]> = [[R, 0]];
  while (work.length > 0) {
    const [X, from] = work.pop()!;
    let k = from;
    for (; k < C.length; k++) {
      if (--budget.left < 0) throw new OverBudget();
      const o = C[k];
      if ((o.zs & X.zs) && (o.zd & X.zd) && meets(o.s, X.s) && meets(o.d, X.d) && meets(o.v, X.v)) break;
    }
    if (k === C.length) return null;
    won[k] = 1;
    const o = C[k];
    const cur: Region = { ...X };
    const zs = cur.zs & ~o.zs;
    if (zs) work.push([{ ...cur, zs }, k + 1]);
    cur.zs &= o.zs;
    const zd = cur.zd & ~o.zd;
    if (zd) work.push([{ ...cur, zd }, k + 1]);
    cur.zd &= o.zd;
    for (const fld of ['s', 'd', 'v'] as const) {
      const rest = subtract(cur[fld], o[fld]);
      if (rest.length) work.push([{ ...cur, [fld]: rest }, k + 1]);
      cur[fld] = intersect(cur[fld], o[fld]);
    }
  }
  const out: number[] = [];
  won.forEach((w, c) => w && out.push(c));
  return out;
}

function firstSet(bits: Uint32Array): number {
  for (let w = 0; w < bits.length; w++) {
    const x = bits[w];
    if (x !== 0) return w * 32 + 31 - Math.clz32(x & -x);
  }
  return -1;
}

/**
 * The candidates (indices into C, which is in rule order) that take some packet of R, or null
 * when some packet of R meets none of them. Work is taken from budget.left; throws OverBudget
 * when it runs out.
 */
export function takers(R: Region, C: readonly Region[], budget: { left: number }): number[] | null {
  const spend = (n: number) => {
    budget.left -= n;
    if (budget.left < 0) throw new OverBudget();
  };
  const n = C.length;
  const words = (n + 31) >> 5;
  spend(n * 5);

  // Per interval field, the candidates' boundaries inside R as sorted events, once:
  // rank of the point, candidate (-1: R itself), +1 enters / -1 leaves.
  interface Sweep { rank: Int32Array; cand: Int32Array; sign: Int8Array; cells: number }
  const sweeps: Array<Sweep | null> = FIELDS.map((name) => {
    if (name === 'zs' || name === 'zd') return null;
    const ev: Array<[bigint, number, number]> = [];
    for (const [lo, hi] of R[name]) ev.push([lo, -1, 1], [hi + 1n, -1, -1]);
    for (let c = 0; c < n; c++) for (const [lo, hi] of intersect(C[c][name], R[name])) ev.push([lo, c, 1], [hi + 1n, c, -1]);
    ev.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    spend(ev.length);
    const sw: Sweep = { rank: new Int32Array(ev.length), cand: new Int32Array(ev.length), sign: new Int8Array(ev.length), cells: 0 };
    let r = -1;
    ev.forEach(([at, c, sign], i) => {
      if (i === 0 || at !== ev[i - 1][0]) r++;
      sw.rank[i] = r;
      sw.cand[i] = c;
      sw.sign[i] = sign;
    });
    sw.cells = r + 1;
    return sw;
  });
  // fields with few cells first: few cells near the top, where they multiply
  const size = (k: number) => {
    const name = FIELDS[k];
    if (name === 'zs' || name === 'zd') return bitsOf(R[name]).length;
    return sweeps[k]!.cells;
  };
  const order = [0, 1, 2, 3, 4].sort((x, y) => size(x) - size(y));
  const last = FIELDS.length - 1;
  // covering[c * 6 + k]: candidate c holds all of R in the fields of levels k..4
  const covering = new Uint8Array(n * 6);
  for (let c = 0; c < n; c++) {
    covering[c * 6 + 5] = 1;
    for (let k = 4; k >= 0 && coversField(C[c], R, order[k]); k--) covering[c * 6 + k] = 1;
  }
  const h1 = new Int32Array(n), h2 = new Int32Array(n);
  let seed = 0x9e3779b9;
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return t ^ (t >>> 14);
  };
  for (let c = 0; c < n; c++) {
    h1[c] = next();
    h2[c] = next();
  }
  const memo: Array<Map<number, Uint32Array[]>> = [0, 1, 2, 3, 4, 5].map(() => new Map());
  const won = new Uint8Array(n);

  /** Has this active set been solved at level k? Records it if not. */
  const seen = (k: number, a: number, b: number, bits: Uint32Array): boolean => {
    const key = (a ^ Math.imul(b, 0x9e3779b1)) | 0; // collisions only cost a comparison
    const list = memo[k].get(key);
    spend(words);
    if (list) {
      for (const other of list) {
        let same = true;
        for (let w = 0; w < words && same; w++) same = other[w] === bits[w];
        if (same) return true;
      }
      list.push(bits.slice());
    } else memo[k].set(key, [bits.slice()]);
    return false;
  };

  /** Solves the cells of level k for the candidates `list` (rule order) / `member` (as bits). */
  const solve = (k: number, all: number[], member: Uint32Array): boolean => {
    spend(1);
    if (all.length === 0) return false;
    if (covering[all[0] * 6 + k]) {
      won[all[0]] = 1;
      return true;
    }
    // rules after the first one that holds the rest of R never take anything here
    let end = 1;
    while (end < all.length && !covering[all[end] * 6 + k]) end++;
    spend(end);
    let list = all;
    if (end < all.length) {
      list = all.slice(0, end + 1);
      member = new Uint32Array(words);
      for (const c of list) member[c >> 5] |= 1 << (c & 31);
    }
    const field = FIELDS[order[k]];
    const act = new Uint32Array(words);
    const cell = (a: number, b: number, count: number): boolean => {
      if (count === 0) return false;
      if (k === last) {
        won[firstSet(act)] = 1;
        return true;
      }
      if (seen(k + 1, a, b, act)) return true;
      const sub: number[] = [];
      for (const c of list) if (act[c >> 5] & (1 << (c & 31))) sub.push(c);
      spend(list.length);
      return solve(k + 1, sub, act.slice());
    };
    if (field === 'zs' || field === 'zd') {
      for (const z of bitsOf(R[field])) {
        act.fill(0);
        let a = 0, b = 0, count = 0;
        for (const c of list) {
          if (((C[c][field] >> BigInt(z)) & 1n) === 0n) continue;
          act[c >> 5] |= 1 << (c & 31);
          a ^= h1[c];
          b ^= h2[c];
          count++;
        }
        spend(list.length);
        if (!cell(a, b, count)) return false;
      }
      return true;
    }
    const sw = sweeps[order[k]]!;
    let inside = false, changed = false;
    let a = 0, b = 0, count = 0;
    const E = sw.rank.length;
    spend(E);
    if (k === last) {
      // the last field: a cell goes to its first active rule, kept up to date as rules come
      // and go (found again only when the first one leaves)
      let first = n;
      for (let e = 0; e < E; ) {
        const r = sw.rank[e];
        for (; e < E && sw.rank[e] === r; e++) {
          const c = sw.cand[e];
          if (c < 0) inside = sw.sign[e] > 0;
          else if (member[c >> 5] & (1 << (c & 31))) {
            act[c >> 5] ^= 1 << (c & 31);
            if (sw.sign[e] > 0) {
              count++;
              if (c < first) first = c;
            } else {
              count--;
              if (c === first) {
                first = firstSet(act);
                if (first < 0) first = n;
                spend(words);
              }
            }
          }
        }
        if (!inside) continue;
        if (count === 0) return false;
        won[first] = 1;
      }
      return true;
    }
    for (let e = 0; e < E; ) {
      const r = sw.rank[e];
      for (; e < E && sw.rank[e] === r; e++) {
        const c = sw.cand[e];
        if (c < 0) {
          inside = sw.sign[e] > 0;
          changed = true;
        } else if (member[c >> 5] & (1 << (c & 31))) {
          act[c >> 5] ^= 1 << (c & 31);
          a ^= h1[c];
          b ^= h2[c];
          count += sw.sign[e];
          changed = true;
        }
      }
      if (!inside || !changed) continue;
      changed = false;
      if (!cell(a, b, count)) return false;
    }
    return true;
  };

  const all: number[] = [];
  const member = new Uint32Array(words);
  for (let c = 0; c < n; c++) {
    all.push(c);
    member[c >> 5] |= 1 << (c & 31);
  }
  if (!solve(0, all, member)) return null;
  const out: number[] = [];
  for (let c = 0; c < n; c++) if (won[c]) out.push(c);
  return out;
}

/** The positions of the set bits of a zone mask, lowest first. */
export function bitsOf(mask: bigint): number[] {
  const out: number[] = [];
  for (let i = 0; mask > 0n; i++, mask >>= 1n) if (mask & 1n) out.push(i);
  return out;
}
