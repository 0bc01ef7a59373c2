// Issue 38 item 5: weak secrets passed on length. FW_JWT_SECRET of 36 x "a" and the admin
// passwords "aaaaaaaaaaaa" and "123456789012" were accepted. The rule is now a floor on how
// many guesses zxcvbn's estimate says they need (src/auth/strength.ts), the same for the API
// (POST and PUT /api/users) and the start (FW_ADMIN_PASSWORD, FW_JWT_SECRET); a weak secret
// already in place stops the start with how to rotate it.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { MAIN, kill9, startChild } from '../helpers/process';
import { ADMIN_PASSWORD, Client, expectError, expectMessage, tempDir, useDaemon } from '../helpers/daemon';

const d = useDaemon();

const WEAK = ['aaaaaaaaaaaa', '123456789012', 'qwertyuiopasdf', 'Password2024!', 'abcabcabcabcabc'];

test('the API refuses guessable passwords, whatever their length, saying why and never echoing them', async () => {
  for (const password of WEAK) {
    const made = expectError(await d.client.post('/api/users', { username: 'weakling', password }), 400, 'ERR_NET_1004');
    expect(made.body.details).toMatch(/^field "password": a password must be hard to guess; this one is too easy to guess \((repeated characters|a sequence \(abc, 123\)|a keyboard pattern|a common password or word)?;? ?about 10\^\d+ guesses, at least 10\^8 needed\)$/);
    expect(made.body.details).not.toContain(password);
  }
  expect((await d.client.get('/api/users')).body.map((u: { username: string }) => u.username)).not.toContain('weakling');
  await d.client.post('/api/users', { username: 'strong', password: 'plum-harbour-47-kettle' }).then((r) => expectMessage(r, 'user created'));
  expectError(await d.client.put('/api/users/strong', { password: 'aaaaaaaaaaaa' }), 400, 'ERR_NET_1004');
  await new Client(d.url).login('strong', 'plum-harbour-47-kettle');
});

/** Runs the daemon with `env` on a fresh folder, expecting it to stop at once. */
function refusal(env: Record<string, string>): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', FW_PORT: '0', FW_INTERFACES: 'eth0', FW_DATA_DIR: tempDir(), FW_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env },
    encoding: 'utf8', timeout: 30_000,
  });
  return { status: r.status, stderr: r.stderr };
}

test('a first admin password that is easy to guess stops the start', () => {
  for (const password of ['aaaaaaaaaaaa', '123456789012']) {
    const r = refusal({ FW_ADMIN_PASSWORD: password });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^fwd: FW_ADMIN_PASSWORD: a password must be hard to guess; this one is too easy to guess \(.*about 10\^\d guesses, at least 10\^8 needed\) \(the rule of every account\); generate one with: openssl rand -base64 32/);
    expect(r.stderr).not.toContain(password);
  }
});

test('a JWT secret of 32 bytes or more that is easy to guess stops the start, with how to rotate it', () => {
  for (const secret of ['a'.repeat(36), '0123456789abcdef0123456789abcdef', 'my-jwt-secret-my-jwt-secret-1234', 'correcthorsebatterystaplecorrecthorse']) {
    const r = refusal({ FW_JWT_SECRET: secret });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^fwd: FW_JWT_SECRET is too easy to guess \(.*at least 10\^26 needed\): generate one with: openssl rand -base64 32\. To rotate it, put the new one in place of the old \(on every instance of a cluster\) and restart/);
    expect(r.stderr).not.toContain(secret);
  }
});

test('random secrets of 32 characters start: openssl rand -base64 32, -base64 24, -hex 16', async () => {
  for (const secret of [randomBytes(32).toString('base64'), randomBytes(24).toString('base64'), randomBytes(16).toString('hex')]) {
    const password = randomBytes(15).toString('base64');
    const child = await startChild({ FW_DATA_DIR: tempDir(), FW_JWT_SECRET: secret, FW_ADMIN_PASSWORD: password });
    try {
      await new Client(child.url).login('admin', password);
    } finally {
      await kill9(child);
    }
  }
});
