// fwctl status: the running version, the session, a pending commit confirmed, the data plane.
import type { StatusReplyModel } from '../../api/routes/status';
import { EXIT, type ApiClient } from '../api';
import { pairs, plural, printJson } from '../output';

export async function status(api: ApiClient, json: boolean): Promise<number> {
  const s = await api.request<StatusReplyModel>('GET', '/api/status');
  if (json) {
    printJson(s);
    return EXIT.ok;
  }
  const session = s.session;
  const pending = session?.pending_confirm;
  process.stdout.write(pairs([
    ['daemon', `${api.url} (node ${s.node}, ${s.store} store, up ${s.uptime} s)`],
    ['running', `version ${s.version} by ${s.lastCommit.author} at ${s.lastCommit.time}${s.lastCommit.description ? `: ${s.lastCommit.description}` : ''}`],
    ['session', !session ? 'unknown (store unreachable)' : session.active ? `${session.owner}, ${plural(session.changes, 'change')}, expires ${session.expires_at}` : 'none'],
    ['confirm', pending ? `version ${pending.version} by ${pending.author} must be confirmed by ${pending.deadline} (fwctl confirm)` : 'nothing pending'],
    ['dataplane', `${s.dataplane.mode}${s.dataplane.applied_version !== null ? `, version ${s.dataplane.applied_version} applied` : ''}${s.dataplane.error ? `, ERROR ${s.dataplane.error}` : ''}`],
    // issue 38: a Redis without authentication, said where an operator looks
    ...(s.store_warnings ?? []).map((w): [string, string] => ['WARNING', w]),
  ]));
  return EXIT.ok;
}
