// Issue 32, point 3: a cluster whose instances run with FW_WORKER=off and no commit worker.
// A commit is refused at once (503 ERR_SYS_4007, not a 504 after FW_COMMIT_TIMEOUT) and the
// session stays open for its owner; a worker that freezes while a commit waits for it has the
// job withdrawn and the same 503; while a commit is pending, the owner is told the session is
// busy, never that "another admin" holds it. Real processes on a throwaway redis-server.
import { ADMIN, expectError, expectMessage, type Client } from '../helpers/daemon';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';

let cluster: TestCluster;
let a: Client, b: Client;

beforeAll(async () => {
  cluster = await startCluster(2, { FW_WORKER: 'off', FW_ANALYSIS_TIMEOUT: '0' });
  [a, b] = cluster.clients;
});
afterAll(async () => {
  await cluster?.close();
});

function expectNoWorker(r: Awaited<ReturnType<Client['post']>>): void {
  expectError(r, 503, 'ERR_SYS_4007');
  expect(r.body.message).toBe('no commit worker is alive');
  expect(r.body.details).toMatch(/FW_WORKER=off and no `npm run worker` runs\): start one and commit again; the session stays open/);
}

test('no worker alive: the commit is 503 ERR_SYS_4007 at once; the session stays open and its owner goes on', async () => {
  await a.begin();
  expectMessage(await b.post('/api/addresses', { name: 'web', ips: ['10.0.0.10/32'] }), 'address created in candidate');
  expectNoWorker(await a.post('/api/config/commit', { description: 'nobody runs it' }));
  // nothing was queued or claimed: the owner continues on any instance
  expect((await b.get('/api/config/session')).body).toMatchObject({ active: true, owner: ADMIN, changes: 1 });
  expectMessage(await a.post('/api/addresses', { name: 'db', ips: ['10.0.0.20/32'] }), 'address created in candidate');
  expect(await cluster.peek().exists(`fw:{${cluster.name}}:claim`)).toBe(0);
  // once a worker runs, the same session commits
  const worker = await cluster.startWorker();
  const r = await b.post('/api/config/commit', { description: 'a worker runs it' });
  expectMessage(r, 'commit successful');
  expect(r.body.version).toBe('1');
  expect(Object.keys((await a.get('/api/addresses')).body).sort()).toEqual(['db', 'web']);
  // a worker that stops leaves the registry: the next commit is refused at once again
  worker.proc.kill('SIGTERM');
  expect(await worker.exited).toBe(0);
  await a.begin();
  expectNoWorker(await a.post('/api/config/commit'));
  expectMessage(await a.post('/api/config/discard'), 'config session discarded');
}, 60_000);

test('the worker freezes while a commit waits for it: the owner hears "busy", then 503 ERR_SYS_4007; nothing commits later', async () => {
  const worker = await cluster.startWorker();
  await a.begin();
  expectMessage(await a.post('/api/addresses', { name: 'app', ips: ['10.0.0.30/32'] }), 'address created in candidate');
  worker.proc.kill('SIGSTOP'); // alive to the registry for a few seconds more, taking no job
  try {
    const commit = a.post('/api/config/commit', { description: 'a frozen worker' });
    let refused: Awaited<ReturnType<Client['post']>> | undefined;
    let n = 0;
    expect(await eventually(async () => {
      refused = await a.post('/api/addresses', { name: `late${n++}`, ips: ['10.0.1.0/24'] });
      return refused.status === 409;
    }, 20_000)).toBe(true);
    expectError(refused!, 409, 'ERR_SYS_3002');
    expect(refused!.body.message).toBe('the session is busy: a commit of it is in progress');
    expect(refused!.body.details).toBe('a commit of this session is in progress');
    expect(refused!.text).not.toMatch(/another admin/);
    expectNoWorker(await commit);
  } finally {
    worker.proc.kill('SIGCONT');
  }
  // the withdrawn job never runs: the session is still open, the running version unchanged
  expect((await a.get('/api/config/session')).body).toMatchObject({ active: true, owner: ADMIN });
  expect((await b.get('/api/status')).body.version).toBe(1);
  const r = await a.post('/api/config/commit', { description: 'the worker is back' });
  expectMessage(r, 'commit successful');
  expect((await b.get('/api/config/versions')).body.map((v: { version: number }) => v.version)).toEqual([0, 1, 2]);
}, 60_000);
