// The answer objects of CompiledConfig.eval(), built from an answer slot (BatchAnswers).
// Allocating them was most of eval()'s own cost (an answer and up to three sub-objects per
// packet, and their garbage collection), so answers are values shared between calls:
// - the route, NAT and policy sub-objects are built once per rule (a masquerade's NAT object
//   once per rule and egress interface), frozen;
// - the whole answer is interned (answer-slots.ts): the last answer built for a policy (or a
//   deny reason) is returned again while the packet-dependent parts (zones, route, NAT) are
//   the same, so a packet of a hot rule allocates nothing.
// Everything is frozen: a caller cannot change an answer another call returns. The objects are
// built lazily (a configuration of 20,000 policies answers a few of them most of the time) and
// at most one answer per policy is held.
import { masqueradeAddress, type ImageMeta } from './image';
import { CODES, type BatchAnswers } from './batch';
import { AnswerSlots } from './answer-slots';
import type { EvalReason, EvalResult, NatAnswer, PolicyAnswer, RouteAnswer } from './types';

/** The action and reason of each answer code (batch.ts). */
const ACTIONS: Array<'allow' | 'deny'> = [];
const REASONS: EvalReason[] = [];
for (const [code, action, reason] of CODES) [ACTIONS[code], REASONS[code]] = [action, reason];

export class AnswerObjects {
  private readonly routes: Array<RouteAnswer | null>;
  private readonly nats: Array<NatAnswer | null>;
  private readonly masq: Array<NatAnswer | null>; // nat rule * slots + masquerade slot (link and family)
  private readonly policies: Array<PolicyAnswer | null>;
  private readonly slots: AnswerSlots;
  private readonly answers: Array<EvalResult | null>; // per slot

  constructor(
    private readonly meta: ImageMeta,
    private readonly routeAnswers: readonly RouteAnswer[],
    private readonly natAnswers: readonly NatAnswer[],
    private readonly polId: Int32Array,
    private readonly polFlags: Int32Array,
  ) {
    this.routes = new Array<RouteAnswer | null>(routeAnswers.length).fill(null);
    this.nats = new Array<NatAnswer | null>(natAnswers.length).fill(null);
    this.masq = new Array<NatAnswer | null>(natAnswers.length * meta.ifaces.length * 2).fill(null);
    this.policies = new Array<PolicyAnswer | null>(polId.length).fill(null);
    this.slots = new AnswerSlots(polId.length);
    this.answers = new Array<EvalResult | null>(this.slots.size).fill(null);
  }

  /** The answer of slot j of `a`: shared with earlier calls when it is the same. */
  answer(a: BatchAnswers, j: number): EvalResult {
    const s = this.slots.slot(a, j);
    if (this.slots.holds(s, a, j)) return this.answers[s]!;
    const made = this.build(a, j);
    this.answers[s] = made;
    this.slots.keep(s, a, j);
    return made;
  }

  private build(a: BatchAnswers, j: number): EvalResult {
    const code = a.code[j];
    const sz = a.srcZone[j], dz = a.dstZone[j], route = a.route[j], pol = a.policy[j];
    const zones = this.meta.zones;
    const action = ACTIONS[code];
    return Object.freeze({
      action,
      reason: REASONS[code],
      srcZone: sz > 0 ? zones[sz - 1] : null,
      dstZone: dz > 0 ? zones[dz - 1] : null,
      egressInterface: route >= 0 ? this.meta.ifaces[this.meta.routes[route].egress].name : null,
      route: route >= 0 ? this.route(route) : null,
      nat: a.nat[j] >= 0 ? this.nat(a.nat[j], a.natIf[j]) : null,
      policy: pol >= 0 ? this.policy(pol) : null,
    } as const);
  }

  private route(r: number): RouteAnswer {
    const t = this.routeAnswers[r];
    return (this.routes[r] ??= Object.freeze({ id: t.id, destination: t.destination }));
  }

  /** NAT rule n; a masquerade (natIf >= 0: a slot) translates to that link's address of the packet's family. */
  private nat(n: number, natIf: number): NatAnswer {
    const t = this.natAnswers[n];
    if (natIf < 0) return (this.nats[n] ??= Object.freeze({ ...t }));
    const m = n * this.meta.ifaces.length * 2 + natIf;
    return (this.masq[m] ??= Object.freeze({ id: t.id, type: t.type, translatedIP: masqueradeAddress(this.meta.ifaces, natIf), translatedPort: t.translatedPort }));
  }

  private policy(p: number): PolicyAnswer {
    const flags = this.polFlags[p];
    return (this.policies[p] ??= Object.freeze({ id: this.polId[p], action: (flags & 1) !== 0 ? 'allow' : 'deny', log: (flags & 2) !== 0 }));
  }
}
