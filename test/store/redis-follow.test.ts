// Another instance follows a commit through its delta (issue 30): an instance that serves
// version N-1 applies the delta of N that the committing instance wrote to Redis, instead of
// reading and parsing the whole document (~13 MB at 100,000 policies); when a version was
// stored whole (or made on another commit) it reads it whole, as before.
import { CLUSTER_SECRET } from '../helpers/process';
import pino from 'pino';
import { randomUUID } from 'node:crypto';
import { RedisStore } from '../../src/store/redis/redis-store';
import { serializeDoc } from '../../src/config/document';
import type { ConfigDoc } from '../../src/config/types';
import { RunningVersions } from '../../src/session/running-versions';
import type { Compiler } from '../../src/session/types';
import type { Store } from '../../src/store/types';
import { startRedis, type TestRedis } from '../helpers/redis';
import { tempDir } from '../helpers/daemon';
import { commitEdit, editFor, markerDoc } from './helpers';

let redis: TestRedis;
const stores: RedisStore[] = [];

beforeAll(async () => {
  redis = await startRedis(tempDir());
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await redis?.stop();
});

async function instance(clusterName: string): Promise<RedisStore> {
  const s = new RedisStore({ url: redis.url, clusterName, sessionLeaseMs: 60_000, secret: CLUSTER_SECRET });
  stores.push(s);
  await s.open(() => markerDoc(0));
  return s;
}

const compiler: Compiler<number> = { compile: (doc: ConfigDoc) => Promise.resolve({ compiled: doc.policies.length, warnings: [] }) };

test('an instance serving the version before applies the deltas committed elsewhere; a version stored whole is read whole', async () => {
  const name = `follow-${randomUUID()}`;
  const committer = await instance(name);
  const follower = await instance(name);
  // the follower's store, counting the whole reads
  let wholeReads = 0;
  const counted: Pick<Store, 'runningVersion' | 'getVersion' | 'versionDelta'> = {
    runningVersion: () => follower.runningVersion(),
    getVersion: (n) => {
      wholeReads++;
      return follower.getVersion(n);
    },
    versionDelta: (n) => follower.versionDelta(n),
  };
  const versions = new RunningVersions(counted, compiler, pino({ level: 'silent' }));
  await versions.init();
  const served = () => JSON.stringify(serializeDoc(versions.current().doc));
  const stored = async (n: number) => JSON.stringify((await committer.getVersion(n))!.doc);

  for (let v = 1; v <= 3; v++) await commitEdit(committer, editFor(v));
  wholeReads = 0;
  await versions.refresh(); // three versions behind: three deltas
  expect(versions.current().meta.version).toBe(3);
  expect(served()).toBe(await stored(3));
  await versions.current().compiled;
  for (let v = 4; v <= 6; v++) {
    await commitEdit(committer, editFor(v));
    await versions.refresh();
    expect(versions.current().meta.version).toBe(v);
    expect(served()).toBe(await stored(v));
  }
  expect(wholeReads).toBe(0);

  await commitEdit(committer, editFor(7), false); // stored whole
  await versions.refresh();
  expect(served()).toBe(await stored(7));
  expect(wholeReads).toBe(1);
  await commitEdit(committer, editFor(8), 'other'); // made on another commit: whole
  await commitEdit(committer, editFor(9));
  await versions.refresh();
  expect(served()).toBe(await stored(9));
  expect(wholeReads).toBe(2);
});
