// The conntrack mark (`ct mark`, 32 bits) of a connection the forward chain accepted: which
// version's policies accepted it (a generation, bits 20-31) and which policy (bits 0-19).
// The generation lets the forward chain send the packets of connections accepted under an
// older version through the policies again (rematch at commit); the policy id is what the
// session table shows. fwd owns the whole mark of forwarded connections.

const POLICY_BITS = 20;
const POLICY_MASK = 2 ** POLICY_BITS - 1;
/** Generations 1..GENERATIONS; 0 is "never marked" (accepted before fwd, or rematch off at the time). */
const GENERATIONS = 4094;

/** The mask of the generation bits, as nft writes it. */
export const GENERATION_MASK = hex((GENERATIONS + 1) * 2 ** POLICY_BITS);
/**
 * The mark of a connection the current version has not accepted again: set on an older
 * connection's packet before the policies judge it, overwritten by an accepting policy; what
 * is still marked so is cut (its conntrack entry deleted by the data plane).
 */
export const CUT_MARK = 0xffffffff;

export function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

/**
 * A version's generation: versions wrap every 4094, so a connection accepted 4094 commits
 * ago and never seen since would pass as current (documented in docs/dataplane.md).
 */
export function generation(version: number): number {
  return 1 + (version % GENERATIONS);
}

/** The generation bits of a version's marks (compare with `ct mark and GENERATION_MASK`). */
export function generationMark(version: number): string {
  return hex(generation(version) * 2 ** POLICY_BITS);
}

/**
 * The policy bits an allowing rule sets; the `stamp` chain then adds the version's generation
 * (`ct mark or generationMark`), so the version is written in one rule, not in every policy's.
 * A policy id above 2^20-1 is recorded as 0 (unknown).
 */
export function policyMark(policyId: number): string {
  return hex(policyId <= POLICY_MASK ? policyId : 0);
}

/** What a mark says: the accepting policy (null: unknown) and whether the connection is being cut. */
export function readMark(mark: number): { policy: number | null; generation: number; cut: boolean } {
  if (mark === CUT_MARK) return { policy: null, generation: 0, cut: true };
  const id = mark % 2 ** POLICY_BITS;
  return { policy: id === 0 ? null : id, generation: Math.floor(mark / 2 ** POLICY_BITS), cut: false };
}
