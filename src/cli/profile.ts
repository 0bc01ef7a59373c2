// Where fwctl keeps the daemon's URL and the token of `fwctl login`: a JSON file readable by
// its owner only (0600, in a 0700 folder), $FWCTL_CONFIG or $XDG_CONFIG_HOME/fwctl/config.json
// (~/.config/fwctl/config.json). FWCTL_URL and FWCTL_TOKEN override it (CI jobs need no file).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiClient, CliError, EXIT } from './api';

export interface Profile {
  url: string;
  token: string;
  user: string;
}

export function profilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FWCTL_CONFIG) return path.resolve(env.FWCTL_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'fwctl', 'config.json');
}

export function readProfile(env: NodeJS.ProcessEnv = process.env): Profile | null {
  try {
    return JSON.parse(fs.readFileSync(profilePath(env), 'utf8')) as Profile;
  } catch {
    return null;
  }
}

/** Writes the profile with owner-only permissions (also when the file already existed). */
export function writeProfile(p: Profile, env: NodeJS.ProcessEnv = process.env): string {
  const file = profilePath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(p, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
}

/**
 * The client of the commands: --url, else FWCTL_URL, else the profile; token likewise. With no
 * token for the URL the request still goes out: a daemon that cannot be reached is exit 5, one
 * that refuses the missing token exit 3 (ApiClient says how to log in).
 */
export function clientFrom(urlOption: string | undefined, env: NodeJS.ProcessEnv = process.env): ApiClient {
  const p = readProfile(env);
  const url = (urlOption ?? env.FWCTL_URL ?? p?.url)?.replace(/\/+$/, '');
  if (!url) throw new CliError('not logged in: run fwctl login URL (or set FWCTL_URL and FWCTL_TOKEN)', EXIT.auth);
  const token = env.FWCTL_TOKEN || (p && p.url === url ? p.token : null);
  return new ApiClient(url, token);
}
