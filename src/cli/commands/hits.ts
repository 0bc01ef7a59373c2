// fwctl hits: hits, bytes and the first and last hit of every running policy and NAT rule
// (GET /api/analysis/hits); with --unused DAYS only the rules with no hit for that many days
// (GET /api/analysis/unused), the rule-base audit's question.
import type { HitsReplyModel, UnusedReplyModel } from '../../api/routes/hits';
import { EXIT, type ApiClient } from '../api';
import { printJson, table } from '../output';

type Rule = NonNullable<HitsReplyModel['rules']>[number];

export async function hits(api: ApiClient, a: { unused?: string; json: boolean }): Promise<number> {
  const r = a.unused === undefined
    ? await api.request<HitsReplyModel>('GET', '/api/analysis/hits')
    : await api.request<UnusedReplyModel>('GET', `/api/analysis/unused?days=${encodeURIComponent(a.unused)}`);
  if (a.json) {
    printJson(r);
    return EXIT.ok;
  }
  if (r.rules === null) {
    process.stderr.write('no hit counts: the daemon enforces nothing (FW_DATAPLANE=none); the linux data plane counts hits\n');
    return EXIT.ok;
  }
  const rows = r.rules.map((h: Rule) => [h.kind, h.id, h.hits, h.bytes, h.firstHitAt, h.lastHitAt]);
  if (rows.length) process.stdout.write(table(['kind', 'id', 'hits', 'bytes', 'first-hit', 'last-hit'], rows));
  const what = 'days' in r ? `${r.rules.length} rules with no hit for ${r.days} days (since ${r.since})` : `${r.rules.length} rules, sampled at ${r.sampledAt ?? 'never'}`;
  process.stderr.write(`version ${r.version}: ${what}\n`);
  return EXIT.ok;
}
