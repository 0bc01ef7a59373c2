// One daemon per data directory. The lock is a pid file created with O_EXCL; a file left by
// a daemon that died (kill -9, power loss) is taken over. Liveness is checked with signal 0
// and, on Linux, the process start time, so a pid reused by an unrelated process after a
// reboot does not block the directory forever. Synchronous: used once, at start-up.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FILE_MODE, errCode } from './files';

export const LOCK_FILE = 'daemon.pid';

export class DataDirLocked extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`data directory ${dir} is in use by another daemon (pid ${pid})`);
    this.name = 'DataDirLocked';
  }
}

export interface DirLock {
  readonly file: string;
  /** Pid of a dead daemon whose lock was taken over, if any. */
  readonly tookOverFrom: number | null;
  release(): void;
}

interface Holder {
  pid: number;
  start: string; // process start time in clock ticks since boot ("" when unknown)
}

/** The start time of a process (field 22 of /proc/<pid>/stat), "" when unavailable. */
function startTime(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may contain spaces
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? '';
  } catch {
    return '';
  }
}

function parseHolder(text: string): Holder | null {
  const [pidText, start = ''] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, start } : null;
}

/** Lock files held by this process (a second open in the same process must fail too). */
const held = new Set<string>();

/** True when the process that wrote the lock still runs. */
function isAlive(h: Holder, file: string): boolean {
  // our own pid but not our lock: a previous life with the same pid (container restart)
  if (h.pid === process.pid) return held.has(file);
  try {
    process.kill(h.pid, 0);
  } catch (e) {
    if (errCode(e) !== 'EPERM') return false; // ESRCH: no such process
  }
  if (!h.start) return true;
  const now = startTime(h.pid);
  return now === '' || now === h.start;
}

function readHolder(file: string): Holder | null | undefined {
  try {
    return parseHolder(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    if (errCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

function tryCreate(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', FILE_MODE);
  } catch (e) {
    if (errCode(e) === 'EEXIST') return false;
    throw e;
  }
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * Takes the lock on `dir` or throws DataDirLocked naming the daemon that holds it.
 */
export function acquireDirLock(dir: string): DirLock {
  const file = path.join(fs.realpathSync(dir), LOCK_FILE);
  const content = `${process.pid} ${startTime(process.pid)}\n`;
  let tookOverFrom: number | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!held.has(file) && tryCreate(file, content)) {
      held.add(file);
      return {
        file,
        tookOverFrom,
        release() {
          if (!held.delete(file)) return;
          const h = readHolder(file);
          if (h && h.pid === process.pid) fs.rmSync(file, { force: true });
        },
      };
    }
    const holder = readHolder(file);
    if (holder === undefined) continue; // released meanwhile
    if (holder && isAlive(holder, file)) throw new DataDirLocked(dir, holder.pid);
    // Stale. Move it aside atomically, then check that what we moved is still the stale
    // file and not the fresh lock of a daemon that took it over at the same moment.
    const aside = `${file}.stale-${process.pid}`;
    try {
      fs.renameSync(file, aside);
    } catch (e) {
      if (errCode(e) === 'ENOENT') continue;
      throw e;
    }
    const moved = readHolder(aside);
    fs.rmSync(aside, { force: true });
    if (moved && isAlive(moved, file)) {
      tryCreate(file, `${moved.pid} ${moved.start}\n`); // put the other daemon's lock back
      throw new DataDirLocked(dir, moved.pid);
    }
    tookOverFrom = holder?.pid ?? null;
  }
  throw new Error(`could not take the lock ${file}: it keeps changing; is another daemon starting?`);
}
