// Whole configurations on the Redis store's bulk lane (src/store/redis/bulk-lane.ts): values
// over 256 KB are written and read on a connection of their own and come back in pieces of
// 1 MiB, split at byte offsets, so a piece may end inside a UTF-8 character: what is read must
// be what was written, multibyte text across piece boundaries included.
import { CLUSTER_SECRET } from '../helpers/process';
import { randomUUID } from 'node:crypto';
import { RedisStore } from '../../src/store/redis/redis-store';
import type { Change } from '../../src/config/changes';
import { emptyDoc, serializeDoc } from '../../src/config/document';
import { startRedis, type TestRedis } from '../helpers/redis';
import { tempDir } from '../helpers/daemon';

let redis: TestRedis;
let store: RedisStore;

beforeAll(async () => {
  redis = await startRedis(tempDir());
  store = new RedisStore({ url: redis.url, clusterName: `bulk${process.pid}`, sessionLeaseMs: 60_000, secret: CLUSTER_SECRET });
  await store.open(() => serializeDoc(emptyDoc()));
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

/** ~3.6 MB of one-, two-, three- and four-byte characters, none at a piece's end on purpose. */
const text = (seed: string) => `${seed}:${'aé€🔥'.repeat(360_000)}`;

test('a big journal entry and a big version record read back exactly, in pieces', async () => {
  const id = randomUUID();
  expect(await store.beginSession({ id, owner: 'admin', startedAt: Date.now(), lastChangeAt: Date.now(), baseVersion: 0 })).toBeNull();
  const small: Change = { op: 'create', kind: 'address', body: { name: 'a1', ips: ['10.0.0.1/32'] } };
  const big = { op: 'create', kind: 'address', body: { name: 'a2', ips: ['10.0.0.2/32'], description: text('journal') } } as unknown as Change;
  await store.appendChanges(id, [{ seq: 0, at: 1, user: 'admin', change: small }]);
  await store.appendChanges(id, [{ seq: 1, at: 2, user: 'admin', change: big }]);
  // past 256 KB from position 0 or 1: fetched on the lane; from 2 on: nothing, in the same read
  for (const from of [0, 1, 2]) {
    const since = await store.sessionSince(from);
    expect(since?.head.length).toBe(2);
    expect(since?.entries.map((e) => [e.seq, e.change])).toEqual([[0, small], [1, big]].slice(from));
  }
  expect((await store.journalSince(id, 1))?.[0].change).toEqual(big);
  expect(await store.journalSince(randomUUID(), 0)).toBeNull();

  await store.claimCommit(id, 2, 60_000);
  const record = { version: 1, author: 'admin', time: 3, description: text('version'), summary: '', doc: serializeDoc(emptyDoc()) };
  await store.commit(id, 2, record);
  expect(await store.getVersion(1)).toEqual(record);
  expect(await store.getVersion(2)).toBeUndefined();
  expect(await store.sessionSince(0)).toBeNull();
});

// CI (the nginx proxy test): after Redis came back, an instance whose command connection was
// ready answered /readyz 200 while its write connection still reconnected, and a login sent
// to it answered 503 "Stream isn't writeable". Readiness now covers every connection.
test('the store is ready only while its write connections are up too', async () => {
  const own = new RedisStore({ url: redis.url, clusterName: `ready${process.pid}`, sessionLeaseMs: 60_000, secret: CLUSTER_SECRET });
  try {
    await own.open(() => serializeDoc(emptyDoc()));
    await expect(own.ping()).resolves.toBeUndefined();
    expect(own.reachable()).toBe(true);
    // the bulk lane down, the command connection up (the lane is the store's own; reached here to cut it alone)
    const lane = (own as unknown as { writes: { bulk: { conn: { disconnect(): void; once(e: string, f: () => void): void } } } }).writes.bulk.conn;
    const ended = new Promise<void>((resolve) => lane.once('end', resolve));
    lane.disconnect();
    await ended;
    await expect(own.ping()).rejects.toMatchObject({ code: 'ERR_SYS_4002' });
    expect(own.reachable()).toBe(false);
  } finally {
    await own.close();
  }
});
