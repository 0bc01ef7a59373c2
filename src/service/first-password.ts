// The first administrator's generated password (a new store without FW_ADMIN_PASSWORD) is
// printed once on standard output for the person who typed the start command. Under systemd
// standard output is the journal, which every member of systemd-journal and adm reads and
// which keeps it for months: there the password goes to a file of the data folder that only
// the daemon's user reads, and the journal says where. (The Debian package sets
// FW_ADMIN_PASSWORD itself at install, so this is the case of an operator who removed it.)
import fs from 'node:fs';
import path from 'node:path';

export const FIRST_PASSWORD_FILE = 'initial-admin-password';

/** Where ensureAdmin's line with the generated password goes: standard output, or the file when `toJournal`. */
export function passwordAnnouncer(dataDir: string, toJournal: boolean): (line: string) => void {
  if (!toJournal) return (line) => process.stdout.write(`${line}\n`);
  return (line) => {
    const file = path.join(dataDir, FIRST_PASSWORD_FILE);
    fs.writeFileSync(file, `${line}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600); // an older file keeps its mode on a write
    const account = /account "([^"]*)"/.exec(line)?.[1] ?? 'admin';
    process.stdout.write(`initial admin account "${account}": its password is in ${file} (readable by the daemon's user only); delete the file once you have logged in\n`);
  };
}
