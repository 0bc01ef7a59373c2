// The log as journald takes it. When systemd connects standard output to the journal it says
// so in JOURNAL_STREAM ("device:inode" of that stream); each line then starts with the
// priority prefix of sd-daemon(3) (<3> error ... <7> debug), which journald stores as the
// entry's PRIORITY, and the rest is the message with its fields as key=value (journald keeps
// the time, the pid and the unit itself). Elsewhere (a terminal, a pipe, a container's log)
// the lines stay pino's JSON.
import fs from 'node:fs';
import type { LoggerOptions } from 'pino';

/**
 * Whether standard output is the journal stream systemd set up (sd-daemon(3): compare
 * JOURNAL_STREAM with the device and inode of the stream, since a variable inherited by a
 * process whose output goes elsewhere must not change its format).
 */
export function logsToJournal(env: NodeJS.ProcessEnv = process.env, fd = 1): boolean {
  const m = /^(\d+):(\d+)$/.exec(env.JOURNAL_STREAM ?? '');
  if (!m) return false;
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    return st.dev === BigInt(m[1]) && st.ino === BigInt(m[2]);
  } catch {
    return false;
  }
}

/** The sd-daemon(3) priority of a pino level: fatal 2 (crit), error 3, warn 4, info 6, debug and trace 7. */
export function journalPriority(level: number): number {
  if (level >= 60) return 2;
  if (level >= 50) return 3;
  if (level >= 40) return 4;
  if (level >= 30) return 6;
  return 7;
}

/** The fields journald records by itself. */
const OWN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

function fieldValue(v: unknown): string {
  return typeof v === 'string' && /^[^\s"=\\]+$/.test(v) ? v : JSON.stringify(v) ?? String(v);
}

/** One pino JSON line as a journal line: `<6>listening port=8080 host=127.0.0.1`. */
export function journalLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json; // not pino's: as it is
  }
  const fields = Object.entries(entry).filter(([k]) => !OWN_FIELDS.has(k)).map(([k, v]) => `${k}=${fieldValue(v)}`);
  const msg = typeof entry.msg === 'string' ? entry.msg.replace(/\n/g, '\\n') : '';
  return `<${journalPriority(Number(entry.level))}>${[msg, ...fields].filter(Boolean).join(' ')}\n`;
}

/** The pino options that write journal lines when standard output is the journal; none elsewhere. */
export function journalLogOptions(env: NodeJS.ProcessEnv = process.env): Pick<LoggerOptions, 'hooks'> {
  return logsToJournal(env) ? { hooks: { streamWrite: journalLine } } : {};
}
