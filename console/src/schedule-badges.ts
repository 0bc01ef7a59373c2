// Which policies are off now (issue 40 item 4): by their schedule (off at this moment, on
// again later) or expired (expires-at past, or a one-time schedule over: never again). Shown
// as badges beside the analysis', from the policies' fields and the schedules' `active`.
import type { Badge } from './rules-page';
import type { Schedule } from './types';

type Timed = { id: number; schedule?: string; expiresAt?: string; disabled?: boolean };

export function addTiming(badges: Map<number, Badge[]>, rules: readonly Timed[], schedules: readonly Schedule[], now: number): Map<number, Badge[]> {
  if (!rules.some((r) => r.schedule || r.expiresAt)) return badges;
  const byName = new Map(schedules.map((s) => [s.name, s]));
  const out = new Map(badges);
  const add = (id: number, b: Badge) => out.set(id, [...(out.get(id) ?? []), b]);
  for (const r of rules) {
    if (r.disabled) continue;
    const s = r.schedule ? byName.get(r.schedule) : undefined;
    if (r.expiresAt && Date.parse(r.expiresAt) <= now) add(r.id, { kind: 'expired', text: 'expired', title: `expired at ${r.expiresAt}` });
    else if (s?.type === 'once' && Date.parse(s.end!) <= now) add(r.id, { kind: 'expired', text: 'expired', title: `schedule ${s.name} ended at ${s.end}` });
    else if (s && !s.active) add(r.id, { kind: 'off-schedule', text: `off by schedule ${s.name}`, title: `schedule ${s.name} is off now` });
  }
  return out;
}
