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
  private readonly trees = new Map<string, TreeMemo>();

  constructor(
    private readonly t: FamilyTable,
    private readonly tb: TreeBuilder,
    private readonly maxEntries: number,
    private readonly params: string,
    private readonly reuse?: TableReuse,
  ) {
    const p = reuse?.memo.previous?.tables.get(reuse.name);
    this.prev = p && p.params === params && p.table.family === t.family ? p : null;
  }

  /** The root of the tree of `rows` (ascending rows of the table), zone group (a, b), part `part`. */
  tree(a: number, b: number, part: number, rows: readonly number[]): number {
    const key = `${a}:${b}:${part}`;
    const tb = this.tb;
    const old = this.prev?.trees.get(key);
    if (old && tb.entries + old.entries <= this.maxEntries && this.sameRules(old, rows)) {
      const moved = relocateTree(this.prev!.mem, old, tb.mem, this.t.nw === 1, this.movesOf(old, rows));
      if (moved) {
        tb.entries += moved.entries;
        this.record(key, { ...moved, rows: Int32Array.from(rows) });
        this.reuse!.memo.stats.treesReused++;
        return moved.root;
      }
    }
    const start = tb.mem.length, entries = tb.entries;
    const root = tb.build(rows);
    this.record(key, { root, start, end: tb.mem.length, entries: tb.entries - entries, rows: Int32Array.from(rows) });
    if (this.reuse) this.reuse.memo.stats.treesBuilt++;
    return root;
  }

  /** Records this build's table in the memo (`mem`: the table's finished tree memory). */
  finish(mem: Int32Array): void {
    if (!this.reuse) return;
    this.reuse.memo.tables.set(this.reuse.name, { specs: this.reuse.specs, table: this.t, mem, trees: this.trees, params: this.params });
  }

  private record(key: string, tree: TreeMemo): void {
    if (this.reuse) this.trees.set(key, tree);
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
