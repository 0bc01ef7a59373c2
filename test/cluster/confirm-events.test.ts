// Commit confirmed and events in a cluster: the instance that made a commit confirmed dies,
// another instance reverts it at the deadline; every instance streams every event under the
// same ids; a lost instance is reported once as node left.
import { expectMessage, ok } from '../helpers/daemon';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';
import { kill9 } from '../helpers/process';
import { openEvents, type SseStream } from '../helpers/sse';

let cluster: TestCluster | undefined;
const streams: SseStream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  await cluster?.close();
  cluster = undefined;
});

async function stream(i: number, query = ''): Promise<SseStream> {
  const c = cluster!.clients[i];
  const s = await openEvents(c.url, `/api/events${query}`, { Authorization: `Bearer ${c.token}` });
  streams.push(s);
  return s;
}

test('the committing instance killed: another instance reverts the unconfirmed commit; both streams carry the same ids', async () => {
  cluster = await startCluster(3, { FW_ANALYSIS_TIMEOUT: '0' });
  const [a, b] = cluster.clients;
  const onB = await stream(1, '?types=commit,confirm');
  const onC = await stream(2, '?types=commit,confirm,node');
  await a.begin();
  await ok(a.post('/api/addresses', { name: 'doomed', ips: ['192.0.2.66'] }));
  const r = expectMessage(await a.post('/api/config/commit', { description: 'left unconfirmed', confirm_timeout: 2 }), 'commit successful');
  const version = Number(r.body.version);
  expect((await ok(b.get('/api/config/session'))).body.pending_confirm).toEqual(expect.objectContaining({ version }));
  await kill9(cluster.nodes[0]);
  await eventually(async () => (await b.get('/api/addresses/doomed')).status === 404, 30_000);
  const versions = (await ok(b.get('/api/config/versions'))).body;
  const revert = versions.filter((v: { description: string }) => v.description.startsWith('automatic rollback'));
  expect(revert).toHaveLength(1); // exactly one instance acted
  expect(revert[0].version).toBe(version + 1);
  const reverted = await onB.next((m) => m.event === 'confirm' && m.data.state === 'reverted', 'reverted on b');
  expect(reverted.data).toEqual(expect.objectContaining({ version, new_version: version + 1, restored_version: version - 1 }));
  // the same event under the same id on another instance
  const onCReverted = await onC.next((m) => m.event === 'confirm' && m.data.state === 'reverted', 'reverted on c');
  expect(onCReverted.id).toBe(reverted.id);
  const commitB = await onB.next((m) => m.event === 'commit' && m.data.version === version, 'commit on b');
  const commitC = await onC.next((m) => m.event === 'commit' && m.data.version === version, 'commit on c');
  expect(commitC.id).toBe(commitB.id);
  // the killed instance is reported as left, once, by one of the others
  const left = await onC.next((m) => m.event === 'node' && m.data.state === 'left' && m.data.node === 'node0', 'node0 left', 30_000);
  expect(['node1', 'node2']).toContain(left.data.origin);
  await new Promise((res) => setTimeout(res, 1500)); // a few more heartbeats: no second report
  expect(onC.messages.filter((m) => m.event === 'node' && m.data.state === 'left' && m.data.node === 'node0')).toHaveLength(1);
}, 120_000);

test('a client resumes on another instance with the Last-Event-ID of the first', async () => {
  cluster = await startCluster(2, { FW_ANALYSIS_TIMEOUT: '0' });
  const [a, b] = cluster.clients;
  const first = await stream(0, '?types=session');
  await a.begin();
  const begun = await first.next((m) => m.event === 'session' && m.data.state === 'begun', 'begun');
  first.close();
  await ok(a.post('/api/config/discard'));
  const resumed = await openEvents(b.url, '/api/events?types=session', { Authorization: `Bearer ${b.token}`, 'Last-Event-ID': begun.id! });
  streams.push(resumed);
  const next = await resumed.next(() => true, 'the event after');
  expect(next.data.state).toBe('discarded');
  expect(Number(next.id)).toBeGreaterThan(Number(begun.id));
}, 120_000);
