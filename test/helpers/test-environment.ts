// The jest environment of every project: Node's, and at teardown the removal of the folders
// the test file made with tempDir (temp-dirs.ts). Teardown runs after the file's last afterAll,
// so no daemon or redis-server of the file is still writing into them.
import fs from 'node:fs';
import { TestEnvironment } from 'jest-environment-node';
import { TEMP_DIRS_KEY } from './temp-dirs';

export default class TempDirsEnvironment extends TestEnvironment {
  override async teardown(): Promise<void> {
    const dirs = (this.global as unknown as Record<string, string[] | undefined>)[TEMP_DIRS_KEY] ?? [];
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    await super.teardown();
  }
}
