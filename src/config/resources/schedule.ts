// Schedules (issue 40 item 4, docs/schedules.md): committed objects that policies and local
// policies name in `schedule`. Recurring (days and time ranges on the wall clock of a time
// zone) or once (start and end). A delete of a schedule a policy names is 409 ERR_NET_2007.
import { Type } from '@sinclair/typebox';
import type { ConfigDoc, ScheduleObj } from '../types';
import type { ResourceOps } from '../resource';
import { FwError } from '../../errors';
import { removeUnused } from '../refs';
import { checked, checkEnum, checkName, checkSameKey, checkText, existing, shapeChecker } from '../validate';
import { MAX_RANGES, WEEKDAYS, checkInstant, checkRange, checkTimeZone } from '../schedule';

export const SCHEDULE_TYPES = ['recurring', 'once'] as const;
const MAX_DESCRIPTION = 1024;

const Fields = {
  type: Type.String({ description: 'recurring (days and ranges) or once (start and end)', ...checked({ enum: SCHEDULE_TYPES }) }),
  'time-zone': Type.String({ description: 'IANA time zone the days and ranges are read in; default (and ""): UTC' }),
  days: Type.Array(Type.String({ description: WEEKDAYS.join(', '), ...checked({ enum: WEEKDAYS }) }), { description: 'recurring: the weekdays it is on' }),
  ranges: Type.Array(Type.String(), { description: `recurring: at most ${MAX_RANGES} ranges "HH:MM[:SS]-HH:MM[:SS]" (end after start, up to 24:00)` }),
  start: Type.String({ description: 'once: ISO 8601 time with an offset' }),
  end: Type.String({ description: 'once: ISO 8601 time with an offset, after start' }),
  description: Type.String({ description: `at most ${MAX_DESCRIPTION} characters`, ...checked({ maxLength: MAX_DESCRIPTION }) }),
};
const optional = {
  'time-zone': Type.Optional(Fields['time-zone']), days: Type.Optional(Fields.days), ranges: Type.Optional(Fields.ranges),
  start: Type.Optional(Fields.start), end: Type.Optional(Fields.end), description: Type.Optional(Fields.description),
};
export const bodies = {
  create: Type.Object({ name: Type.String(), type: Fields.type, ...optional }, { additionalProperties: false }),
  update: Type.Object({ name: Type.Optional(Type.String()), type: Type.Optional(Fields.type), ...optional }, { additionalProperties: false }),
};
const createShape = shapeChecker(bodies.create);
const updateShape = shapeChecker(bodies.update);
type Body = ReturnType<typeof updateShape>;

function checkDays(values: string[]): string[] {
  if (values.length === 0) throw new FwError('ERR_NET_1004', 'field "days": at least one weekday');
  values.forEach((d, i) => checkEnum(`days[${i}]`, d, WEEKDAYS));
  return WEEKDAYS.filter((d) => values.includes(d)); // week order, each once
}

function checkRanges(values: string[]): string[] {
  if (values.length === 0) throw new FwError('ERR_NET_1004', 'field "ranges": at least one time range');
  if (values.length > MAX_RANGES) throw new FwError('ERR_NET_1008', `field "ranges": at most ${MAX_RANGES} ranges`);
  values.forEach((r, i) => checkRange(`ranges[${i}]`, r));
  return [...new Set(values)];
}

/** The fields of the other type than `type` are refused: a body says one kind of schedule. */
function checkKind(type: ScheduleObj['type'], s: Partial<ScheduleObj>): void {
  const [own, other] = type === 'recurring' ? [['days', 'ranges'], ['start', 'end']] : [['start', 'end'], ['days', 'ranges']];
  for (const f of other) if ((s as Record<string, unknown>)[f] !== undefined) throw new FwError('ERR_NET_1004', `field "${f}": not a field of a ${type} schedule`);
  for (const f of own) if ((s as Record<string, unknown>)[f] === undefined) throw new FwError('ERR_NET_1004', `missing field "${f}" (a ${type} schedule has ${own.join(' and ')})`);
}

/** A body's fields of the other kind than `type` sent empty ("", []) are no fields: a form
 * sends every field, and a recurring schedule's form has an empty start. */
function withoutEmptyOthers(type: ScheduleObj['type'], b: Body): Body {
  const out: Record<string, unknown> = { ...b };
  const others = type === 'recurring' ? ['start', 'end'] : ['days', 'ranges'];
  for (const f of others) {
    const v = out[f];
    if (v === '' || (Array.isArray(v) && v.length === 0)) delete out[f];
  }
  return out as Body;
}

function merged(key: string, old: ScheduleObj, given: Body): ScheduleObj {
  const type = given.type === undefined ? old.type : checkEnum('type', given.type, SCHEDULE_TYPES);
  const b = withoutEmptyOthers(type, given);
  // a change of type keeps nothing of the old kind's fields
  const base: Partial<ScheduleObj> = type === old.type ? old : {};
  const s: ScheduleObj = {
    name: key,
    type,
    timeZone: b['time-zone'] === undefined ? old.timeZone : b['time-zone'] === '' ? 'UTC' : checkTimeZone('time-zone', b['time-zone']),
    days: b.days === undefined ? base.days : checkDays(b.days),
    ranges: b.ranges === undefined ? base.ranges : checkRanges(b.ranges),
    start: b.start === undefined ? base.start : new Date(checkInstant('start', b.start)).toISOString(),
    end: b.end === undefined ? base.end : new Date(checkInstant('end', b.end)).toISOString(),
    description: b.description === undefined ? old.description : checkText('description', b.description, MAX_DESCRIPTION),
  };
  checkKind(type, s);
  if (type === 'once' && Date.parse(s.end!) <= Date.parse(s.start!)) throw new FwError('ERR_NET_1004', 'field "end": not after "start"');
  // absent fields are no fields: the document stays comparable (diff.ts) and exports as given
  for (const f of ['days', 'ranges', 'start', 'end'] as const) if (s[f] === undefined) delete s[f];
  return s;
}

export const scheduleOps: ResourceOps = {
  bodies,
  create(doc: ConfigDoc, body: unknown) {
    const b = createShape(body);
    const name = checkName('name', b.name);
    const s = merged(name, { name, type: 'recurring', timeZone: 'UTC', description: '' }, b);
    if (doc.schedules.has(name)) throw new FwError('ERR_NET_2006', `schedule "${name}" already exists`);
    doc.schedules.set(name, s);
    return {};
  },
  update(doc: ConfigDoc, key: string, body: unknown) {
    const b = updateShape(body);
    checkSameKey('name', b.name, key);
    const old = existing(doc.schedules, 'schedule', key);
    doc.schedules.set(key, merged(key, old, b));
    return {};
  },
  remove(doc: ConfigDoc, key: string) {
    removeUnused(doc, doc.schedules, 'schedule', 'schedule', key);
    return {};
  },
};
