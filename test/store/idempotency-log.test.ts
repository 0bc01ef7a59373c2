// The embedded store's idempotency log stays bounded while the daemon runs: every keyed
// request adds a line, and once most lines are stale (expired answers) the file is rewritten
// with the kept ones, without losing an answer saved meanwhile.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IdempotencyLog } from '../../src/store/idempotency-log';
import { removeTmpDirs, tmpDir } from './helpers';

afterAll(removeTmpDirs);

const answer = (n: number) => ({ status: 200, body: JSON.stringify({ message: `answer ${n}` }), headers: {} });
const linesOf = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length;

async function saveKeyed(log: IdempotencyLog, scope: string, n: number, ttlMs: number): Promise<void> {
  expect(log.claim(scope, `fp${n}`, 60_000)).toBeNull();
  await log.save(scope, `fp${n}`, answer(n), ttlMs);
}

test('expired answers are compacted away while new ones keep being saved', async () => {
  const file = path.join(await tmpDir(), 'idempotency.log');
  const failures: Error[] = [];
  const log = new IdempotencyLog(file, (e) => failures.push(e));
  await log.open();
  // ten answers that stay, then 5,000 that expire at once (1 ms), saved in parallel batches
  for (let i = 0; i < 10; i++) await saveKeyed(log, `admin:keep-${i}`, i, 3_600_000);
  for (let b = 0; b < 50; b++) {
    await new Promise((r) => setTimeout(r, 2)); // the previous batch has expired
    await Promise.all(Array.from({ length: 100 }, (_, i) => saveKeyed(log, `admin:gone-${b}-${i}`, i, 1)));
  }
  await log.close();
  expect(failures).toEqual([]);
  // without compaction the file would hold 5,010 lines
  expect(linesOf(file)).toBeLessThan(1_300);

  const reopened = new IdempotencyLog(file, (e) => failures.push(e));
  await reopened.open();
  for (let i = 0; i < 10; i++) expect(reopened.claim(`admin:keep-${i}`, 'other', 60_000)).toEqual({ fingerprint: `fp${i}`, answer: answer(i) });
  expect(reopened.claim('admin:gone-49-99', 'fresh', 60_000)).toBeNull();
  await reopened.close();
  expect(linesOf(file)).toBe(10);
});
