// Temporary folders of a test file (daemon data, throwaway redis-servers, clusters), removed
// by the test environment (test-environment.ts) once all of the file's hooks have run: by then
// its daemons, redis-servers and child processes are stopped, whatever order the file closes
// them in, and a failing test leaves nothing behind either.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the folders of the running test file are listed: a property of the test file's
 * global object, which the environment reads at teardown. */
export const TEMP_DIRS_KEY = '__fwdTempDirs';

export function tempDir(prefix = 'fwd-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const g = globalThis as unknown as Record<string, string[] | undefined>;
  (g[TEMP_DIRS_KEY] ??= []).push(dir);
  return dir;
}
