// The analysis's questions about one rule's space R and the earlier rules C that meet it,
// each answered by painting (paint.ts) growing prefixes of a rule list: the grid is cut only
// at the boundaries of the rules in the prefix, so an answer the first few rules settle costs
// a few rules' grid, not the grid of a thousand narrow ones. Each answer is exact: a prefix's
// first matches are the whole list's first matches for the packets the prefix takes, and a
// union that covers R stays a cover when rules are added.
import { bitsOf, covers, intersect, meets, type Region } from './coverage';
import { paintRegion, type Point } from './paint';
import type { Interval } from './sets';
import type { Work } from './work';

const FIRST_PREFIX = 32;
/** covers of at most this many rules are made irredundant by trying to drop each member */
export const MAX_ELIMINATE = 64;

/** log2 of the size of each field of a region, kept with it (regions never change). */
function logsOf(r: Region): Float64Array {
  if (!r.logs) {
    const log = (iv: Interval[]) => Math.log2(iv.reduce((n, [a, b]) => n + Number(b - a + 1n), 0));
    r.logs = Float64Array.of(log(r.s), log(r.d), log(r.v), Math.log2(bitsOf(r.zs).length), Math.log2(bitsOf(r.zd).length));
  }
  return r.logs;
}

/** About log2 of how much of o lies in R (field by field, the smaller of the two): the order
 * in which rules are tried for a cover, so only a heuristic; no answer depends on it. */
export function volume(R: Region, o: Region): number {
  const a = logsOf(R), b = logsOf(o);
  let v = 0;
  for (let k = 0; k < 5; k++) v += Math.min(a[k], b[k]);
  return v;
}

function* prefixes(n: number): Generator<number> {
  let k = Math.min(n, FIRST_PREFIX);
  for (;;) {
    yield k;
    if (k === n) return;
    k = Math.min(n, k * 4);
  }
}

/** Units charged for ordering n candidates: n volumes and a sort of n keys. */
export function sortUnits(n: number): number {
  return n * (1 + Math.ceil(Math.log2(n + 1)));
}

export interface UnionAnswer {
  covered: boolean;
  /** when covered: indices into C (ascending) whose union covers R, each adding something */
  cover: number[];
  /** when not covered: a point of R in no rule of C */
  uncovered: Point | null;
}

/** Is R inside the union of C (order does not matter)? Largest rules are painted first, after
 * `first` when given (a rule the cover is to include). */
export function unionCover(R: Region, C: readonly Region[], work: Work, first = -1): UnionAnswer {
  // candidate lists end at the first rule that holds all of R: then it alone is a cover
  const last = C.length - 1;
  if (last >= 0 && covers(C[last], R)) return { covered: true, cover: first >= 0 && first !== last ? [first, last] : [last], uncovered: null };
  // ordering the candidates is work like painting them: a rule met by 100,000 earlier ones
  // sorts 100,000 volumes before the first cell is painted, and that must count against the
  // budget or an over-budget question runs its sort to the end (issue 44)
  work.spend(sortUnits(C.length));
  const vol = C.map((o, c) => (c === first ? Infinity : volume(R, o)));
  const order = C.map((_, c) => c).sort((a, b) => vol[b] - vol[a] || a - b);
  for (const k of prefixes(order.length)) {
    const res = paintRegion(R, order.slice(0, k).map((c) => C[c]), work);
    if (res.covered) return { covered: true, cover: res.takers.map((t) => order[t]).sort((a, b) => a - b), uncovered: null };
    if (k === order.length) return { covered: false, cover: [], uncovered: res.uncovered };
  }
  return { covered: false, cover: [], uncovered: null }; // C is empty
}

const meetsRegion = (o: Region, R: Region) =>
  (o.zs & R.zs) !== 0n && (o.zd & R.zd) !== 0n && meets(o.s, R.s) && meets(o.d, R.d) && meets(o.v, R.v);

/** A zone of the mask, a named one (bit 1 up) rather than "none" when there is one. */
function zoneOf(mask: bigint): number {
  const b = bitsOf(mask);
  return b.length > 1 && b[0] === 0 ? b[1] : b[0];
}

/** The lowest point of o ∩ R (they meet). */
export function firstPoint(o: Region, R: Region): Point {
  return { zs: zoneOf(o.zs & R.zs), zd: zoneOf(o.zd & R.zd), s: intersect(o.s, R.s)[0][0], d: intersect(o.d, R.d)[0][0], v: intersect(o.v, R.v)[0][0] };
}

export interface FirstMatchAnswer {
  /** the first packet of R (first match) taken by a rule `watch` accepts, and that rule */
  watched: { cand: number; at: Point } | null;
  /** when nothing watched is found: the rules (ascending) that take some packet of R; null
   * when no rule of C is watched (nothing was painted) */
  takers: number[] | null;
}

/** First-match painting of R by C in order, stopping at the first packet a watched rule takes. */
export function firstWatched(R: Region, C: readonly Region[], watch: (c: number) => boolean, work: Work): FirstMatchAnswer {
  if (!C.some((_, c) => watch(c))) return { watched: null, takers: null };
  // the first rule that meets R takes all it meets of R: no painting needed when it is watched
  const c0 = C.findIndex((c) => meetsRegion(c, R));
  if (c0 < 0) return { watched: null, takers: [] };
  if (watch(c0)) return { watched: { cand: c0, at: firstPoint(C[c0], R) }, takers: [] };
  for (const k of prefixes(C.length)) {
    const res = paintRegion(R, C.slice(0, k), work, { watch, stopOnWatch: true });
    if (res.watched) return { watched: res.watched, takers: [] };
    // a prefix that takes all of R leaves nothing to the rest
    if (res.covered || k === C.length) return { watched: null, takers: res.takers };
  }
  return { watched: null, takers: [] };
}

/**
 * A subset of `set` (indices into C, a cover of R) from which no member but `keep` can be
 * dropped: members are tried smallest first, when the set has at most MAX_ELIMINATE members.
 */
export function irredundant(R: Region, C: readonly Region[], set: number[], work: Work, keep = -1): number[] {
  if (set.length <= 1 || set.length > MAX_ELIMINATE) return set;
  const vol = new Map(set.map((c) => [c, c === keep ? Infinity : volume(R, C[c])]));
  let kept = [...set].sort((a, b) => vol.get(b)! - vol.get(a)!);
  for (let k = kept.length - 1; k >= 0 && kept.length > 1; k--) {
    if (kept[k] === keep) continue;
    const rest = kept.filter((_, m) => m !== k);
    if (paintRegion(R, rest.map((c) => C[c]), work).covered) kept = rest;
  }
  return kept.sort((a, b) => a - b);
}

/** One address family's part of a cover question: the rule's region in it, and each rule's
 * region in it by rule index (null: the rule matches nothing of that family). */
export interface FamilyPart {
  R: Region;
  of: (j: number) => Region | null;
}

const meetsPart = (p: FamilyPart, j: number) => {
  const o = p.of(j);
  return o !== null && meetsRegion(o, p.R);
};

/** Does `set` (rule indices) cover R in every part? */
function coversParts(parts: readonly FamilyPart[], set: number[], work: Work): boolean {
  return parts.every((p) => {
    const rs = set.filter((j) => meetsPart(p, j)).map((j) => p.of(j)!);
    return rs.length > 0 && paintRegion(p.R, rs, work).covered;
  });
}

/**
 * A subset of `set` (rule indices, covering every part) from which no member but `keep` can
 * be dropped, across the parts. Each family's cover is irredundant on its own, but a rule one
 * family needed may be superfluous next to rules another family's cover brought in (a rule
 * of both families can replace an IPv4-only one). Dropping a rule only changes the parts it
 * meets, so only those are painted again.
 */
export function irredundantAcross(parts: readonly FamilyPart[], set: number[], work: Work, keep = -1): number[] {
  if (parts.length < 2 || set.length <= 1 || set.length > MAX_ELIMINATE) return set;
  let kept = [...set];
  for (const j of set) {
    if (j === keep || kept.length === 1) continue;
    const rest = kept.filter((x) => x !== j);
    if (coversParts(parts.filter((p) => meetsPart(p, j)), rest, work)) kept = rest;
  }
  return kept;
}
