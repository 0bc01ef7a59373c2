// fwctl login URL [--user NAME]: a token from the daemon (password from FWCTL_PASSWORD or a
// prompt that does not echo), or FWCTL_TOKEN (an API token) checked with GET /api/me; kept in
// the profile file with owner-only permissions.
import readline from 'node:readline';
import { Writable } from 'node:stream';
import { ApiClient, CliError, EXIT } from '../api';
import { writeProfile } from '../profile';

interface Me {
  username: string;
}

/** Reads a line from the terminal without echoing it. */
function askHidden(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) throw new CliError('no terminal to ask the password on: set FWCTL_PASSWORD or FWCTL_TOKEN', EXIT.usage);
  process.stderr.write(prompt);
  const muted = new Writable({ write: (_c, _e, cb) => cb() });
  const rl = readline.createInterface({ input: process.stdin, output: muted, terminal: true });
  return new Promise((resolve) => rl.question('', (answer) => {
    rl.close();
    process.stderr.write('\n');
    resolve(answer);
  }));
}

export async function login(args: { url: string; user: string | undefined; json: boolean }): Promise<number> {
  const url = args.url.replace(/\/+$/, '');
  let token = process.env.FWCTL_TOKEN || '';
  if (!token) {
    const user = args.user ?? process.env.FWCTL_USER;
    if (!user) throw new CliError('fwctl login URL --user NAME (or FWCTL_TOKEN)', EXIT.usage);
    const password = process.env.FWCTL_PASSWORD ?? (await askHidden(`password for ${user} at ${url}: `));
    token = (await new ApiClient(url, null).request<{ token: string }>('POST', '/api/login', { body: { username: user, password } })).token;
  }
  const me = await new ApiClient(url, token).request<Me>('GET', '/api/me');
  const file = writeProfile({ url, token, user: me.username });
  if (args.json) process.stdout.write(JSON.stringify({ url, user: me.username, profile: file }) + '\n');
  else process.stdout.write(`logged in to ${url} as ${me.username} (token kept in ${file})\n`);
  return EXIT.ok;
}
