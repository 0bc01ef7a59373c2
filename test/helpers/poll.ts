// Polling with a deadline, for tests that wait on run-time state (a generous bound against a
// hang; no speed is asserted by a deadline).

/** Resolves once `check` passes; throws naming `what` after `ms`. */
export async function until(check: () => Promise<boolean>, what: string, ms = 20_000, everyMs = 200): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Milliseconds until `want` holds (polled every `everyMs`), or null when it did not within `boundMs`. */
export async function within(boundMs: number, want: () => boolean | Promise<boolean>, everyMs = 100): Promise<number | null> {
  const t0 = Date.now();
  while (Date.now() - t0 < boundMs) {
    if (await want()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return null;
}
