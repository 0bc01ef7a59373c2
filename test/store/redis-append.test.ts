// The Redis store's group append with footprints (scripts.ts APPEND), against a throwaway
// redis-server: a group lands after entries its instance has not seen only when none of them
// touched its keys (or may have touched anything); its own entries never count as unseen; a
// change that may touch anything needs a journal with nothing unseen; and the positions read
// back are the list's, wherever a group landed.
import { CLUSTER_SECRET } from '../helpers/process';
import { randomUUID } from 'node:crypto';
import { RedisStore } from '../../src/store/redis/redis-store';
import { StoreConflict, type JournalEntry } from '../../src/store/types';
import type { Change } from '../../src/config/changes';
import { emptyDoc, serializeDoc } from '../../src/config/document';
import { startRedis, type TestRedis } from '../helpers/redis';
import { tempDir } from '../helpers/daemon';

let redis: TestRedis;
let store: RedisStore;
let sessionId: string;

const create = (name: string): Change => ({ op: 'create', kind: 'address', body: { name, ips: ['10.0.0.1/32'] } });
const entries = (expected: number, names: string[]): JournalEntry[] =>
  names.map((n, i) => ({ seq: expected + i, at: Date.now(), user: 'admin', change: create(n) }));

beforeAll(async () => {
  redis = await startRedis(tempDir());
  store = new RedisStore({ url: redis.url, clusterName: `append${process.pid}`, sessionLeaseMs: 60_000, secret: CLUSTER_SECRET });
  await store.open(() => serializeDoc(emptyDoc()));
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

beforeEach(async () => {
  const head = await store.sessionHead();
  if (head) await store.endSession(head.session.id);
  sessionId = randomUUID();
  expect(await store.beginSession({ id: sessionId, owner: 'admin', startedAt: Date.now(), lastChangeAt: Date.now(), baseVersion: 0 })).toBeNull();
});

/** Appends `names` as instance `tag` that has seen everything before `unknownFrom` and expects the journal at `expected`. */
function append(tag: string, expected: number, unknownFrom: number, names: string[], keys: string[] | null = names.map((n) => `address:${n}`)) {
  return store.appendChanges(sessionId, entries(expected, names), { keys, unknownFrom, tag });
}

async function refused(p: Promise<unknown>): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(StoreConflict);
}

test('a group lands after unseen entries of other objects, and is refused after one that touched its object', async () => {
  expect(await append('A', 0, 0, ['a1', 'a2'])).toBe(0);
  // B saw nothing: its b1 does not meet a1 or a2, so it lands at 2
  expect(await append('B', 0, 0, ['b1'])).toBe(2);
  // B again on the same unseen prefix, creating a2 as well: refused, nothing appended
  await refused(append('B', 3, 0, ['b2', 'a2']));
  expect((await store.sessionHead())!.length).toBe(3);
  // once B has seen 0-1 (A's), a2 counts as seen and only its own entry 2 lies past that
  expect(await append('B', 3, 2, ['a2'])).toBe(3);
  const journal = (await store.journalSince(sessionId, 0))!;
  expect(journal.map((e) => [e.seq, (e.change as { body: { name: string } }).body.name])).toEqual([[0, 'a1'], [1, 'a2'], [2, 'b1'], [3, 'a2']]);
});

test("an instance's own entries past its unseen point are not unseen to it", async () => {
  expect(await append('A', 0, 0, ['x'])).toBe(0);
  expect(await append('B', 0, 0, ['y'])).toBe(1);
  // B creates y again, still not having seen x: its own y at 1 is known to it
  expect(await append('B', 2, 0, ['y'])).toBe(2);
  // but A, which has not seen B's entries, cannot touch y
  await refused(append('A', 1, 1, ['y']));
});

test('a change that may touch anything lands only with nothing unseen, and then blocks every unseen group', async () => {
  expect(await append('A', 0, 0, ['a'])).toBe(0);
  await refused(append('B', 0, 0, ['whole'], null));
  expect(await append('B', 1, 1, ['whole'], null)).toBe(1);
  // A has not seen B's change that may touch anything: even an unrelated object waits for it
  await refused(append('A', 1, 1, ['other']));
  expect(await append('A', 2, 2, ['other'])).toBe(2);
});

test('without a reach, the append is the plain compare-and-set on the length', async () => {
  await store.appendChange(sessionId, entries(0, ['p'])[0]);
  await refused(store.appendChange(sessionId, entries(0, ['q'])[0]));
  await store.appendChange(sessionId, entries(1, ['q'])[0]);
  expect((await store.sessionHead())!.length).toBe(2);
});

test('the writers of another session never count: a new session starts with nothing known touched', async () => {
  expect(await append('A', 0, 0, ['s'])).toBe(0);
  await store.endSession(sessionId);
  sessionId = randomUUID();
  expect(await store.beginSession({ id: sessionId, owner: 'admin', startedAt: Date.now(), lastChangeAt: Date.now(), baseVersion: 0 })).toBeNull();
  expect(await append('B', 0, 0, ['s'])).toBe(0);
  expect(await append('C', 0, 0, ['t'])).toBe(1);
});

test('writers lost while the journal lives (expired under a commit claim): every earlier entry counts as touching anything', async () => {
  expect(await append('A', 0, 0, ['a'])).toBe(0);
  await deleteKey(`fw:{append${process.pid}}:journal-writers`);
  await refused(append('B', 0, 0, ['b']));
  expect(await append('B', 1, 1, ['b'])).toBe(1);
});

test('entries appended without a record (an older daemon\'s plain append in a rolling upgrade) count as touching anything', async () => {
  expect(await append('A', 0, 0, ['a'])).toBe(0);
  // what the previous script did: the entry, and no writers
  await rawRpush(`fw:{append${process.pid}}:journal`, JSON.stringify({ seq: 1, at: 1, user: 'admin', change: create('older') }));
  await refused(append('B', 0, 0, ['b']));
  await refused(append('B', 2, 1, ['b']));
  expect(await append('B', 2, 2, ['b'])).toBe(2);
  expect((await store.journalSince(sessionId, 0))!.map((e) => e.seq)).toEqual([0, 1, 2]);
});

async function raw<T>(fn: (r: import('ioredis').default) => Promise<T>): Promise<T> {
  const { default: Redis } = await import('ioredis');
  const r = new Redis(redis.url);
  try {
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

const deleteKey = (key: string) => raw((r) => r.del(key));
const rawRpush = (key: string, line: string) => raw((r) => r.rpush(key, line));
