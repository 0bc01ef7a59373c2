// fwctl schedules (issue 40 item 4): the schedules of the running configuration, whether each
// is on now, and the policies off now by their schedule or their expiry. The schedules
// themselves are objects of the configuration document (fwctl export / apply).
import type { ApiClient } from '../api';
import { EXIT } from '../api';
import { printJson, table } from '../output';

interface Schedule {
  name: string;
  type: 'recurring' | 'once';
  'time-zone': string;
  days?: string[];
  ranges?: string[];
  start?: string;
  end?: string;
  active: boolean;
}
interface Policy { id: number; schedule?: string; expiresAt?: string }

/** When a schedule is on, in one line. */
const when = (s: Schedule): string => (s.type === 'once' ? `${s.start} to ${s.end}` : `${s.days!.join(',')} ${s.ranges!.join(',')} ${s['time-zone']}`);

export async function schedules(api: ApiClient, json: boolean): Promise<number> {
  const list = await api.request<Schedule[]>('GET', '/api/schedules');
  const policies = await api.request<Policy[]>('GET', '/api/policies');
  const now = Date.now();
  const on = new Map(list.map((s) => [s.name, s.active]));
  // a one-time schedule that has ended never comes on again: its policies are expired
  const over = new Set(list.filter((s) => s.type === 'once' && Date.parse(s.end!) <= now).map((s) => s.name));
  const off = policies.flatMap((p) => {
    if ((p.expiresAt && Date.parse(p.expiresAt) <= now) || (p.schedule && over.has(p.schedule))) return [{ id: p.id, reason: 'expired' }];
    if (p.schedule && on.get(p.schedule) === false) return [{ id: p.id, reason: `schedule ${p.schedule}` }];
    return [];
  });
  if (json) {
    printJson({ schedules: list, off });
    return EXIT.ok;
  }
  process.stdout.write(table(['NAME', 'NOW', 'WHEN'], list.map((s) => [s.name, s.active ? 'on' : 'off', when(s)])));
  if (off.length) process.stdout.write(`\npolicies off now:\n${table(['POLICY', 'WHY'], off.map((o) => [`#${o.id}`, o.reason]))}`);
  return EXIT.ok;
}
