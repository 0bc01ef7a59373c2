// A cluster under failure: a commit worker killed mid-commit, an instance frozen or killed and
// restarted, Redis stopped and restarted under load. Each test has a cluster of its own.
import { Client, expectError, expectMessage, ok } from '../helpers/daemon';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';
import { kill9 } from '../helpers/process';

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** Adds `n` addresses and one policy per address through `c` (a candidate that takes a while to compile). */
async function bigCandidate(c: Client, n: number): Promise<void> {
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (_, k) => i + k);
    for (const r of await Promise.all(batch.map((j) => c.post('/api/addresses', { name: `a${j}`, ips: [`10.${j >> 8}.${j & 255}.0/24`] })))) {
      expect(r.status).toBe(200);
    }
    for (const r of await Promise.all(batch.map((j) => c.post('/api/policies', { action: j % 2 ? 'allow' : 'deny', 'dst-addr': `a${j}` })))) {
      expect(r.status).toBe(200);
    }
  }
}

test('a worker killed mid-commit: running stays whole, another worker finishes the same job once', async () => {
  // no deep analysis: three instances analysing 1,500 policies would only slow the machine
  cluster = await startCluster(3, { FW_WORKER: 'off', FW_COMMIT_TIMEOUT: '90', FW_ANALYSIS_TIMEOUT: '0' });
  const [a, b, c] = cluster.clients;
  const first = await cluster.startWorker();
  await a.begin();
  await bigCandidate(b, 1500);
  const claim = `fw:{${cluster.name}}:claim`;
  const redis = cluster.peek();
  const commit = c.post('/api/config/commit', { description: 'survives a dead worker' });
  // kill the worker once it has claimed the session: it is validating or compiling
  const deadline = Date.now() + 20_000;
  while ((await redis.exists(claim)) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  expect(await redis.exists(claim)).toBe(1);
  await kill9(first);
  for (const x of [a, b, c]) {
    expect((await x.get('/api/status')).body.version).toBe(0);
    expect((await x.get('/api/policies')).body).toEqual([]);
  }
  // while the dead worker's commit is pending, changes are refused: nothing slips in
  expectError(await a.post('/api/addresses', { name: 'sneaky', ips: ['10.99.0.0/16'] }), 409, 'ERR_SYS_3002');
  await cluster.startWorker();
  const answer = await commit;
  expectMessage(answer, 'commit successful');
  expect(answer.body.version).toBe('1');
  // the same commit sent again is the same job: answered, never applied twice
  const again = await a.post('/api/config/commit', { description: 'survives a dead worker' });
  expect(again.status === 200 || again.status === 409).toBe(true);
  const versions = (await b.get('/api/config/versions')).body;
  expect(versions.map((v: { version: number }) => v.version)).toEqual([0, 1]);
  for (const x of [a, b, c]) {
    const policies = (await x.get('/api/policies')).body;
    expect(policies).toHaveLength(1500);
    expect(Object.keys((await x.get('/api/addresses')).body)).toHaveLength(1500);
  }
  // and the next session commits as usual
  await a.begin();
  await b.post('/api/addresses', { name: 'next', ips: ['10.200.0.0/16'] });
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
}, 180_000); // a dead worker's job waits out its lock (10 s) and a stalled check (5 s)

test('a retried commit after a 504 joins the same job and is applied once', async () => {
  cluster = await startCluster(2, { FW_WORKER: 'off', FW_COMMIT_TIMEOUT: '1' });
  const [a, b] = cluster.clients;
  await a.begin();
  await b.post('/api/addresses', { name: 'x', ips: ['10.1.0.0/16'] });
  // a worker that is alive but frozen: the job waits in the queue and the request answers 504
  // after 1 s (with no worker alive at all it would be 503 ERR_SYS_4007 at once: no-worker.test.ts)
  const worker = await cluster.startWorker();
  worker.proc.kill('SIGSTOP');
  try {
    expectError(await a.post('/api/config/commit'), 504, 'ERR_SYS_4004');
    expect((await b.get('/api/config/versions')).body).toHaveLength(1);
  } finally {
    worker.proc.kill('SIGCONT');
  }
  expect(await eventually(async () => (await b.get('/api/status')).body.version === 1, 10_000)).toBe(true);
  // the client retries: the job is already done; it is not applied a second time
  const retry = await b.post('/api/config/commit');
  expect([200, 409]).toContain(retry.status);
  if (retry.status === 409) expectError(retry, 409, 'ERR_SYS_3001'); // the session ended with its commit
  expect((await a.get('/api/config/versions')).body).toHaveLength(2);
});

test('a frozen instance is named in the commit answer; it catches up when it wakes', async () => {
  cluster = await startCluster(3, { FW_COMMIT_SYNC_TIMEOUT: '1' });
  const [a, b] = cluster.clients;
  await a.begin();
  await a.post('/api/addresses', { name: 'y', ips: ['10.2.0.0/16'] });
  cluster.nodes[2].proc.kill('SIGSTOP');
  try {
    const r = expectMessage(await b.post('/api/config/commit'), 'commit successful');
    expect(r.body.unconfirmed_nodes).toBe('node2');
  } finally {
    cluster.nodes[2].proc.kill('SIGCONT');
  }
  const c = cluster.clients[2];
  expect(await eventually(async () => (await c.get('/api/status')).body.version === 1, 5000)).toBe(true);
  expect(Object.keys((await c.get('/api/addresses')).body)).toEqual(['y']);
});

test('an instance killed and restarted rejoins with the current version', async () => {
  cluster = await startCluster(3, { FW_COMMIT_SYNC_TIMEOUT: '1' });
  const [a, b] = cluster.clients;
  await kill9(cluster.nodes[2]);
  await a.begin();
  await a.post('/api/addresses', { name: 'z', ips: ['10.3.0.0/16'] });
  expectMessage(await b.post('/api/config/commit'), 'commit successful');
  // the dead node stops being live after a few missed heartbeats
  expect(await eventually(async () => {
    const nodes = (await a.get('/api/cluster/nodes')).body;
    return nodes.find((n: { id: string }) => n.id === 'node2')?.live === false;
  }, 10_000)).toBe(true);
  await cluster.restart(2);
  const c = cluster.clients[2];
  expect((await c.get('/api/status')).body.version).toBe(1);
  expect(Object.keys((await c.get('/api/addresses')).body)).toEqual(['z']);
  const nodes = (await a.get('/api/cluster/nodes')).body;
  expect(nodes.find((n: { id: string }) => n.id === 'node2')).toMatchObject({ live: true, version: 1 });
});

test('Redis stopped and restarted under load: 503s within a second, reads from memory, nothing acknowledged lost', async () => {
  cluster = await startCluster(2);
  const [a, b] = cluster.clients;
  await a.begin();
  await a.post('/api/addresses', { name: 'base', ips: ['10.4.0.0/16'] });
  expectMessage(await b.post('/api/config/commit'), 'commit successful');
  await a.begin();
  const acked: string[] = [];
  let stop = false;
  let i = 0;
  const writers = [a, b].map(async (x) => {
    while (!stop) {
      const name = `w${i++}`;
      const r = await x.post('/api/addresses', { name, ips: [`10.${5 + (i >> 8)}.${i & 255}.0/24`] }).catch(() => null);
      if (r?.status === 200) acked.push(name);
      else await new Promise((res) => setTimeout(res, 20));
    }
  });
  await eventually(async () => acked.length >= 20, 10_000);
  await cluster.redis.stop();
  try {
    const started = Date.now();
    const refused = await b.post('/api/addresses', { name: 'during', ips: ['10.250.0.0/16'] });
    expect(Date.now() - started).toBeLessThan(3000); // bounded: never hangs
    expectError(refused, 503, 'ERR_SYS_4002');
    // the running configuration and packet eval still answer from memory
    expect(Object.keys((await a.get('/api/addresses')).body)).toEqual(['base']);
    const ev = await b.post('/api/eval', { 'src-ip': '10.0.0.1', 'dst-ip': '10.4.0.1', protocol: 'tcp', 'dst-port': 80 });
    expect(ev.status).toBe(200);
    const status = (await a.get('/api/status')).body;
    expect(status).toMatchObject({ store: 'redis', store_reachable: false, version: 1 });
  } finally {
    await cluster.redis.restart();
  }
  for (const x of [a, b]) expect(await eventually(async () => (await x.get('/api/status')).body.store_reachable === true, 10_000)).toBe(true);
  const before = acked.length;
  expect(await eventually(async () => acked.length > before + 5, 10_000)).toBe(true); // writes flow again
  stop = true;
  await Promise.all(writers);
  // on a loaded machine a read may still miss the one-second command bound: ask again
  const candidateOf = async (x: Client) => {
    let r = await x.get('/api/addresses?config=candidate');
    for (let i = 0; i < 20 && r.status === 503; i++) r = await x.get('/api/addresses?config=candidate');
    return (await ok(Promise.resolve(r))).body;
  };
  for (const x of [a, b]) {
    const cand = await candidateOf(x);
    expect(acked.filter((name) => !cand[name])).toEqual([]); // every acknowledged change is there
  }
  const cand = await candidateOf(b);
  expect((await a.get('/api/config/session')).body.changes).toBe(Object.keys(cand).length - 1);
  expectMessage(await a.post('/api/config/commit'), 'commit successful');
});

test('SIGTERM while Redis is down: an instance and a stand-alone worker stop at once, exit 0', async () => {
  cluster = await startCluster(1);
  const worker = await cluster.startWorker();
  const [node] = cluster.nodes;
  await cluster.redis.stop();
  // the instance has noticed (not ready: its store check fails fast); the worker is between
  // reconnections
  expect(await eventually(async () => (await fetch(`${node.url}/readyz`)).status === 503, 10_000)).toBe(true);
  const started = Date.now();
  node.proc.kill('SIGTERM');
  worker.proc.kill('SIGTERM');
  // BullMQ's close waited for Redis to come back: neither process ever exited
  expect(await Promise.all([node.exited, worker.exited])).toEqual([0, 0]);
  expect(Date.now() - started).toBeLessThan(5000);
}, 30_000);
