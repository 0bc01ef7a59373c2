// What the analysis reports (analysis.ts computes it; compiled.ts, the workers and the API
// carry it). A module of its own so that those modules do not import each other for types.
import type { AnalysisMemo } from './analysis-memo';
import type { RuleSpec } from './rules';

export interface Coverage {
  id: number;
  /** the earlier rules that take its packets (each takes some packet first), ascending */
  coveredBy: number[];
}

/** A packet as POST /api/eval takes it. */
export type ExamplePacket = Record<string, string | number>;

export interface PartialShadow {
  id: number;
  /** an earlier policy of the other action that takes `example`, a packet of this policy */
  by: number;
  example: ExamplePacket;
}

export interface Analysis {
  /** every policy decided and the deep reports (partial shadows, NAT) computed */
  complete: boolean;
  shadowed: Coverage[];
  redundant: Coverage[];
  /** policies whose cover was not decided (work budget or deadline): not reported above */
  undecided: number[];
  /** policies not covered, part of whose packets an earlier policy of the other action takes */
  partiallyShadowed: PartialShadow[];
  /** NAT rules that no packet can ever reach (coveredBy empty: the rule itself can never apply) */
  unreachableNat: Coverage[];
  unusedAddresses: string[];
  unusedServices: string[];
  /** disabled policies and NAT rules (present only when there are some): they match nothing
   * and are reported here only, never as shadowed, redundant or unreachable */
  disabled?: number[];
  disabledNat?: number[];
}

export interface AnalyzeOptions {
  /** the deep pass: partial shadows and NAT rules too, and by default no work budget */
  deep?: boolean;
  samples?: number; // probe packets per policy (default 24)
  budget?: number; // work units per policy (quick default 1,000,000; deep default none)
  totalBudget?: number; // for the whole table (quick default 20,000,000; deep default none)
  deadline?: number; // epoch ms: what is not decided by then is left undecided
  /** set (word 0 not 0) by another thread: the analysis ends as at its deadline */
  cancel?: Int32Array;
  /** filled in when given: how the policies were decided */
  stats?: AnalysisStats;
  /** policySpecs(doc) when the caller has built them already (the compile worker, for the tables) */
  specs?: readonly RuleSpec[];
  /**
   * The incremental analysis (analysis-memo.ts): `previous` is what an earlier analysis with
   * the same options recorded (any version: the policies are compared); the policies no change
   * reaches are copied from it. `next` is set to this analysis's record (null when it cannot
   * serve: a deadline or a cancel left some policy undecided; one the work budget left short
   * records its undecided policies and serves).
   */
  memo?: { previous: AnalysisMemo | null; next?: AnalysisMemo | null };
}

export interface AnalysisStats {
  reached: number; // a probe packet reached the policy
  painted: number; // decided by the exact painting
  undecided: number; // over the work budget or the deadline: not reported
  undecidedIds: number[]; // their ids (the first 100)
}
