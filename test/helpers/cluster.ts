// A cluster for the tests: a throwaway redis-server and daemon instances (child processes, as
// in production) sharing it, plus optional stand-alone commit workers.
import Redis from 'ioredis';
import { Client, tempDir } from './daemon';
import { fixedPort, startRedis, type TestRedis } from './redis';
import { WORKER_MAIN, kill9, startChild, type Child } from './process';

export interface TestCluster {
  redis: TestRedis;
  name: string;
  nodes: Child[];
  clients: Client[];
  /** Starts instance `i` again (after a kill) with the same node id and `env` added; logs its client in. */
  restart(i: number, env?: Record<string, string>): Promise<void>;
  startWorker(): Promise<Child>;
  /** A plain Redis connection, to look at the keys (never to change them). */
  peek(): Redis;
  close(): Promise<void>;
}

/**
 * `count` instances on a new redis-server, with `env` added. With `fixedPorts` each instance
 * keeps its port across restarts (one below the ephemeral range: see fixedPort), as an
 * instance behind a load balancer does; else each start takes any free port.
 */
export async function startCluster(count: number, env: Record<string, string> = {}, fixedPorts = false): Promise<TestCluster> {
  const dir = tempDir('fwd-cluster-');
  const redis = await startRedis(dir);
  const name = `t${process.pid}${Math.random().toString(36).slice(2, 8)}`;
  const base = { REDIS_URL: redis.url, FW_CLUSTER_NAME: name, FW_DATA_DIR: dir, ...env };
  const ports: string[] = [];
  if (fixedPorts) for (let i = 0; i < count; i++) ports.push(String(await fixedPort()));
  const envOf = (i: number) => ({ ...base, FW_NODE_ID: `node${i}`, ...(fixedPorts ? { FW_PORT: ports[i] } : {}) });
  const workers: Child[] = [];
  const nodes: Child[] = [];
  let peeker: Redis | null = null;
  const cluster: TestCluster = {
    redis, name, nodes, clients: [],
    async restart(i, env = {}) {
      nodes[i] = await startChild({ ...envOf(i), ...env });
      cluster.clients[i] = await new Client(nodes[i].url).login();
    },
    async startWorker() {
      const w = await startChild(base, WORKER_MAIN, /"msg":"commit worker ready"/);
      workers.push(w);
      return w;
    },
    peek() {
      peeker ??= new Redis(redis.url, { lazyConnect: false });
      return peeker;
    },
    async close() {
      peeker?.disconnect();
      await Promise.all([...nodes, ...workers].map((c) => (c.proc.exitCode === null && c.proc.signalCode === null ? kill9(c) : undefined)));
      await redis.stop();
    },
  };
  try {
    for (let i = 0; i < count; i++) nodes.push(await startChild(envOf(i)));
    cluster.clients = await Promise.all(nodes.map((n) => new Client(n.url).login()));
  } catch (e) {
    await cluster.close();
    throw e;
  }
  return cluster;
}

/** Polls `check` every 50 ms until it returns true or `ms` pass; answers the last result. */
export async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
