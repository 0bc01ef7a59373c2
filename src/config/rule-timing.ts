// When a policy or a local policy matches (issue 40 item 4, docs/schedules.md): an optional
// `schedule` (a schedule's name: on only while it is) and `expires-at` (an ISO 8601 instant
// with an offset: never again after it). Both stored only when set, so a configuration
// without them is stored and exported as before.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, PolicyObj } from './types';
import { checkRef } from './validate';
import { checkInstant } from './schedule';

/** The request fields (policies and local policies). */
export const ruleTimingFields = {
  schedule: Type.Optional(Type.String({ description: 'a schedule\'s name (/api/schedules): the rule matches only while it is on; "" clears it' })),
  'expires-at': Type.Optional(Type.String({ description: 'ISO 8601 time with an offset after which the rule never matches; "" clears it' })),
};

/** The read-model fields: present only when set. */
export const ruleTimingModelFields = {
  schedule: Type.Optional(Type.String()),
  expiresAt: Type.Optional(Type.String({ description: 'ISO 8601 (UTC)' })),
};

type TimingBody = { schedule?: string; 'expires-at'?: string };
type Timing = Pick<PolicyObj, 'schedule' | 'expiresAt'>;

/** The timing of `b` over `old`, as stored: only the fields that are set. */
export function mergedTiming(doc: ConfigDoc, old: Timing, b: TimingBody): Timing {
  const schedule = b.schedule === undefined ? old.schedule ?? '' : checkRef('schedule', b.schedule, (n) => doc.schedules?.has(n) ?? false, 'schedule');
  const given = b['expires-at'];
  const expiresAt = given === undefined ? old.expiresAt ?? '' : given === '' ? '' : new Date(checkInstant('expires-at', given)).toISOString();
  const out: Timing = {};
  if (schedule !== '') out.schedule = schedule;
  if (expiresAt !== '') out.expiresAt = expiresAt;
  return out;
}

/** The read model's timing fields of a rule. */
export function timingModel(p: Timing): Timing {
  return { ...(p.schedule ? { schedule: p.schedule } : {}), ...(p.expiresAt ? { expiresAt: p.expiresAt } : {}) };
}

/** The export's (request spelling). */
export function timingExport(p: Timing): TimingBody {
  return { ...(p.schedule ? { schedule: p.schedule } : {}), ...(p.expiresAt ? { 'expires-at': p.expiresAt } : {}) };
}
