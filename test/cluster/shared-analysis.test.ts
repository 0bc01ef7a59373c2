// The deep analysis of a version runs on one instance of a cluster and the others take its
// result (src/cluster/shared-analysis.ts): after a commit, exactly one instance's
// fwd_deep_analysis_passes_total{source="run"} goes up, the other two take the result
// (source="shared"), and GET /api/analysis answers the same deep pass on all three. A lease
// whose holder never publishes (an instance that died mid-pass) lapses, and one instance
// takes the pass over.
import Redis from 'ioredis';
import { Client, expectMessage } from '../helpers/daemon';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';

let cluster: TestCluster;
let clients: Client[];

beforeAll(async () => {
  cluster = await startCluster(3);
  clients = cluster.clients;
  // the start-up version's passes are over before anything is counted
  const version = Number(((await clients[0].get('/api/analysis')).body as { version: number }).version);
  await deepEverywhere(version, 30_000);
});
afterAll(async () => {
  await cluster?.close();
});

/** The instance's deep-analysis pass counts, from GET /metrics. */
async function passes(c: Client): Promise<{ run: number; shared: number }> {
  const text = (await c.get('/metrics')).text;
  const of = (source: string) => Number(new RegExp(`^fwd_deep_analysis_passes_total\\{source="${source}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { run: of('run'), shared: of('shared') };
}

const total = async () => {
  const all = await Promise.all(clients.map(passes));
  return { run: all.reduce((s, p) => s + p.run, 0), shared: all.reduce((s, p) => s + p.shared, 0), each: all };
};

/** Every instance answers the deep pass of `version`; their answers. */
async function deepEverywhere(version: number, ms: number): Promise<unknown[]> {
  let bodies: Array<Record<string, unknown>> = [];
  const ok = await eventually(async () => {
    bodies = (await Promise.all(clients.map((c) => c.get('/api/analysis')))).map((r) => r.body as Record<string, unknown>);
    return bodies.every((b) => b.version === version && b.pass === 'deep');
  }, ms);
  expect(bodies.map((b) => [b.version, b.pass])).toEqual(clients.map(() => [version, 'deep']));
  expect(ok).toBe(true);
  return bodies.map((b) => ({ ...b, neverHit: undefined }));
}

/** A commit of a few policies, one shadowing another, on instance `on`; its version. */
async function commit(on: Client, n: number): Promise<number> {
  expectMessage(await on.post('/api/config/begin'), 'config session started');
  for (const [p, body] of [
    ['/api/addresses', { name: `h${n}`, ips: [`10.1.${n}.1/32`] }],
    ['/api/policies', { action: 'deny' }],
    ['/api/policies', { action: 'allow', 'src-addr': `h${n}` }],
  ] as const) expect((await on.post(p, body)).status).toBeLessThan(300);
  const r = await on.post('/api/config/commit', { description: `shared analysis ${n}` });
  expectMessage(r, 'commit successful');
  return Number(r.body.version);
}

test('a commit\'s deep pass runs on one instance; the others take its result and answer the same', async () => {
  const before = await total();
  const version = await commit(clients[1], 1);
  const answers = await deepEverywhere(version, 30_000);
  expect(answers[1]).toEqual(answers[0]);
  expect(answers[2]).toEqual(answers[0]);
  expect((answers[0] as { shadowed: unknown[] }).shadowed.length).toBeGreaterThan(0);
  const after = await total();
  expect(after.run - before.run).toBe(1);
  expect(after.shared - before.shared).toBe(2);
});

test('a lease whose holder never publishes lapses, and one instance takes the pass over', async () => {
  const current = Number(((await clients[0].get('/api/analysis')).body as { version: number }).version);
  const next = current + 1;
  // an instance that claimed the next version's pass and died: its lease, renewed by no one
  const redis = new Redis(cluster.redis.url);
  try {
    const key = `fw:{${cluster.name}}:shared:lease:deep-analysis:${next}`;
    expect(await redis.set(key, 'dead-instance', 'PX', 3000, 'NX')).toBe('OK');
    const before = await total();
    const t0 = Date.now();
    const version = await commit(clients[2], 2);
    expect(version).toBe(next);
    const answers = await deepEverywhere(version, 40_000);
    // not before the dead holder's lease lapsed
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2500);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    const after = await total();
    expect(after.run - before.run).toBe(1);
    expect(after.shared - before.shared).toBe(2);
  } finally {
    redis.disconnect();
  }
});

test('the instance that analyzed the version before analyzes the next one, whichever instance committed it', async () => {
  // its analysis thread holds the memo of the version before: its pass is incremental, where
  // another instance's would be whole (seconds at 100,000 policies)
  const a = await total();
  const first = await commit(clients[0], 3);
  await deepEverywhere(first, 30_000);
  const b = await total();
  const ran = b.each.findIndex((p, i) => p.run > a.each[i].run);
  expect(ran).toBeGreaterThanOrEqual(0);
  for (const [n, on] of [[4, (ran + 1) % 3], [5, (ran + 2) % 3]]) {
    const before = await total();
    const version = await commit(clients[on], n);
    await deepEverywhere(version, 30_000);
    const after = await total();
    expect(after.each.map((p, i) => p.run - before.each[i].run)).toEqual(clients.map((_, i) => (i === ran ? 1 : 0)));
  }
});
