// GET /api/events: the Server-Sent Events stream of the configuration's life, on the real
// server: authentication, the events of a session and a commit
// with increasing ids, resuming with Last-Event-ID, resync when the id is not kept, type
// filters, heartbeats, and refusals of bad input.
import { Client, expectError, ok, startTestDaemon, useDaemon, type TestDaemon } from '../helpers/daemon';
import { openEvents, type SseStream } from '../helpers/sse';

const d = useDaemon({ FW_EVENTS_HEARTBEAT: '1', FW_EVENTS_KEEP: '10' });
const streams: SseStream[] = [];
const auth = () => ({ Authorization: `Bearer ${d.client.token}` });
async function open(path = '/api/events', headers: Record<string, string> = auth()): Promise<SseStream> {
  const s = await openEvents(d.url, path, headers);
  streams.push(s);
  return s;
}
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

async function addAddress(c: Client, name: string): Promise<void> {
  await ok(c.post('/api/addresses', { name, ips: ['192.0.2.10'] }));
}

test('without a token: 401 ERR_SEC_5001; a bad token 401 ERR_SEC_5003 (a token in the URL: event-streams.test.ts)', async () => {
  const none = await open('/api/events', {});
  expect({ status: none.status, code: none.error.code }).toEqual({ status: 401, code: 'ERR_SEC_5001' });
  const bad = await open('/api/events', { Authorization: 'Bearer nope' });
  expect({ status: bad.status, code: bad.error.code }).toEqual({ status: 401, code: 'ERR_SEC_5003' });
});

test('a session and a commit stream begun, commit, committed events with increasing ids and SSE headers', async () => {
  const s = await open();
  expect(s.status).toBe(200);
  expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(s.headers.get('cache-control')).toBe('no-store');
  expect(s.headers.get('x-request-id')).toBeTruthy();
  await d.client.begin();
  await addAddress(d.client, 'ev-a');
  const c = await ok(d.client.post('/api/config/commit', { description: 'events test' }));
  const begun = await s.next((m) => m.event === 'session' && m.data.state === 'begun', 'session begun');
  const commit = await s.next((m) => m.event === 'commit' && m.data.version === Number(c.body.version), 'commit');
  const committed = await s.next((m) => m.event === 'session' && m.data.state === 'committed', 'session committed');
  expect(begun.data).toEqual(expect.objectContaining({ owner: 'admin', user: 'admin' }));
  expect(commit.data).toEqual(expect.objectContaining({ author: 'admin', description: 'events test', summary: expect.stringMatching(/1 added/) }));
  expect(Number(begun.id)).toBeLessThan(Number(commit.id));
  expect(Number(commit.id)).toBeLessThan(Number(committed.id));
  // a node event tells which version each instance serves
  await s.next((m) => m.event === 'node' && m.data.state === 'version' && m.data.version === commit.data.version, 'node version');
});

test('rollback and discard are streamed; ?types= filters', async () => {
  const all = await open();
  const only = await open('/api/events?types=rollback');
  await d.client.begin();
  await ok(d.client.post('/api/config/rollback', { version: 0 }));
  await ok(d.client.post('/api/config/discard'));
  const rb = await all.next((m) => m.event === 'rollback', 'rollback');
  expect(rb.data).toEqual(expect.objectContaining({ version: 0, user: 'admin' }));
  await all.next((m) => m.event === 'session' && m.data.state === 'discarded', 'session discarded');
  await only.next((m) => m.event === 'rollback', 'rollback (filtered)');
  expect(only.messages.every((m) => m.event === 'rollback')).toBe(true);
});

test('Last-Event-ID resumes after that event: what happened while disconnected comes first, in order', async () => {
  const s = await open();
  await d.client.begin();
  const begun = await s.next((m) => m.event === 'session' && m.data.state === 'begun', 'session begun');
  s.close();
  await addAddress(d.client, 'ev-resume');
  await d.client.commit();
  const again = await open('/api/events', { ...auth(), 'Last-Event-ID': begun.id! });
  const first = await again.next(() => true, 'the first replayed event');
  expect(Number(first.id)).toBe(Number(begun.id) + 1);
  expect(first.event).toBe('commit'); // the change made in between is no event; the commit is
  await again.next((m) => m.event === 'session' && m.data.state === 'committed', 'replayed session committed');
  const ids = again.messages.map((m) => Number(m.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
  // the query form gives the same
  const q = await open(`/api/events?last_event_id=${begun.id}`);
  expect((await q.next(() => true, 'first event')).id).toBe(first.id);
});

test('an id older than the kept events, or unknown, gets one resync event with the newest id', async () => {
  const s = await open();
  // more events than FW_EVENTS_KEEP (10): each begin and discard is one
  for (let i = 0; i < 6; i++) {
    await d.client.begin();
    await ok(d.client.post('/api/config/discard'));
  }
  const last = await s.next((m) => m.event === 'session' && m.data.state === 'discarded' && s.messages.filter((x) => x.data.state === 'discarded').length >= 6, 'six discards');
  const old = await open('/api/events', { ...auth(), 'Last-Event-ID': '1' });
  const resync = await old.next((m) => m.event === 'resync', 'resync');
  expect(resync.data.reason).toMatch(/unknown|no longer kept/);
  expect(Number(resync.id)).toBeGreaterThanOrEqual(Number(last.id));
  const future = await open('/api/events', { ...auth(), 'Last-Event-ID': String(Number(last.id) + 1000) });
  expect((await future.next((m) => m.event === 'resync', 'resync')).data.reason).toMatch(/unknown/);
});

test('an idle stream gets heartbeat comments (FW_EVENTS_HEARTBEAT); /metrics counts the open streams', async () => {
  const s = await open();
  await s.comment(/^heartbeat$/);
  const r = await fetch(`${d.url}/metrics`, { headers: auth() });
  const n = Number(/^fwd_event_subscribers (\d+)$/m.exec(await r.text())?.[1]);
  expect(n).toBe(d.daemon.daemon.ctx.events.subscriberCount);
  expect(n).toBeGreaterThanOrEqual(1);
});

test('bad input: Last-Event-ID not a number 400 ERR_NET_1004, an unknown type 400 ERR_NET_1005, POST 405', async () => {
  const bad = await open('/api/events', { ...auth(), 'Last-Event-ID': 'abc' });
  expect({ status: bad.status, code: bad.error.code }).toEqual({ status: 400, code: 'ERR_NET_1004' });
  const t = await open('/api/events?types=commit,bogus');
  expect({ status: t.status, code: t.error.code }).toEqual({ status: 400, code: 'ERR_NET_1005' });
  expect(t.error.details).toMatch(/bogus/);
  expectError(await d.client.post('/api/events'), 405, 'ERR_NET_1009');
});

/**
 * Runs `fn` against a daemon of its own (settings the shared one must not have), logged in,
 * with a stream open; `stop` closes that daemon early. Everything is closed afterwards.
 */
async function withOwnDaemon(env: Record<string, string>, fn: (c: Client, s: SseStream, stop: () => Promise<void>) => Promise<void>): Promise<void> {
  let other: TestDaemon | undefined;
  try {
    other = await startTestDaemon(env);
    const c = await new Client(other.url).login();
    const s = await openEvents(other.url, '/api/events', { Authorization: `Bearer ${c.token}` });
    streams.push(s);
    expect(s.status).toBe(200);
    await fn(c, s, async () => {
      const t = other;
      other = undefined;
      await t?.close();
    });
  } finally {
    for (const s of streams.splice(0)) s.close();
    await other?.close();
  }
}

test('a stream ends when the token it was opened with expires', async () => {
  await withOwnDaemon({ FW_TOKEN_TTL: '2' }, async (c, s) => {
    await s.ended;
    const again = await openEvents(c.url, '/api/events', { Authorization: `Bearer ${c.token}` });
    expect({ status: again.status, code: again.error?.code }).toEqual({ status: 401, code: 'ERR_SEC_5003' });
  });
});

test('a session that expires is streamed as expired; a daemon that stops reports node left and ends its streams', async () => {
  await withOwnDaemon({ FW_SESSION_TIMEOUT: '1' }, async (c, s, stop) => {
    await c.begin();
    const e = await s.next((m) => m.event === 'session' && m.data.state === 'expired', 'session expired');
    expect(e.data).toEqual(expect.objectContaining({ owner: 'admin', user: 'admin' }));
    // a daemon that stops ends its streams (after telling them it leaves) instead of waiting for them
    await stop();
    await s.ended;
    expect(s.messages[s.messages.length - 1].data).toEqual(expect.objectContaining({ type: 'node', state: 'left' }));
  });
});
