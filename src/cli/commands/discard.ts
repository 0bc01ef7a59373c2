// fwctl discard: ends the configuration session and drops its candidate (POST
// /api/config/discard), so a session left open (an editor's, a run that was killed) need not
// wait for the idle expiry. --force ends another user's (admin: the force permission).
import { CliError, EXIT, type ApiClient } from '../api';
import { printJson } from '../output';

export async function discard(api: ApiClient, a: { force: boolean; json: boolean }): Promise<number> {
  try {
    const r = await api.request<{ message: string }>('POST', `/api/config/discard${a.force ? '?force=true' : ''}`);
    if (a.json) printJson(r);
    else process.stdout.write('session discarded\n');
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    // the two refusals a user meets, in words (exit 4 as every conflict)
    if (e.code === 'ERR_SYS_3001') throw new CliError('there is no session to discard', EXIT.conflict, e.code, e.status);
    if (e.code === 'ERR_SYS_3002') throw new CliError(`the session is another user's (${e.message.replace(/^.*owner: /, '')}): an admin can end it with --force`, EXIT.conflict, e.code, e.status);
    throw e;
  }
}
