// Event streams in a cluster: a credential ended on one instance (a logout, a deleted account)
// ends its streams on the others, which learn of it through the store's pub/sub.
import { Client, ok } from '../helpers/daemon';
import { startCluster, type TestCluster } from '../helpers/cluster';
import { openEvents, type SseStream } from '../helpers/sse';

let cluster: TestCluster | undefined;
const streams: SseStream[] = [];
afterAll(async () => {
  for (const s of streams.splice(0)) s.close();
  await cluster?.close();
});

async function open(url: string, token: string): Promise<SseStream> {
  const s = await openEvents(url, '/api/events', { Authorization: `Bearer ${token}` });
  streams.push(s);
  expect(s.status).toBe(200);
  return s;
}

/** Whether the server ends the stream (bounded: a stream left open fails the test, not hangs it). */
function ends(s: SseStream, ms = 15_000): Promise<boolean> {
  return Promise.race([s.ended.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
}

test('a logout on one instance and an account deleted on it end the streams on another', async () => {
  cluster = await startCluster(2, { FW_ANALYSIS_TIMEOUT: '0' });
  const [a, b] = cluster.clients;
  for (const [username, role] of [['vic', 'viewer'], ['otto', 'operator']]) {
    await ok(a.post('/api/users', { username, password: `${username}-password-1`, role }));
  }
  const vic = await new Client(a.url).login('vic', 'vic-password-1');
  const otto = await new Client(a.url).login('otto', 'otto-password-1');
  const ottoToken = (await ok(otto.post('/api/tokens', { name: 'watch', role: 'viewer' }))).body.token as string;
  const vicOnB = await open(b.url, vic.token);
  const ottoOnB = await open(b.url, ottoToken);
  const adminOnB = await open(b.url, b.token);
  await ok(vic.post('/api/logout'));
  expect(await ends(vicOnB)).toBe(true);
  await ok(a.del('/api/users/otto'));
  expect(await ends(ottoOnB)).toBe(true);
  // the admin's stream on b goes on
  await a.begin();
  await ok(a.post('/api/config/discard'));
  await adminOnB.next((m) => m.event === 'session' && m.data.state === 'discarded', 'session discarded on b');
});
