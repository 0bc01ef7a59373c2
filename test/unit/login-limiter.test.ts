// The in-memory failure log of the login limiter under a spray of names and addresses: its
// memory follows the keys still within their windows, not every key ever seen (the soak of
// issue 25 found it holding every key until 100,000 of them).
import { MemoryFailureLog } from '../../src/auth/login-limiter';

test('stale keys are dropped as new ones come: the log holds about the keys within their window', async () => {
  const log = new MemoryFailureLog();
  const windowMs = 60_000;
  let now = 1_000_000;
  let peak = 0;
  // 50 minutes of a spray: 1,000 new keys a minute, each failing once
  for (let minute = 0; minute < 50; minute++) {
    for (let k = 0; k < 1000; k++) {
      await log.add(`pair:10.${minute}.${k >> 8}.${k & 255} user${k}`, now, windowMs);
      now += 60;
      peak = Math.max(peak, log.size);
    }
  }
  // a minute's keys are live at any time: at most twice that are held, never the 50,000 seen
  expect(peak).toBeLessThanOrEqual(2 * 1000 + 1024);
  expect(log.size).toBeGreaterThan(0);
});

test('a key within its window keeps its failures through the drops', async () => {
  const log = new MemoryFailureLog();
  const now = 5_000_000;
  await log.add('ip:192.0.2.1', now, 3_600_000);
  for (let k = 0; k < 5000; k++) await log.add(`pair:198.51.100.${k & 255} u${k}`, now + 120_000 + k, 60_000);
  expect(await log.times('ip:192.0.2.1', now + 130_000, 3_600_000)).toEqual([now]);
});
