// /api/schedules (issue 40 item 4, docs/schedules.md): committed objects like every other
// (session, commit) that policies and local policies name in `schedule`. The read model says
// whether each is on now (`active`): run-time state, so the ETag of a running read carries it.
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context';
import { crudRoutes, namedReads } from '../crud';
import { oneOf } from '../../config/render/objects';
import { schedule as exportForm } from '../../config/export';
import { scheduleActive } from '../../config/schedule';
import type { ConfigDoc, ScheduleObj } from '../../config/types';

export const ScheduleModel = Type.Object({
  name: Type.String(),
  type: oneOf(['recurring', 'once'] as const),
  'time-zone': Type.String({ description: 'IANA time zone' }),
  days: Type.Optional(Type.Array(Type.String(), { description: 'recurring: mon..sun' })),
  ranges: Type.Optional(Type.Array(Type.String(), { description: 'recurring: "HH:MM[:SS]-HH:MM[:SS]"' })),
  start: Type.Optional(Type.String({ description: 'once: ISO 8601 (UTC)' })),
  end: Type.Optional(Type.String({ description: 'once: ISO 8601 (UTC)' })),
  description: Type.String(),
  active: Type.Boolean({ description: 'on now: the policies naming it match' }),
}, { additionalProperties: false });

export function renderSchedule(s: ScheduleObj, now = Date.now()) {
  return { ...exportForm(s), active: scheduleActive(s, now) };
}

/** Which schedules are on now, as a tag (null without schedules): a read's ETag changes with it. */
function activeTag(doc: ConfigDoc): string | null {
  if (!doc.schedules?.size) return null;
  const now = Date.now();
  return [...doc.schedules.values()].map((s) => (scheduleActive(s, now) ? '1' : '0')).join('');
}

export function scheduleRoutes(ctx: AppContext) {
  return crudRoutes(ctx, {
    kind: 'schedule',
    path: '/api/schedules',
    param: 'name',
    noun: 'schedule',
    messages: {
      create: 'schedule created in candidate',
      update: 'schedule updated in candidate',
      remove: 'schedule deleted from candidate',
    },
    ...namedReads((doc) => doc.schedules, (_doc, o) => renderSchedule(o), ScheduleModel),
    runtimeTag: activeTag,
  });
}
