// POST /api/eval at an instant (issue 40 item 4, docs/schedules.md): the packet may carry
// `time` (ISO 8601 with an offset; default now); rules off at that instant (schedule,
// expiry) do not match, and the answer's `skipped` names the rule that would have matched
// first had it been on.
import { Type, type Static } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { isPlainObject } from '../../config/json';
import { checkInstant } from '../../config/schedule';
import { oneOf } from '../../config/render/objects';
import { offRules, type Gate } from '../../config/schedule-gate';
import type { ConfigDoc } from '../../config/types';
import type { Analysis } from '../../eval/analysis-types';
import type { EvalResult } from '../../eval/types';

export const TimeField = Type.Optional(Type.String({ description: 'the instant the packet is judged at (ISO 8601 with an offset); default now: rules off by schedule or expiry then do not match' }));

export const Skipped = Type.Object({
  id: Type.Integer(),
  table: oneOf(['policies', 'local-policies'] as const),
  reason: oneOf(['schedule', 'expired'] as const),
  schedule: Type.Optional(Type.String()),
}, { additionalProperties: false, description: 'the rule that would have matched first, off at the packet\'s time' });
export type Skipped = Static<typeof Skipped>;

/** The packet without its `time`, and the instant it names (now without one). */
export function packetTime(body: unknown): { packet: unknown; at: number } {
  if (!isPlainObject(body) || !('time' in body)) return { packet: body, at: Date.now() };
  const { time, ...packet } = body;
  if (typeof time !== 'string') throw new FwError('ERR_NET_1004', 'field "time": must be a string (ISO 8601 with an offset)');
  return { packet, at: checkInstant('time', time) };
}

/** The rule `all` (every rule on) matched that `gate` has off, or null. */
export function skippedRule(all: EvalResult, gate: Gate): Skipped | null {
  if (!all.policy) return null;
  const local = all.reason === 'local-policy';
  const off = (local ? gate.local : gate.policies).get(all.policy.id);
  if (!off) return null;
  return { id: all.policy.id, table: local ? 'local-policies' : 'policies', reason: off.reason, ...(off.schedule ? { schedule: off.schedule } : {}) };
}

/**
 * The analysis with the policies that never match again at `t` (expiry past, one-time
 * schedule over) as `expired`, and out of the shadowed and redundant lists: the analysis of a
 * version is computed once, an expiry passes later.
 */
export function withExpired(doc: ConfigDoc, a: Analysis, t: number): Analysis & { expired?: number[] } {
  const expired = [...offRules(doc, doc.policies, t)].filter(([, off]) => off.reason === 'expired').map(([id]) => id);
  if (!expired.length) return a;
  const gone = new Set(expired);
  const keep = (c: { id: number }) => !gone.has(c.id);
  return { ...a, shadowed: a.shadowed.filter(keep), redundant: a.redundant.filter(keep), partiallyShadowed: a.partiallyShadowed.filter(keep), expired };
}
