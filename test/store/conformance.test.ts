// The Store contract (contract.ts) on the store of this jest project: the embedded store in
// the "embedded" project, a throwaway redis-server in the "redis" project (jest.config.js), as
// the HTTP API suite runs on both.
import { CLUSTER_SECRET } from '../helpers/process';
import { randomUUID } from 'node:crypto';
import { EmbeddedStore } from '../../src/store/embedded';
import { RedisStore } from '../../src/store/redis/redis-store';
import type { Store } from '../../src/store/types';
import { TEST_STORE, tempDir } from '../helpers/daemon';
import { startRedis, type TestRedis } from '../helpers/redis';
import { storeContract, type Backend, type StoreOptions } from './contract';
import { markerDoc } from './helpers';

const open: Store[] = [];

async function opened<S extends Store>(store: S): Promise<S> {
  open.push(store);
  await store.open(() => markerDoc(0));
  return store;
}

async function closeAll(): Promise<void> {
  for (const s of open.splice(0)) await s.close();
}

function embedded(): Backend {
  const dirs = new Map<Store, string>();
  const at = async (dir: string, opts?: StoreOptions) => {
    const s = await opened(new EmbeddedStore({ dir, ...opts }));
    dirs.set(s, dir);
    return s;
  };
  return {
    name: 'embedded',
    fresh: (opts) => at(tempDir('fw-contract-'), opts),
    async reopen(store, opts) {
      await store.close();
      return at(dirs.get(store)!, opts);
    },
    closeAll,
  };
}

function redis(): Backend {
  let server: TestRedis | undefined;
  beforeAll(async () => {
    server = await startRedis(tempDir('fw-contract-redis-'));
  });
  afterAll(() => server?.stop());
  const names = new Map<Store, string>();
  // each test its own firewall on the one server: a cluster name of its own is its own keys
  const at = async (clusterName: string, opts?: StoreOptions) => {
    const s = await opened(new RedisStore({ url: server!.url, clusterName, sessionLeaseMs: 60_000, secret: CLUSTER_SECRET, ...opts }));
    names.set(s, clusterName);
    return s;
  };
  return {
    name: 'redis',
    fresh: (opts) => at(`contract-${randomUUID()}`, opts),
    async reopen(store, opts) {
      await store.close();
      return at(names.get(store)!, opts);
    },
    closeAll,
  };
}

storeContract(TEST_STORE === 'redis' ? redis() : embedded());
