// A store written before roles existed: its accounts have no role, and every one of them was
// an administrator, so each reads as an admin when a daemon with roles opens it (both stores).
import fs from 'node:fs';
import path from 'node:path';
import { RedisStore } from '../../src/store/redis/redis-store';
import { Client, ok, startTestDaemon, tempDir } from '../helpers/daemon';

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
