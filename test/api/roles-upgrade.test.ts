// A store written before roles existed: its accounts have no role, and every one of them was
// an administrator, so each reads as an admin when a daemon with roles opens it (both stores).
// One written before account ids: its accounts and API tokens keep working.
import fs from 'node:fs';
import path from 'node:path';
import { RedisStore } from '../../src/store/redis/redis-store';
import { Client, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';

test('accounts stored without a role are admins after the upgrade', async () => {
  const dir = tempDir();
  const first = await startTestDaemon({}, dir);
  try {
    const admin = await new Client(first.url).login();
    await ok(admin.post('/api/users', { username: 'legacy', password: 'legacy-password-1', role: 'viewer' }));
    const store = first.daemon.ctx.store;
    if (store instanceof RedisStore) {
      // as the previous version wrote it: no role field
      await store.redis.hset(store.keys.users, 'legacy', JSON.stringify({ username: 'legacy', hash: (await store.getUser('legacy'))!.hash, createdAt: 1 }));
      // and, as every upgrade from a version before sealed records: npm run adopt-records (docs/cluster.md)
      await store.adoptRecords();
    }
  } finally {
    await first.close();
  }
  const meta = path.join(dir, 'meta.json');
  if (fs.existsSync(meta)) {
    const m = JSON.parse(fs.readFileSync(meta, 'utf8'));
    for (const u of m.users) delete u.role;
    delete m.apiTokens;
    fs.writeFileSync(meta, JSON.stringify(m));
  }
  const second = await startTestDaemon({}, dir);
  try {
    const admin = await new Client(second.url).login();
    const users = (await ok(admin.get('/api/users'))).body;
    expect(users.map((u: { username: string; role: string }) => [u.username, u.role])).toEqual([['admin', 'admin'], ['legacy', 'admin']]);
    const legacy = await new Client(second.url).login('legacy', 'legacy-password-1');
    expect((await legacy.get('/api/me')).body.role).toBe('admin');
    // and the last-admin rule counts them
    await ok(admin.put('/api/users/legacy', { role: 'viewer' }));
    expect((await admin.put('/api/users/admin', { role: 'viewer' })).body.code).toBe('ERR_NET_2007');
  } finally {
    await second.close();
  }
});

/** Rewrites every stored account and API token as a daemon before account ids wrote them. */
async function stripIds(daemon: TestDaemon): Promise<void> {
  const store = daemon.daemon.ctx.store;
  if (!(store instanceof RedisStore)) return; // meta.json is rewritten once the daemon is stopped
  for (const [name, json] of Object.entries(await store.redis.hgetall(store.keys.users))) {
    const { id, epoch, mac, ...old } = JSON.parse(json); // eslint-disable-line @typescript-eslint/no-unused-vars
    await store.redis.hset(store.keys.users, name, JSON.stringify(old));
  }
  for (const [hash, json] of Object.entries(await store.redis.hgetall(store.keys.apiTokens))) {
    const { ownerId, epoch, mac, ...old } = JSON.parse(json); // eslint-disable-line @typescript-eslint/no-unused-vars
    await store.redis.hset(store.keys.apiTokens, hash, JSON.stringify(old));
  }
  // as every upgrade from a version before sealed records: npm run adopt-records (docs/cluster.md)
  await store.adoptRecords();
}

test('accounts and API tokens stored without an account id keep working after the upgrade, across restarts, until a reset', async () => {
  const dir = tempDir();
  let daemon = await startTestDaemon({}, dir);
  let apiToken = '';
  try {
    const admin = await new Client(daemon.url).login();
    await ok(admin.post('/api/users', { username: 'old-op', password: 'old-op-password-1', role: 'operator' }));
    const op = await new Client(daemon.url).login('old-op', 'old-op-password-1');
    apiToken = (await ok(op.post('/api/tokens', { name: 'ci', role: 'operator' }))).body.token;
    await stripIds(daemon);
  } finally {
    await daemon.close();
  }
  const meta = path.join(dir, 'meta.json');
  if (fs.existsSync(meta)) {
    const m = JSON.parse(fs.readFileSync(meta, 'utf8'));
    for (const u of m.users) {
      delete u.id;
      delete u.epoch;
    }
    for (const t of m.apiTokens) {
      delete t.ownerId;
      delete t.epoch;
    }
    fs.writeFileSync(meta, JSON.stringify(m));
  }
  const api = new Client('');
  api.token = apiToken;
  let login = new Client('');
  for (let start = 0; start < 2; start++) {
    daemon = await startTestDaemon({}, dir);
    try {
      api.url = login.url = daemon.url;
      expect((await ok(api.get('/api/me'))).body).toMatchObject({ username: 'old-op', role: 'operator', token: 'ci' });
      // a login after the upgrade still holds at the next start (the account's id is the same)
      if (start === 0) login = await new Client(daemon.url).login('old-op', 'old-op-password-1');
      expect((await ok(login.get('/api/me'))).body.username).toBe('old-op');
      if (start === 1) {
        const admin = await new Client(daemon.url).login();
        await ok(admin.put('/api/users/old-op', { password: 'new-op-password-2' }));
        expect((await api.get('/api/me')).body.code).toBe('ERR_SEC_5003');
        expect((await login.get('/api/me')).body.code).toBe('ERR_SEC_5003');
      }
    } finally {
      await daemon.close();
    }
  }
});
