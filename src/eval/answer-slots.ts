// Interning of whole answers. Most packets of a workload hit few rules, and an answer is a
// function of its policy (or deny reason) and a few packet-dependent parts (zones, route,
// NAT), usually the same for every packet of a policy. So each answer form (eval()'s frozen
// objects, answer-objects.ts; the batch answer's JSON bytes, answer-json.ts) keeps the last
// answer built for each policy, and for each deny reason without a policy, and reuses it while
// those parts are unchanged. At most one answer per slot is held.
import { DENY_DEFAULT, DENY_REASONS, type BatchAnswers } from './batch';

/** The answer fields an interned answer depends on, besides its policy and code. */
const KEY = 5; // srcZone, dstZone, route, nat, natIf

export class AnswerSlots {
  /** Slots: one per policy, then one per deny reason without a policy (default-deny, no-route,
   * broadcast, multicast: codes DENY_DEFAULT.. in order). */
  readonly size: number;
  private readonly keys: Int32Array;
  private readonly held: Uint8Array; // 1: the slot holds an answer

  constructor(private readonly policies: number) {
    this.size = policies + DENY_REASONS;
    this.keys = new Int32Array(this.size * KEY);
    this.held = new Uint8Array(this.size);
  }

  /** The slot of answer j: its policy's, else its deny reason's. */
  slot(a: BatchAnswers, j: number): number {
    const pol = a.policy[j];
    return pol >= 0 ? pol : this.policies + (a.code[j] - DENY_DEFAULT);
  }

  /** Whether slot s holds an answer built for answer j's zones, route and NAT. */
  holds(s: number, a: BatchAnswers, j: number): boolean {
    const k = this.keys, o = s * KEY;
    return this.held[s] === 1 && k[o] === a.srcZone[j] && k[o + 1] === a.dstZone[j] && k[o + 2] === a.route[j] && k[o + 3] === a.nat[j] && k[o + 4] === a.natIf[j];
  }

  /** Slot s now holds the answer built for answer j. */
  keep(s: number, a: BatchAnswers, j: number): void {
    const k = this.keys, o = s * KEY;
    k[o] = a.srcZone[j];
    k[o + 1] = a.dstZone[j];
    k[o + 2] = a.route[j];
    k[o + 3] = a.nat[j];
    k[o + 4] = a.natIf[j];
    this.held[s] = 1;
  }

  /** Forgets every answer (the holder dropped what it held). */
  clear(): void {
    this.held.fill(0);
  }
}
