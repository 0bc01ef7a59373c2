// Weak secrets refused at start, with the real process (dist/src/main.js as `npm start` runs
// it): a JWT secret under 256 bits, a first admin password the API would refuse, a first admin
// name the login would refuse. The process exits 1 with one line that says why and how to fix.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { MAIN, kill9, startChild } from '../helpers/process';
import { ADMIN_PASSWORD, Client, tempDir } from '../helpers/daemon';

/** Runs the daemon with `env` on a fresh folder, expecting it to stop at once: its exit code and standard error. */
function refusal(env: Record<string, string>): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', FW_PORT: '0', FW_INTERFACES: 'eth0', FW_DATA_DIR: tempDir(), FW_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env },
    encoding: 'utf8', timeout: 30_000,
  });
  return { status: r.status, stderr: r.stderr };
}

test('FW_JWT_SECRET under 32 bytes: the daemon exits 1 saying why and how to make one', () => {
  for (const secret of ['a', 's3cret', 'x'.repeat(31)]) {
    const r = refusal({ FW_JWT_SECRET: secret });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`fwd: FW_JWT_SECRET is ${secret.length} bytes; a signing secret needs at least 32 (256 bits, RFC 7518 3.2): generate one with: openssl rand -base64 32, or leave it unset to have one generated and kept in the store\n`);
  }
  // bytes, not characters: ten three-byte characters are 30 bytes
  expect(refusal({ FW_JWT_SECRET: '€'.repeat(10) }).stderr).toContain('is 30 bytes');
});

test('FW_ADMIN_PASSWORD the API would refuse (12 to 1024 characters): the daemon exits 1', () => {
  for (const password of ['x', 'eleven-char', 'y'.repeat(1025)]) {
    const r = refusal({ FW_ADMIN_PASSWORD: password });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`fwd: FW_ADMIN_PASSWORD: a password is 12 to 1024 characters, got ${password.length} (the rule of every account); generate one with: openssl rand -base64 32, or leave it unset to have one printed on first start\n`);
    expect(r.stderr).not.toContain(password); // the secret itself is not repeated
  }
});

test('FW_ADMIN_USER outside the user name rule: the daemon exits 1 (the login would refuse the name)', () => {
  const r = refusal({ FW_ADMIN_USER: 'root admin' });
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/^fwd: FW_ADMIN_USER "root admin": a name is 1-64 characters of letters/);
});

test('a random secret of 32 bytes and a password of 12 characters start, and the admin logs in', async () => {
  // 32 bytes of one letter are refused now (test/api/secret-strength.test.ts)
  const child = await startChild({ FW_DATA_DIR: tempDir(), FW_JWT_SECRET: randomBytes(24).toString('base64'), FW_ADMIN_PASSWORD: 'twelve-chars' });
  try {
    await new Client(child.url).login('admin', 'twelve-chars');
  } finally {
    await kill9(child);
  }
});
