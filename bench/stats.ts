// Small statistics shared by the benchmarks.
import fs from 'node:fs';

/** The median of a non-empty list (the upper one of an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** CPU seconds a process (or with `thread`, its main thread alone) has used (user + system),
 * from /proc; NaN where there is none. */
export function cpuSeconds(pid: number, thread = false): number {
  try {
    const fields = fs.readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}
