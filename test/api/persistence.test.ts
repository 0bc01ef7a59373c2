// Durability of the embedded store across kill -9: the daemon runs as a child process
// (dist/src/main.js, exactly as `npm start` runs it) and is killed without warning.
import { ADMIN, Client, expectMessage, tempDir } from '../helpers/daemon';
import { kill9, startChild as spawnDaemon, type Child } from '../helpers/process';

function startChild(dir: string, extraEnv: Record<string, string> = {}): Promise<Child> {
  return spawnDaemon({ FW_DATA_DIR: dir, ...extraEnv });
}

test('after kill -9: running config, history, users, tokens and the session with every acknowledged change', async () => {
  const dir = tempDir();
  let child = await startChild(dir);
  const c = await new Client(child.url).login();
  expectMessage(await c.post('/api/users', { username: 'second', password: 'second-password' }), 'user created');
  await c.post('/api/config/begin');
  await c.post('/api/addresses', { name: 'committed', ips: ['10.0.0.0/8'] });
  expectMessage(await c.post('/api/config/commit', { description: 'first' }), 'commit successful');
  await kill9(child); // right after the commit was acknowledged

  child = await startChild(dir);
  c.url = child.url;
  expect((await c.get('/api/me')).status).toBe(200); // same secret: the old token still works
  expect(Object.keys((await c.get('/api/addresses')).body)).toEqual(['committed']);
  await new Client(child.url).login('second', 'second-password');
  await c.post('/api/config/begin');
  await c.post('/api/addresses', { name: 'pending1', ips: ['10.1.0.0/16'] });
  await c.put('/api/addresses/committed', { ips: ['10.2.0.0/16'] });
  await kill9(child); // with an active session and two acknowledged changes

  child = await startChild(dir);
  c.url = child.url;
  const session = (await c.get('/api/config/session')).body;
  expect(session).toMatchObject({ active: true, owner: ADMIN, changes: 2 });
  const cand = (await c.get('/api/addresses?config=candidate')).body;
  expect(Object.keys(cand)).toEqual(['committed', 'pending1']);
  expect(cand.committed.ips).toEqual([{ ip: [10, 2, 0, 0], mask: [255, 255, 0, 0] }]);
  expect((await c.get('/api/addresses/committed')).body.ips).toEqual([{ ip: [10, 0, 0, 0], mask: [255, 0, 0, 0] }]);
  const versions = (await c.get('/api/config/versions')).body;
  expect(versions.map((v: { version: number; description: string }) => [v.version, v.description])).toEqual([[0, 'initial configuration'], [1, 'first']]);
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  await kill9(child);
});

test('kill -9 during a burst of concurrent changes loses none that were acknowledged', async () => {
  const dir = tempDir();
  let child = await startChild(dir);
  const c = await new Client(child.url).login();
  expectMessage(await c.post('/api/config/begin'), 'config session started');
  // The kill comes once a random number of changes has been acknowledged, not after a fixed
  // time: on a loaded machine a fixed delay can end before the first answer (nothing left to
  // check) or after the last one (no burst to interrupt).
  const killAfter = 1 + Math.floor(Math.random() * 200);
  const acked: string[] = [];
  let killed: Promise<void> | undefined;
  const sends = Array.from({ length: 400 }, (_, i) => {
    const name = `n${i}`;
    return c.post('/api/addresses', { name, ips: [`10.${i >> 8}.${i & 255}.0/24`] }).then(
      (r) => {
        if (r.status !== 200) return;
        acked.push(name); // answered before the kill, even when read after it
        if (acked.length === killAfter) killed = kill9(child);
      },
      () => undefined, // the connection died with the daemon
    );
  });
  await Promise.all(sends);
  await (killed ?? kill9(child));
  expect(acked.length).toBeGreaterThanOrEqual(killAfter);

  child = await startChild(dir);
  c.url = child.url;
  const cand = (await c.get('/api/addresses?config=candidate')).body;
  for (const name of acked) expect(cand[name]).toBeDefined();
  expect((await c.get('/api/config/session')).body.changes).toBe(Object.keys(cand).length);
  await kill9(child);
});

test('a second daemon on the same folder refuses to start with a clear message', async () => {
  const dir = tempDir();
  const first = await startChild(dir);
  await expect(startChild(dir)).rejects.toThrow(/in use/);
  expect((await fetch(`${first.url}/api/status`)).status).toBe(401); // the first one still serves
  first.proc.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  const again = await startChild(dir); // a clean stop releases the folder
  await kill9(again);
  const afterCrash = await startChild(dir); // and so does a crash
  await kill9(afterCrash);
});

test('first start without FW_ADMIN_PASSWORD prints a random admin password once, on standard output', async () => {
  const dir = tempDir();
  let child = await startChild(dir, { FW_ADMIN_PASSWORD: '', FW_ADMIN_USER: 'root-admin' });
  const m = /initial admin account "root-admin" with password: (\S+)/.exec(child.stdout());
  expect(m).not.toBeNull();
  const password = m![1];
  expect(password.length).toBeGreaterThanOrEqual(16);
  const c = await new Client(child.url).login('root-admin', password);
  expect((await c.get('/api/me')).body.username).toBe('root-admin');
  // only the announcement line holds it: no log line does
  expect(child.stdout().split('\n').filter((l) => l.includes(password))).toHaveLength(1);
  child.proc.kill('SIGTERM');
  expect(await child.exited).toBe(0);
  child = await startChild(dir, { FW_ADMIN_PASSWORD: '', FW_ADMIN_USER: 'root-admin' });
  expect(child.stdout()).not.toContain('initial admin account');
  await new Client(child.url).login('root-admin', password);
  await kill9(child);
});
