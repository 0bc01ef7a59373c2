// Redis Sentinel failover under load, with real processes: a primary, two replicas and three
// sentinels (down after one second), three daemon instances with FW_REDIS_MIN_REPLICAS=1, and
// eight writers recording every change the API acknowledged. The primary is killed with
// SIGKILL: after the promotion writes are acknowledged again, every acknowledged change is in
// the candidate on every instance, a commit works everywhere, and the old primary, back as a
// replica, changes nothing. Then a failover with one sentinel dead, and writes with no replica
// left: 503 ERR_SYS_4006 until a replica returns. One cluster for the whole story (each step
// starts from where the previous one left it), cleaned up also when a step fails.
import { Client, expectError, expectMessage, tempDir } from '../helpers/daemon';
import { startChild, kill9, type Child } from '../helpers/process';
import { startSentinelSet, until, type TestSentinelSet } from '../helpers/sentinel';

jest.setTimeout(240_000);

const WRITERS = 8;

let set: TestSentinelSet | undefined;
let nodes: Child[] = [];
let clients: Client[] = [];

afterAll(async () => {
  await Promise.all(nodes.map((n) => (n.proc.exitCode === null && n.proc.signalCode === null ? kill9(n) : undefined)));
  await set?.close();
});

/** Eight writers adding addresses round robin over the instances, each recording what was acknowledged. */
class Writers {
  readonly acked: string[] = [];
  /** every answer that was neither 200 nor 503: none may occur */
  readonly unexpected: string[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[];

  constructor(readonly tag: string) {
    this.loops = Array.from({ length: WRITERS }, (_, k) => this.loop(k));
  }

  private async loop(k: number): Promise<void> {
    // a fresh name every time: a change answered 503 may have been made, and is never retried
    for (let i = 0; !this.stopped; i++) {
      const name = `${this.tag}-w${k}-${i}`;
      const r = await clients[(k + i) % clients.length].post('/api/addresses', { name, ips: [`10.${k}.${(i >> 8) & 255}.${i & 255}/32`] });
      if (r.status === 200) this.acked.push(name);
      else if (r.status === 503) await new Promise((res) => setTimeout(res, 50));
      else this.unexpected.push(`${r.status} ${r.text}`);
    }
  }

  /** Resolves once `n` more changes than now were acknowledged. */
  async more(n: number, ms: number, what: string): Promise<void> {
    const target = this.acked.length + n;
    await until(async () => this.acked.length >= target, ms, what);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}

/**
 * Every acknowledged name is in what `path` answers, on every instance. An instance whose
 * connection is still finding the new primary answers 503 for a moment (the documented
 * outage answer): it is asked again for up to 15 s, since writes come back by themselves.
 */
async function everywhere(path: string, names: string[]): Promise<void> {
  for (const c of clients) {
    let r = await c.get(path);
    for (const deadline = Date.now() + 15_000; r.status === 503 && Date.now() < deadline; r = await c.get(path)) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect({ url: c.url, status: r.status, text: r.status === 200 ? '' : r.text }).toEqual({ url: c.url, status: 200, text: '' });
    const have = new Set(Object.keys(r.body));
    expect(names.filter((n) => !have.has(n))).toEqual([]);
  }
}

/** Kills the primary, waits for the sentinels to name another; answers the new primary's port. */
async function failover(): Promise<number> {
  const old = await set!.primaryPort();
  await set!.server(old).kill();
  let now = old;
  await until(async () => (now = await set!.primaryPort()) !== old, 60_000, 'no replica was promoted');
  return now;
}

test('sentinel failovers: nothing acknowledged is lost, writes come back by themselves, and no replica means 503 ERR_SYS_4006', async () => {
  const dir = tempDir('fwd-sentinel-');
  set = await startSentinelSet(dir);
  const env = {
    ...set.env, FW_REDIS_MIN_REPLICAS: '1', FW_CLUSTER_NAME: `s${process.pid}`, FW_DATA_DIR: dir, FW_ANALYSIS_TIMEOUT: '0',
  };
  for (let i = 0; i < 3; i++) nodes.push(await startChild({ ...env, FW_NODE_ID: `node${i}` }));
  clients = await Promise.all(nodes.map((n) => new Client(n.url).login()));

  // 1. the primary dies under eight writers
  await clients[0].begin();
  let writers = new Writers('a');
  await writers.more(40, 30_000, 'writes were not acknowledged before the failover');
  const first = set.servers[0].port;
  const promoted = await failover();
  await writers.more(40, 30_000, 'writes were not acknowledged again after the promotion');
  await writers.stop();
  expect(writers.unexpected).toEqual([]);
  // the other replica follows the new primary
  const other = set.servers.find((s) => s.port !== first && s.port !== promoted)!;
  await until(async () => {
    const r = await set!.replication(other.port);
    return r.role === 'slave' && Number(r.master_port) === promoted && r.master_link_status === 'up';
  }, 30_000, 'the other replica did not follow the new primary');
  await everywhere('/api/addresses?config=candidate', writers.acked);
  const acked = [...writers.acked];
  const commit = await clients[1].post('/api/config/commit', { description: 'after the failover' });
  expect(commit.status === 200 ? '' : commit.text).toBe('');
  expectMessage(commit, 'commit successful');
  const version = Number(commit.body.version);
  await everywhere('/api/addresses', acked);
  for (const c of clients) expect((await c.get('/api/status')).body.version).toBe(version);

  // 2. the old primary, restarted as a replica of the new one, changes nothing
  await set.server(first).restart(['--replicaof', '127.0.0.1', String(promoted)]);
  await until(async () => (await set!.replication(first)).master_link_status === 'up', 30_000, 'the old primary did not sync as a replica');
  expect((await set.replication(first)).role).toBe('slave');
  for (const c of clients) {
    expect((await c.get('/api/status')).body.version).toBe(version);
    expect((await c.get('/api/config/versions')).body.map((v: { version: number }) => v.version).pop()).toBe(version);
  }
  await everywhere('/api/addresses', acked);

  // 3. a failover with one sentinel dead (the other two are still a quorum)
  await set.sentinels[0].kill();
  await clients[2].begin();
  writers = new Writers('b');
  await writers.more(40, 30_000, 'writes were not acknowledged before the second failover');
  // the primary now: the promoted one, unless the sentinels of a loaded machine moved it since
  // (what this test proves holds either way)
  const before = await set.primaryPort();
  const second = await failover();
  expect(second).not.toBe(before);
  await writers.more(40, 30_000, 'writes were not acknowledged again after the second promotion');
  await writers.stop();
  expect(writers.unexpected).toEqual([]);
  await everywhere('/api/addresses?config=candidate', writers.acked);

  // 4. no replica left: writes are refused as unconfirmed, and work again when one returns
  const replicas = set.servers.filter((s) => s.port !== second && s.port !== before);
  for (const r of replicas) await r.kill();
  let refused: { status: number; body: { code: string; details: string } } | undefined;
  let n = 0;
  await until(async () => {
    refused = await clients[n % 3].post('/api/addresses', { name: `c-${n++}`, ips: ['10.200.0.1/32'] });
    return refused.status === 503 && refused.body.code === 'ERR_SYS_4006';
  }, 15_000, 'writes without replicas were not refused with ERR_SYS_4006');
  expectError(refused as never, 503, 'ERR_SYS_4006');
  expect(refused!.body.details).toMatch(/^0 of the 1 replicas required/);
  await replicas[0].restart(['--replicaof', '127.0.0.1', String(second)]);
  await until(async () => (await clients[n % 3].post('/api/addresses', { name: `d-${n++}`, ips: ['10.201.0.1/32'] })).status === 200, 30_000, 'writes did not work again once a replica returned');
});
