// Which rules are off at an instant because of their schedule or their expiry (issue 40 item
// 4, docs/schedules.md), and the document with them off: eval compiles it, the kernel is
// written from it. An off rule is made `disabled`, which every matcher and the renderer
// already skip, so none of them needs to know schedules.
import type { ConfigDoc, PolicyObj } from './types';
import { workingCopy } from './document';
import { scheduleActive, scheduleOver } from './schedule';

export type OffReason = 'schedule' | 'expired';

export interface RuleOff {
  reason: OffReason;
  /** the schedule's name (reason "schedule") */
  schedule?: string;
}

/** Whether a rule's matching depends on the time at all. */
export const isTimed = (p: PolicyObj): boolean => p.schedule !== undefined || p.expiresAt !== undefined;

/** Why `p` does not match at `t`, or null when it may (a disabled rule is not asked).
 * `seen`: the schedules already asked at this `t` (one Intl reading per schedule, not per rule). */
export function offReason(doc: ConfigDoc, p: PolicyObj, t: number, seen = new Map<string, RuleOff | null>()): RuleOff | null {
  if (p.expiresAt !== undefined && t >= Date.parse(p.expiresAt)) return { reason: 'expired' };
  if (p.schedule === undefined) return null;
  let off = seen.get(p.schedule);
  if (off === undefined) {
    off = scheduleOff(doc, p.schedule, t);
    seen.set(p.schedule, off);
  }
  return off;
}

function scheduleOff(doc: ConfigDoc, name: string, t: number): RuleOff | null {
  const s = doc.schedules?.get(name);
  if (!s) return null; // a reference checked at every change: not reached
  if (scheduleOver(s, t)) return { reason: 'expired', schedule: s.name };
  return scheduleActive(s, t) ? null : { reason: 'schedule', schedule: s.name };
}

/** The enabled timed rules of each table, found once per table: a table is never edited in
 * place (a change makes a new array), and eval and the kernel's switch ask at every request
 * and every second, over tables of up to 100,000 rules. */
const timedMemo = new WeakMap<readonly PolicyObj[], PolicyObj[]>();
function timedRules(rules: readonly PolicyObj[]): PolicyObj[] {
  let timed = timedMemo.get(rules);
  if (!timed) {
    timed = rules.filter((p) => !p.disabled && isTimed(p));
    timedMemo.set(rules, timed);
  }
  return timed;
}

/** The enabled rules of a table that are off at `t`, by id. */
export function offRules(doc: ConfigDoc, rules: readonly PolicyObj[], t: number): Map<number, RuleOff> {
  const out = new Map<number, RuleOff>();
  const seen = new Map<string, RuleOff | null>();
  for (const p of timedRules(rules)) {
    const off = offReason(doc, p, t, seen);
    if (off) out.set(p.id, off);
  }
  return out;
}

export interface Gate {
  policies: Map<number, RuleOff>;
  local: Map<number, RuleOff>;
  /** equal keys: the same rules off (what a memo of the gated document compares) */
  key: string;
}

/** The rules of `doc` off at `t`. */
export function gateAt(doc: ConfigDoc, t: number): Gate {
  const policies = offRules(doc, doc.policies, t);
  const local = offRules(doc, doc.localPolicies, t);
  return { policies, local, key: `${[...policies.keys()].join(',')}/${[...local.keys()].join(',')}` };
}

const disable = (rules: PolicyObj[], off: Map<number, RuleOff>): PolicyObj[] =>
  off.size ? rules.map((p) => (off.has(p.id) ? { ...p, disabled: true } : p)) : rules;

/** `doc` with the gate's rules disabled; `doc` itself when none is off (its compiled forms stay usable). */
export function gatedDoc(doc: ConfigDoc, gate: Gate): ConfigDoc {
  if (!gate.policies.size && !gate.local.size) return doc;
  const out = workingCopy(doc);
  out.policies = disable(doc.policies, gate.policies);
  out.localPolicies = disable(doc.localPolicies, gate.local);
  return out;
}
