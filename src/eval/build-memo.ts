// What one compile records for the next one on the same thread (issue 30, incremental
// compile): the rule specs it made (by the document objects they were made from) and, per
// classifier table, the trees it built (by the specs of their rules). The next compile
// (compile-worker.ts keeps the last one, as it keeps the analysis memo) makes again only the
// specs whose objects changed and builds only the trees whose rules changed; every other tree
// is a relocating copy of the previous one (tree-reuse.ts). Whatever the document the
// previous build was of, the answers are a full build's: specs are reused only when the
// objects they depend on are the same objects (documents are never mutated), trees only when
// their rules are the same specs in the same order.
//
// Memory: a memo holds its build's tree memory (`mem`, about the image's size) and rule table
// columns until the next build replaces it; during a build, the previous one's too.
import type { AddressObj, NatRule, PolicyObj, ServiceObj } from '../config/types';
import type { FamilyTable, RuleSpec } from './rules';
import type { AddrSet, SportPiece } from './sets';
import type { TreeRange } from './tree-reuse';

/** A tree of a table: its range in the table's mem and its rows (the FamilyTable's, ascending). */
export interface TreeMemo extends TreeRange {
  rows: Int32Array;
}

/** One classifier table of a build (pol4, pol6, nat4, nat6). */
export interface TableMemo {
  /** the specs the table was made from (its rows' `rule` index into them) */
  specs: readonly RuleSpec[];
  table: FamilyTable;
  mem: Int32Array;
  /** by zone group and CutSplit part (`${srcZone}:${dstZone}:${part}`): its base tree, and
   * its delta tree when it has one (table-reuse.ts) */
  trees: Map<string, TreeMemo[]>;
  /** the build parameters and firstOnly, as a string: trees are reused only under the same */
  params: string;
}

/** A service list's sets as policySpecs makes them, and the service objects they came from. */
export interface SvcEntry {
  svc: Array<[number, number]>;
  svcKey: string;
  sport: SportPiece[] | null;
  /** the flattened names, and their objects (a changed service: another object) */
  names: string;
  deps: ReadonlyArray<ServiceObj | undefined>;
}

export interface AddrEntry {
  /** the address object (a group's flattening: a new object every time, compared by its ips) */
  obj: AddressObj | undefined;
  set: AddrSet;
}

export interface ReuseStats {
  specsReused: number;
  specsMade: number;
  treesReused: number;
  treesBuilt: number;
}

export class BuildMemo {
  /** sorted zone names: specs hold zone numbers, so they are reused only under the same zones */
  zones = '';
  readonly addr = new Map<string, AddrEntry>();
  readonly svc = new Map<string, SvcEntry>();
  /** the policies and their specs, position by position */
  policies: readonly PolicyObj[] = [];
  specs: readonly RuleSpec[] = [];
  readonly nat = new Map<NatRule, { outIf: number; deps: ReadonlyArray<ServiceObj | undefined>; spec: RuleSpec }>();
  readonly tables = new Map<string, TableMemo>();
  readonly stats: ReuseStats = { specsReused: 0, specsMade: 0, treesReused: 0, treesBuilt: 0 };

  /**
   * `previous`: the memo of the build before on this thread, or null (a full build).
   * `maxDropped`: the share of a tree's rules that may be left out of its copy (the rest of
   * the part in a delta tree, table-reuse.ts) before the part is built again; tests raise it
   * so that small configurations take that path too.
   */
  constructor(public previous: BuildMemo | null, readonly maxDropped = 0.25) {}

  /** The build is done: the previous memo is no longer needed (its memory goes). */
  done(): this {
    this.previous = null;
    return this;
  }
}
