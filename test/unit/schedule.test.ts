// Schedules as pure functions (issue 40 item 4, src/config/schedule.ts, schedule-gate.ts):
// the wall clock of a zone across a daylight saving change, a recurring window's edges in
// two zones, a one-time window, and the document with the rules off disabled.
import { scheduleActive, scheduleOver, wallClock } from '../../src/config/schedule';
import { gateAt, gatedDoc } from '../../src/config/schedule-gate';
import { emptyDoc } from '../../src/config/document';
import type { PolicyObj, ScheduleObj } from '../../src/config/types';

const office: ScheduleObj = { name: 'office', type: 'recurring', timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'], ranges: ['08:00-18:00'], description: '' };
const t = (iso: string) => Date.parse(iso);

test('the wall clock follows the zone and its daylight saving', () => {
  // Berlin: UTC+1 in winter, UTC+2 from 2027-03-28 01:00Z
  expect(wallClock('Europe/Berlin', t('2027-03-28T00:59:59Z'))).toEqual({ day: 'sun', second: 1 * 3600 + 59 * 60 + 59 });
  expect(wallClock('Europe/Berlin', t('2027-03-28T01:00:00Z'))).toEqual({ day: 'sun', second: 3 * 3600 });
  expect(wallClock('America/New_York', t('2026-12-07T04:59:59Z'))).toEqual({ day: 'sun', second: 23 * 3600 + 59 * 60 + 59 });
});

test('a recurring window: its start included, its end excluded, in its zone, on its days', () => {
  expect(scheduleActive(office, t('2026-12-07T06:59:59Z'))).toBe(false); // Monday 07:59:59 in Berlin
  expect(scheduleActive(office, t('2026-12-07T07:00:00Z'))).toBe(true);
  expect(scheduleActive(office, t('2026-12-07T16:59:59Z'))).toBe(true);
  expect(scheduleActive(office, t('2026-12-07T17:00:00Z'))).toBe(false);
  // in summer the same wall clock is an hour earlier in UTC
  expect(scheduleActive(office, t('2027-06-07T06:00:00Z'))).toBe(true);
  expect(scheduleActive(office, t('2026-12-12T10:00:00Z'))).toBe(false); // a Saturday
  const ny = { ...office, timeZone: 'America/New_York' };
  expect(scheduleActive(ny, t('2026-12-07T12:59:59Z'))).toBe(false);
  expect(scheduleActive(ny, t('2026-12-07T13:00:00Z'))).toBe(true);
});

test('a one-time window, and its end as the end of its rules', () => {
  const once: ScheduleObj = { name: 'w', type: 'once', timeZone: 'UTC', start: '2027-01-01T00:00:00.000Z', end: '2027-01-02T00:00:00.000Z', description: '' };
  expect(scheduleActive(once, t('2026-12-31T23:59:59Z'))).toBe(false);
  expect(scheduleOver(once, t('2026-12-31T23:59:59Z'))).toBe(false);
  expect(scheduleActive(once, t('2027-01-01T00:00:00Z'))).toBe(true);
  expect(scheduleActive(once, t('2027-01-02T00:00:00Z'))).toBe(false);
  expect(scheduleOver(once, t('2027-01-02T00:00:00Z'))).toBe(true);
});

test('the gate disables exactly the rules off, and leaves the document alone when none is', () => {
  const doc = emptyDoc();
  doc.schedules.set('office', office);
  const rule = (id: number, extra: Partial<PolicyObj>): PolicyObj => ({ id, action: 'allow', srcZone: '', dstZone: '', srcAddr: '', dstAddr: '', services: [], log: false, ...extra });
  doc.policies = [rule(1, { schedule: 'office' }), rule(2, { expiresAt: '2027-01-01T00:00:00.000Z' }), rule(3, {}), rule(4, { schedule: 'office', disabled: true })];
  const night = gateAt(doc, t('2026-12-07T22:00:00Z'));
  expect([...night.policies]).toEqual([[1, { reason: 'schedule', schedule: 'office' }]]);
  const gated = gatedDoc(doc, night);
  expect(gated.policies.map((p) => !!p.disabled)).toEqual([true, false, false, true]);
  expect(doc.policies[0].disabled).toBeUndefined(); // the version is not touched
  const day = gateAt(doc, t('2026-12-07T10:00:00Z'));
  expect(day.policies.size).toBe(0);
  expect(gatedDoc(doc, day)).toBe(doc);
  expect([...gateAt(doc, t('2027-01-04T10:00:00Z')).policies]).toEqual([[2, { reason: 'expired' }]]);
});
