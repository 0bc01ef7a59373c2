// Where buildClassifier (classifier.ts) gets each tree of a table: a relocating copy of the
// previous build's tree of the same zone group and CutSplit part when that tree's rules are
// the same RuleSpec objects in the same order (tree-reuse.ts), else the TreeBuilder; and the
// record of this build's trees for the next build (build-memo.ts).
//
// The memory valve stays: a tree is copied only while the table's leaf entries, its own
// included, stay within maxEntries (the copied entries count as built ones do); past that it
// is built, and the builder's valve bounds it as in a full build.
import type { BuildMemo, TableMemo, TreeMemo } from './build-memo';
import type { FamilyTable, RuleSpec } from './rules';
import type { TreeBuilder } from './tree';
import { relocateTree, type RuleMoves } from './tree-reuse';

/** A delta tree holds at most this many rules: every lookup into its zone group walks it
 * too. With a cap of a sixteenth of the base (~520 rules at 100,000 random policies) lookups
 * ran at 0.82x of a full build's after 200 changes; with 64 (a tree of a few levels and small
 * leaves) at 0.93-0.98x, within the noise (docs/performance.md, "The incremental compile"). */
const DELTA_MAX = 64;
/** How far patch() looks ahead in the base for a rule (past DELTA_MAX: a rule changed or
 * inserted before it is at most that many base rules away from its match). */
const LOOKAHEAD = 2 * DELTA_MAX;

/** What buildClassifier needs to reuse trees: the table's specs, this build's memo (whose
 * `previous` may hold the table), the table's name in it. */
export interface TableReuse {
  specs: readonly RuleSpec[];
  memo: BuildMemo;
  name: string;
}

export class TreeSource {
  private readonly prev: TableMemo | null;
  private moves: RuleMoves | null = null;
  private readonly built = new Map<string, TreeMemo[]>();
  /** per previous rule position, 1: left out of the tree being copied (patch()) */
  private drop: Uint8Array | null = null;

  constructor(
    private readonly t: FamilyTable,
    private readonly tb: TreeBuilder,
    private readonly maxEntries: number,
    private readonly params: string,
    private readonly reuse?: TableReuse,
  ) {
    const p = reuse?.memo.previous?.tables.get(reuse.name);
    this.prev = p && p.params === params && p.table.family === t.family ? p : null;
    // the trees of a build from a previous one take about its memory: reserved at once, not
    // grown by doubling copies (a tenth of a one-change compile's CPU at 100,000 policies)
    if (this.prev) tb.mem.ensureCapacity(this.prev.mem.length + (this.prev.mem.length >> 4));
  }

  /**
   * The trees of `rows` (ascending rows of the table), zone group (a, b), CutSplit part `part`,
   * as (root, first rule) pairs. A part is one tree, or, after changes, a base tree and a small
   * delta tree: the previous part's trees whose rules are the same specs in the same order are
   * copied; otherwise, when few rules changed, the base tree is copied without the entries of
   * its rules that were deleted, changed or moved, and those rules' new versions and the
   * inserted rules (with the previous delta tree's) make a new delta tree. The forest searches
   * both in order of their first rule and takes the lower match, as it does for parts. Past
   * DELTA_MAX rules in the delta tree, or a quarter of
   * the base dropped (memo.maxDropped), the part is built again as one tree: this bounds what
   * a lookup pays for the second tree.
   */
  trees(a: number, b: number, part: number, rows: readonly number[]): Array<[number, number]> {
    const key = `${a}:${b}:${part}`;
    const olds = this.prev?.trees.get(key);
    const out: TreeMemo[] = [];
    const same = olds ? this.sameParts(olds, rows) : null;
    if (same) {
      for (let i = 0; i < olds!.length && out.length === i; i++) {
        const moved = this.copy(olds![i], same[i]);
        if (moved) out.push(moved);
      }
      if (out.length < olds!.length) out.length = 0; // built whole below (the copies are garbage)
    }
    if (out.length === 0 && olds) this.patch(olds, rows, out);
    if (out.length === 0) out.push(this.build(rows));
    if (this.reuse) this.built.set(key, out);
    return out.map((tm) => [tm.root, this.t.rule[tm.rows[0]]]);
  }

  /** The base and delta trees of a part whose rules changed a little (see trees()), in `out`;
   * leaves `out` empty when the part is to be built as one tree. */
  private patch(olds: readonly TreeMemo[], rows: readonly number[], out: TreeMemo[]): void {
    const specs = this.reuse!.specs, was = this.prev!.specs, wasRule = this.prev!.table.rule, rule = this.t.rule;
    const base = olds[0], n = base.rows.length;
    // the rules kept in the base: a walk of both lists in order, each rule looked for among
    // the next LOOKAHEAD of the base's (a rule found is kept at that index; the base's rules
    // passed over are dropped); a rule not found there goes to the delta tree. Any such split
    // is exact (kept rules are the base's very specs, in its order). A map of the base's
    // specs, made for every part a change reaches, was a tenth of a one-change compile at
    // 100,000 policies (issue 44); the walk finds what it found unless more than LOOKAHEAD
    // rules in a row were deleted or moved, and then the part is built again.
    const keep: number[] = [], keptAt: number[] = [], delta: number[] = [];
    let p = 0;
    for (const r of rows) {
      const s = specs[rule[r]];
      const end = Math.min(n, p + LOOKAHEAD);
      let k = p;
      while (k < end && was[wasRule[base.rows[k]]] !== s) k++;
      if (k < end) {
        keep.push(r);
        keptAt.push(k);
        p = k + 1;
      } else delta.push(r);
      if (delta.length > DELTA_MAX) return;
    }
    const dropped = base.rows.length - keep.length;
    if (keep.length === 0 || delta.length > DELTA_MAX || dropped > this.reuse!.memo.maxDropped * base.rows.length) return;
    const tb = this.tb;
    if (tb.entries + base.entries > this.maxEntries) return;
    const drop = (this.drop ??= new Uint8Array(was.length));
    for (const k of base.rows) drop[wasRule[k]] = 1;
    for (const k of keptAt) drop[wasRule[base.rows[k]]] = 0;
    const moved = relocateTree(this.prev!.mem, base, tb.mem, this.t.nw === 1, this.movesOf({ ...base, rows: Int32Array.from(keptAt, (k) => base.rows[k]) }, keep), dropped > 0 ? drop : undefined);
    for (const k of base.rows) drop[wasRule[k]] = 0;
    if (!moved) return;
    tb.entries += moved.entries;
    this.reuse!.memo.stats.treesReused++;
    out.push({ ...moved, rows: Int32Array.from(keep) });
    if (delta.length === 0) return;
    // the delta tree: the previous one copied when it is the same, else built (it is small)
    const old = olds[1];
    const same = old !== undefined && this.sameRules(old, delta) ? this.copy(old, delta) : null;
    out.push(same ?? this.build(delta));
  }

  /** The previous tree `old` copied for `rows` (the same specs in the same order), or null. */
  private copy(old: TreeMemo, rows: readonly number[]): TreeMemo | null {
    const tb = this.tb;
    if (tb.entries + old.entries > this.maxEntries) return null;
    const moved = relocateTree(this.prev!.mem, old, tb.mem, this.t.nw === 1, this.movesOf(old, rows));
    if (!moved) return null;
    tb.entries += moved.entries;
    this.reuse!.memo.stats.treesReused++;
    return { ...moved, rows: Int32Array.from(rows) };
  }

  /** A tree built from `rows`. */
  private build(rows: readonly number[]): TreeMemo {
    const tb = this.tb;
    const start = tb.mem.length, entries = tb.entries;
    const root = tb.build(rows);
    if (this.reuse) this.reuse.memo.stats.treesBuilt++;
    return { root, start, end: tb.mem.length, entries: tb.entries - entries, rows: Int32Array.from(rows) };
  }

  /** Records this build's table in the memo (`mem`: the table's finished tree memory). */
  finish(mem: Int32Array): void {
    if (!this.reuse) return;
    this.reuse.memo.tables.set(this.reuse.name, { specs: this.reuse.specs, table: this.t, mem, trees: this.built, params: this.params });
  }

  /** When `rows`' rules are the same specs in the same order as those of the previous trees
   * `olds` (one, or a base and a delta tree, merged by position), each tree's rows; else null. */
  private sameParts(olds: readonly TreeMemo[], rows: readonly number[]): Array<readonly number[]> | null {
    if (olds.length === 1) return this.sameRules(olds[0], rows) ? [rows] : null;
    if (olds.length !== 2 || olds[0].rows.length + olds[1].rows.length !== rows.length) return null;
    const specs = this.reuse!.specs, was = this.prev!.specs, wasRule = this.prev!.table.rule, rule = this.t.rule;
    const a = olds[0].rows, b = olds[1].rows;
    const pa: number[] = [], pb: number[] = [];
    let i = 0, j = 0;
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k];
      // the next rule of the two trees by previous position
      if (j >= b.length || (i < a.length && wasRule[a[i]] < wasRule[b[j]])) {
        if (was[wasRule[a[i++]]] !== specs[rule[r]]) return null;
        pa.push(r);
      } else {
        if (was[wasRule[b[j++]]] !== specs[rule[r]]) return null;
        pb.push(r);
      }
    }
    return [pa, pb];
  }

  /** Are the tree's rules the same specs, in the same order, as `rows`' rules? */
  private sameRules(old: TreeMemo, rows: readonly number[]): boolean {
    if (old.rows.length !== rows.length) return false;
    const specs = this.reuse!.specs, was = this.prev!.specs, rule = this.t.rule, wasRule = this.prev!.table.rule;
    for (let k = 0; k < rows.length; k++) if (specs[rule[rows[k]]] !== was[wasRule[old.rows[k]]]) return false;
    return true;
  }

  /** The moves of the tree's rules (RuleMoves, indexed by their previous position). */
  private movesOf(old: TreeMemo, rows: readonly number[]): RuleMoves {
    const n = this.prev!.specs.length;
    const mv = (this.moves ??= { pos: new Int32Array(n), src: new Int32Array(n), dst: new Int32Array(n), svc: new Int32Array(n) });
    const t = this.t, w = this.prev!.table;
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k], o = old.rows[k], at = w.rule[o];
      mv.pos[at] = t.rule[r];
      mv.src[at] = t.srcOff[r] - w.srcOff[o];
      mv.dst[at] = t.dstOff[r] - w.dstOff[o];
      mv.svc[at] = t.svcOff[r] - w.svcOff[o];
    }
    return mv;
  }
}
