// Schedules (issue 40 item 4, docs/schedules.md): when a policy that names one is on. A
// recurring schedule is on during its time ranges on its weekdays, read on the wall clock of
// its IANA time zone (Intl does the zone and its daylight saving: no table of our own); a
// one-time schedule is on from its start to its end (ISO 8601 instants with an offset). Pure
// functions of a schedule and an instant: eval, the analysis and the kernel's switching
// (schedule-gate.ts) all ask the same question here.
import { FwError } from '../errors';
import type { ScheduleObj } from './types';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const MAX_RANGES = 16;

/** "HH:MM" or "HH:MM:SS", 00:00 to 24:00. */
const CLOCK = /^([01]\d|2[0-4]):([0-5]\d)(?::([0-5]\d))?$/;
/** An instant with a date, a time and an offset (or Z): never read in an implied zone. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Seconds since midnight of "HH:MM[:SS]", or null. */
export function clockSeconds(value: string): number | null {
  const m = CLOCK.exec(value);
  if (!m) return null;
  const s = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  return s > 86400 ? null : s;
}

/** A time range "08:00-18:00" as [start, end) seconds of the day, else 400 ERR_NET_1004. */
export function checkRange(field: string, value: string): [number, number] {
  const [a, b, ...rest] = value.split('-');
  const start = clockSeconds(a ?? ''), end = clockSeconds(b ?? '');
  if (rest.length || start === null || end === null) {
    throw new FwError('ERR_NET_1004', `field "${field}": "${value}" is not a range such as 08:00-18:00 (HH:MM or HH:MM:SS, up to 24:00)`);
  }
  if (start >= end) throw new FwError('ERR_NET_1004', `field "${field}": "${value}" ends before it starts (a range that crosses midnight is two ranges)`);
  return [start, end];
}

/** An IANA time zone name Intl knows ("Europe/Berlin", "UTC"), else 400 ERR_NET_1004. */
export function checkTimeZone(field: string, value: string): string {
  try {
    formatter(value); // throws a RangeError for a zone Intl does not know
    return value;
  } catch {
    throw new FwError('ERR_NET_1004', `field "${field}": "${value}" is not an IANA time zone (such as Europe/Berlin or UTC)`);
  }
}

/** An ISO 8601 instant with an offset, as epoch ms, else 400 ERR_NET_1004. */
export function checkInstant(field: string, value: string): number {
  const t = INSTANT.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(t)) throw new FwError('ERR_NET_1004', `field "${field}": "${value}" is not an ISO 8601 time with an offset (such as 2027-01-31T18:00:00Z)`);
  return t;
}

/** One formatter per zone: making one costs far more than using it. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, f);
  }
  return f;
}

/** The weekday and the second of the day at `t` on the wall clock of `zone`. */
export function wallClock(zone: string, t: number): { day: Weekday; second: number } {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(new Date(t))) parts[p.type] = p.value;
  const day = parts.weekday.toLowerCase().slice(0, 3) as Weekday;
  return { day, second: Number(parts.hour) * 3600 + Number(parts.minute) * 60 + Number(parts.second) };
}

/** A schedule's ranges in seconds, parsed once per (immutable) schedule object. */
const parsed = new WeakMap<ScheduleObj, Array<[number, number]>>();
function rangesOf(s: ScheduleObj): Array<[number, number]> {
  let r = parsed.get(s);
  if (!r) {
    r = s.ranges!.map((x) => checkRange('ranges', x));
    parsed.set(s, r);
  }
  return r;
}

/** Whether `s` is on at `t` (epoch ms). */
export function scheduleActive(s: ScheduleObj, t: number): boolean {
  if (s.type === 'once') return t >= Date.parse(s.start!) && t < Date.parse(s.end!);
  const { day, second } = wallClock(s.timeZone, t);
  if (!s.days!.includes(day)) return false;
  return rangesOf(s).some(([a, b]) => second >= a && second < b);
}

/** Whether `s` can never be on again after `t` (a one-time schedule that has ended). */
export function scheduleOver(s: ScheduleObj, t: number): boolean {
  return s.type === 'once' && t >= Date.parse(s.end!);
}
