// A lock held across the processes of one machine (jest runs test files in two workers): an
// exclusive file under the temporary folder naming its holder's pid. A holder that died without
// releasing it (kill -9 of a worker) is noticed by its pid and its lock taken over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Waits (polling, up to `waitMs`) for lock `name`; resolves to its release. */
export async function machineLock(name: string, waitMs: number): Promise<() => void> {
  const file = path.join(os.tmpdir(), `${name}.lock`);
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        fs.rmSync(file, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number(fs.readFileSync(file, 'utf8') || '0');
    // a dead holder's lock (or one being written this instant: pid 0, left alone)
    if (holder > 0 && holder !== process.pid && !alive(holder)) fs.rmSync(file, { force: true });
    else if (Date.now() > until) throw new Error(`lock ${file} still held by pid ${holder} after ${waitMs} ms`);
    else await new Promise((r) => setTimeout(r, 500));
  }
}
