// Where Redis is: REDIS_URL, or REDIS_SENTINELS with REDIS_SENTINEL_MASTER, with REDIS_PASSWORD
// and rediss:// TLS, read once by settings.ts and turned into the connection options every
// connection (store, subscriber, queue, workers) is made with.
import { loadSettings } from '../../src/settings';
import { failFastOptions, patientOptions, describeTarget } from '../../src/store/redis/connection';

test('REDIS_URL alone: one server, no replica required', () => {
  const s = loadSettings({ REDIS_URL: 'redis://127.0.0.1:6400/3' });
  expect(s.redis).toEqual({ url: 'redis://127.0.0.1:6400/3', password: undefined, sentinelPassword: undefined });
  expect(s.redisMinReplicas).toBe(0);
  const o = failFastOptions(s.redis!);
  expect({ host: o.host, port: o.port, db: o.db, tls: o.tls, sentinels: o.sentinels, enableOfflineQueue: o.enableOfflineQueue, commandTimeout: o.commandTimeout })
    .toEqual({ host: '127.0.0.1', port: 6400, db: 3, tls: undefined, sentinels: undefined, enableOfflineQueue: false, commandTimeout: 1000 });
  expect(loadSettings({}).redis).toBeNull();
});

test('sentinels: the list, the master name, every replica the sentinels know required by default', () => {
  const s = loadSettings({ REDIS_SENTINELS: ' 10.0.0.1:26379, [::1]:26380 ,sentinel-3:26381', REDIS_SENTINEL_MASTER: 'fwd', REDIS_PASSWORD: 'pw' });
  expect(s.redis!.sentinels).toEqual([{ host: '10.0.0.1', port: 26379 }, { host: '::1', port: 26380 }, { host: 'sentinel-3', port: 26381 }]);
  expect(s.redisMinReplicas).toBe('all');
  const o = patientOptions(s.redis!);
  expect({ sentinels: o.sentinels, name: o.name, password: o.password, host: o.host, maxRetriesPerRequest: o.maxRetriesPerRequest })
    .toEqual({ sentinels: s.redis!.sentinels, name: 'fwd', password: 'pw', host: undefined, maxRetriesPerRequest: null });
  expect(loadSettings({ REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'fwd', FW_REDIS_MIN_REPLICAS: '2' }).redisMinReplicas).toBe(2);
  expect(loadSettings({ REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'fwd', FW_REDIS_MIN_REPLICAS: '0' }).redisMinReplicas).toBe(0);
  expect(loadSettings({ REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'fwd', FW_REDIS_MIN_REPLICAS: 'all' }).redisMinReplicas).toBe('all');
  // without sentinels nothing says how many replicas there are
  expect(() => loadSettings({ REDIS_URL: 'redis://127.0.0.1:6379', FW_REDIS_MIN_REPLICAS: 'all' })).toThrow(/FW_REDIS_MIN_REPLICAS=all needs REDIS_SENTINELS/);
});

test('password and TLS: REDIS_PASSWORD wins over the URL; rediss:// is TLS to the primary and the sentinels', () => {
  const one = failFastOptions({ url: 'rediss://user:url%40pw@redis.example:6380', password: 'env-pw' });
  expect({ username: one.username, password: one.password, tls: one.tls, port: one.port }).toEqual({ username: 'user', password: 'env-pw', tls: {}, port: 6380 });
  expect(failFastOptions({ url: 'redis://:url%40pw@h:1' }).password).toBe('url@pw');
  const viaSentinels = failFastOptions({ url: 'rediss://:pw@ignored:1/2', sentinels: [{ host: 's', port: 26379 }], sentinelMaster: 'fwd' });
  expect({ tls: viaSentinels.tls, sentinelTLS: viaSentinels.sentinelTLS, enable: viaSentinels.enableTLSForSentinelMode, db: viaSentinels.db, host: viaSentinels.host })
    .toEqual({ tls: {}, sentinelTLS: {}, enable: true, db: 2, host: undefined });
  // what the logs show: never the password
  expect(describeTarget({ url: 'redis://:secret@h:1/2' })).toBe('redis://h:1/2');
  expect(describeTarget({ sentinels: [{ host: 's', port: 1 }], sentinelMaster: 'fwd', password: 'secret' })).toBe('primary "fwd" via sentinels s:1');
});

test('bad Redis settings stop the start with a message naming the setting', () => {
  expect(() => loadSettings({ REDIS_SENTINELS: '10.0.0.1:26379' })).toThrow(/REDIS_SENTINELS needs REDIS_SENTINEL_MASTER/);
  expect(() => loadSettings({ REDIS_SENTINELS: '10.0.0.1', REDIS_SENTINEL_MASTER: 'fwd' })).toThrow('REDIS_SENTINELS: "10.0.0.1" is not host:port');
  expect(() => loadSettings({ REDIS_SENTINELS: 'h:70000', REDIS_SENTINEL_MASTER: 'fwd' })).toThrow('REDIS_SENTINELS: "h:70000" is not host:port');
  expect(() => loadSettings({ REDIS_URL: 'http://h:1' })).toThrow(/REDIS_URL must start with redis:\/\/ or rediss:\/\//);
  expect(() => loadSettings({ REDIS_URL: 'not a url' })).toThrow(/REDIS_URL must be/);
  expect(() => loadSettings({ REDIS_URL: 'redis://h:1', FW_REDIS_MIN_REPLICAS: '-1' })).toThrow(/FW_REDIS_MIN_REPLICAS must be an integer from 0 to 16/);
});
