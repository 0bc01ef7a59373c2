// fwctl login URL [--user NAME] [--password-stdin]: a token from the daemon (password from
// standard input, FWCTL_PASSWORD or a prompt that does not echo), or FWCTL_TOKEN (an API token) checked with GET /api/me; kept in
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
  if (!process.stdin.isTTY) throw new CliError('no terminal to ask the password on: use --password-stdin, FWCTL_PASSWORD or FWCTL_TOKEN', EXIT.usage);
  process.stderr.write(prompt);
  const muted = new Writable({ write: (_c, _e, cb) => cb() });
  const rl = readline.createInterface({ input: process.stdin, output: muted, terminal: true });
  return new Promise((resolve) => rl.question('', (answer) => {
    rl.close();
    process.stderr.write('\n');
    resolve(answer);
  }));
}

/** The first line of standard input (--password-stdin), without its line end. */
async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if ((chunk as Buffer).includes(10)) break;
  }
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  if (!line) throw new CliError('--password-stdin: standard input has no password', EXIT.usage);
  return line;
}

/** The password: standard input (--password-stdin), FWCTL_PASSWORD, else a prompt on the terminal. */
function passwordOf(user: string, url: string, fromStdin: boolean): Promise<string> {
  if (fromStdin) return firstLineOfStdin();
  if (process.env.FWCTL_PASSWORD !== undefined) return Promise.resolve(process.env.FWCTL_PASSWORD);
  return askHidden(`password for ${user} at ${url}: `);
}

export async function login(args: { url: string; user: string | undefined; passwordStdin: boolean; json: boolean }): Promise<number> {
  const url = args.url.replace(/\/+$/, '');
  let token = process.env.FWCTL_TOKEN || '';
  if (!token) {
    const user = args.user ?? process.env.FWCTL_USER;
    if (!user) throw new CliError('--user NAME is required (or FWCTL_USER, or FWCTL_TOKEN)', EXIT.usage);
    const password = await passwordOf(user, url, args.passwordStdin);
    token = (await new ApiClient(url, null).request<{ token: string }>('POST', '/api/login', { body: { username: user, password } })).token;
  }
  const me = await new ApiClient(url, token).request<Me>('GET', '/api/me');
  const file = writeProfile({ url, token, user: me.username });
  if (args.json) process.stdout.write(JSON.stringify({ url, user: me.username, profile: file }) + '\n');
  else process.stdout.write(`logged in to ${url} as ${me.username} (token kept in ${file})\n`);
  return EXIT.ok;
}
