// What fwctl prints: aligned tables for people, JSON for scripts (--json), messages on stderr.

/** Rows as an aligned text table with a header line. */
export function table(header: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd()).join('\n') + '\n';
}

/** Name/value pairs as two aligned columns. */
export function pairs(rows: Array<[string, string | number | null | undefined]>): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v === null || v === undefined ? '-' : v}`).join('\n') + '\n';
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Whether a progress line is open on stderr (written without its end yet). */
let lineOpen = false;
/** After an interruption, progress lines end no more: the interruption has the last word. */
let progressSilenced = false;

/** Ends an open progress line, and any later progress: for a message that comes in between. */
export function endProgress(): void {
  if (lineOpen) process.stderr.write('\n');
  lineOpen = false;
  progressSilenced = true;
}

/** A progress line on stderr (stdout stays for the answer); timed when done. */
export async function step<T>(label: string, quiet: boolean, run: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  const say = (text: string) => {
    if (!quiet && !progressSilenced) process.stderr.write(text);
  };
  say(`${label}...`);
  lineOpen = !quiet && !progressSilenced;
  try {
    const out = await run();
    say(` done (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
    return out;
  } catch (e) {
    say(' failed\n');
    throw e;
  } finally {
    lineOpen = false;
  }
}

/** `1 change`, `2 changes`: a count with its noun in the right number. */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}
