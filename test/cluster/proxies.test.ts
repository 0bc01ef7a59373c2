// The shipped load balancer set-ups, for real: haproxy (deploy/haproxy.cfg) and nginx
// (deploy/nginx.conf) in front of two instances on one throwaway Redis. A whole session goes
// through the proxy; X-Request-Id is passed through (or made by the proxy), X-Forwarded-For
// names the client; an instance killed
// is left out and requests keep succeeding; the instance restarted comes back into rotation;
// HTTP/1.0 clients are answered. haproxy also takes a not-ready instance out and puts it back
// (its health check is GET /readyz); both keep serving from the live instances while Redis
// is down; nginx keeps the daemon's body limits.
import net from 'node:net';
import Redis from 'ioredis';
import { ADMIN_PASSWORD, Client, expectMessage } from '../helpers/daemon';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';
import { kill9 } from '../helpers/process';
import { startHaproxy, startNginx, type TestProxy } from '../helpers/proxies';

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  requestId: string | null;
}

/** A request that may fail (a proxy's own error page, a connection refused): never throws. */
async function tryFetch(url: string, init: RequestInit = {}): Promise<Answer> {
  try {
    const r = await fetch(url, init);
    const text = await r.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* a proxy's HTML page */ }
    return { status: r.status, body, requestId: r.headers.get('x-request-id') };
  } catch (e) {
    return { status: 0, body: String(e), requestId: null };
  }
}

/** An administrator's token, valid on every instance (set by each describe's beforeAll). */
let token = '';
const authorized = (): RequestInit => ({ headers: { Authorization: `Bearer ${token}` } });

/** The node ids that answer `count` GET /api/status in a row through `proxy`, or null when one fails. */
async function servedBy(proxy: TestProxy, count: number): Promise<string[] | null> {
  const nodes: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = await tryFetch(`${proxy.url}/api/status`, authorized());
    if (r.status !== 200) return null;
    nodes.push(r.body.node);
  }
  return nodes;
}

/** Whether `count` answers in a row through `proxy` all succeed and come from the nodes `only`. */
async function allServedBy(proxy: TestProxy, count: number, only: string[]): Promise<boolean> {
  const nodes = await servedBy(proxy, count);
  return nodes !== null && nodes.every((n) => only.includes(n));
}

/** An HTTP/1.0 request, as ApacheBench sends it: what came back before the server closed. */
function http10(url: string, path: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), hostname, () => s.write(`GET ${path} HTTP/1.0\r\nHost: ${hostname}\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n`));
    let out = '';
    s.on('data', (b) => { out += b.toString(); });
    s.on('end', () => resolve(out));
    s.on('error', reject);
    s.setTimeout(20_000, () => {
      s.destroy();
      resolve(out);
    });
  });
}

/**
 * Makes every instance write out its buffered log lines: the daemon writes its log in 4 KiB
 * blocks (src/app.ts), so a few lines stay in memory until more come. 404s are logged at info.
 */
async function pushLogsOut(cluster: TestCluster): Promise<void> {
  for (const n of cluster.nodes) {
    for (let i = 0; i < 40; i++) expect((await tryFetch(`${n.url}/no-such-path-${'x'.repeat(40)}`)).status).toBe(404);
  }
}

/** A session through the proxy: begin, changes, commit; answers the committed version. */
async function sessionThrough(c: Client, suffix: string): Promise<number> {
  await c.begin();
  expect((await c.post('/api/zones', { name: `lan${suffix}`, type: 'l3' })).status).toBe(200);
  expect((await c.post('/api/addresses', { name: `web${suffix}`, ips: ['10.0.0.10/32'] })).status).toBe(200);
  expect((await c.post('/api/services', { name: `https${suffix}`, protocol: 'tcp', ports: [443] })).status).toBe(200);
  expect((await c.post('/api/policies', { action: 'allow', 'src-zone': `lan${suffix}`, 'dst-addr': `web${suffix}`, services: [`https${suffix}`] })).status).toBe(200);
  const commit = await c.post('/api/config/commit', { description: `through the proxy ${suffix}` });
  expectMessage(commit, 'commit successful');
  return Number(commit.body.version);
}

const PROXIES: Array<[string, (instances: string[]) => Promise<TestProxy>]> = [['haproxy', startHaproxy], ['nginx', startNginx]];

describe.each(PROXIES)('%s from deploy/', (name, start) => {
  let cluster: TestCluster;
  let proxy: TestProxy | undefined;
  const node = (i: number) => `node${i}`;

  beforeAll(async () => {
    // a short commit sync: a commit made while an instance is dead waits for it that long
    // the proxy is on 127.0.0.1: its X-Forwarded-For is believed (FW_TRUSTED_PROXIES)
    cluster = await startCluster(2, { FW_COMMIT_SYNC_TIMEOUT: '2', FW_TRUSTED_PROXIES: '127.0.0.1' }, true);
    try {
      token = cluster.clients[0].token;
      proxy = await start(cluster.nodes.map((n) => new URL(n.url).host));
    } catch (e) {
      await cluster.close();
      throw e;
    }
  });
  afterAll(async () => {
    await proxy?.stop();
    await cluster?.close();
  });

  test('both instances serve through it', async () => {
    expect(await eventually(async () => {
      const nodes = await servedBy(proxy!, 6);
      return nodes !== null && nodes.includes(node(0)) && nodes.includes(node(1));
    }, 15_000)).toBe(true);
  });

  test('a whole session through it: login, begin, changes, commit, reads', async () => {
    const c = await new Client(proxy!.url).login();
    const version = await sessionThrough(c, '');
    expect(version).toBeGreaterThan(0);
    // every read through the proxy, whichever instance answers it, sees the commit
    for (let i = 0; i < 4; i++) {
      const policies = (await c.get('/api/policies')).body;
      expect(policies.map((p: { action: string; dstAddr: { name: string } }) => [p.action, p.dstAddr.name])).toEqual([['allow', 'web']]);
      expect((await c.get('/api/status')).body.version).toBe(version);
    }
    expect((await c.get('/api/addresses/web')).body.name).toBe('web');
  });

  test('X-Request-Id: the client\'s own is passed through; without one the proxy makes one both logs show', async () => {
    const c = await new Client(proxy!.url).login();
    await c.begin();
    const own = await c.raw('POST', '/api/addresses', JSON.stringify({ name: 'traced', ips: ['10.1.0.0/16'] }), { 'X-Request-Id': `lb-${name}-1` });
    expect(own.status).toBe(200);
    expect(own.headers.get('x-request-id')).toBe(`lb-${name}-1`);
    const made = await c.raw('POST', '/api/addresses', JSON.stringify({ name: 'traced2', ips: ['10.2.0.0/16'] }));
    expect(made.status).toBe(200);
    const id = made.headers.get('x-request-id')!;
    // haproxy's UUID or nginx's 32 hex digits, not an id of the daemon's own ("hex-counter")
    expect(id).toMatch(name === 'haproxy' ? /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/ : /^[0-9a-f]{32}$/);
    await pushLogsOut(cluster);
    for (const rid of [`lb-${name}-1`, id]) {
      expect(await eventually(async () => cluster.nodes.some((n) => n.stdout().includes(`"reqId":"${rid}"`)), 5000)).toBe(true);
      expect(await eventually(async () => (proxy!.output() + proxy!.accessLog()).includes(rid), 5000)).toBe(true);
    }
    await c.post('/api/config/discard');
  });

  test('X-Forwarded-For as the proxy sends it names the client in the audit trail', async () => {
    // the test client is on 127.0.0.1 too, a trusted address: what it writes stands for a
    // proxy further out, and the proxy adds its own hop (haproxy a line, nginx to the line)
    const c = await new Client(proxy!.url).login();
    const r = await c.raw('POST', '/api/login', JSON.stringify({ username: 'nobody', password: 'not-the-password' }), { 'X-Forwarded-For': '198.51.100.9' });
    expect(r.status).toBe(401);
    const audit = await c.get('/api/audit?action=auth.login-failed&limit=1');
    expect(audit.body.entries[0]).toEqual(expect.objectContaining({ requestId: r.headers.get('x-request-id'), details: 'from 198.51.100.9' }));
  });

  test('an HTTP/1.0 client (ApacheBench) gets an answer at once, never a hang', async () => {
    const answer = await http10(proxy!.url, '/healthz');
    if (name === 'nginx') {
      // nginx answers it, having asked the instance in HTTP/1.1
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(answer.endsWith('{"status":"ok"}')).toBe(true);
    } else {
      // haproxy cannot raise the version: it refuses with a body that says why
      expect(answer).toMatch(/^HTTP\/1\.1 505 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'ERR_NET_1004', message: 'invalid request', details: 'HTTP/1.0 is not served: use HTTP/1.1' });
    }
  });

  if (name === 'nginx') {
    test('body limits: the batch endpoint\'s 8 MiB passes nginx; over it nginx answers the API\'s 413; FW_MAX_BODY stays the daemon\'s', async () => {
      const c = await new Client(proxy!.url).login();
      // 2 MiB: over FW_MAX_BODY (1 MiB) for a change, refused by the daemon with its limit
      const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
      const change = await tryFetch(`${proxy!.url}/api/addresses`, { method: 'POST', body: big, headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': 'application/json' } });
      expect({ status: change.status, code: change.body.code, details: change.body.details }).toEqual({ status: 413, code: 'ERR_NET_1010', details: 'body is over 1048576 bytes' });
      // the same 2 MiB reach the batch endpoint (limit 8 MiB): the daemon parses it (400: not packets)
      const batch = await tryFetch(`${proxy!.url}/api/eval/batch`, { method: 'POST', body: big, headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': 'application/json' } });
      expect(batch.status).toBe(400);
      // over 8 MiB: nginx's own 413, in the API's error body
      const huge = await tryFetch(`${proxy!.url}/api/eval/batch`, { method: 'POST', body: 'x'.repeat(9 * 1024 * 1024), headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': 'application/json' } });
      expect({ status: huge.status, body: huge.body }).toEqual({ status: 413, body: { code: 'ERR_NET_1010', message: 'payload too large', details: 'body is over 8388608 bytes' } });
      expect(huge.requestId).toMatch(/^[0-9a-f]{32}$/);
    });

    test('a whole-configuration load over 8 MiB passes nginx to the daemon (FW_MAX_LOAD_BODY)', async () => {
      const c = await new Client(proxy!.url).login();
      await c.begin();
      try {
        // 10 MiB: a small document with one large unknown field
        const doc = JSON.stringify({ policies: [{ action: 'deny' }], nat: [], padding: 'x'.repeat(10 * 1024 * 1024) });
        const load = await tryFetch(`${proxy!.url}/api/config/candidate?mode=merge`, { method: 'PUT', body: doc, headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': 'application/json' } });
        // the daemon read it whole and answered the one problem: the unknown field
        expect({ status: load.status, code: load.body.code, details: load.body.details }).toEqual({ status: 400, code: 'ERR_NET_1004', details: 'unknown field "padding"' });
      } finally {
        await c.post('/api/config/discard?force=true');
      }
    });
  }

  test('an instance killed: requests keep succeeding through the proxy, a session too', async () => {
    await kill9(cluster.nodes[1]);
    // within a few seconds every answer comes from the live instance
    expect(await eventually(() => allServedBy(proxy!, 10, [node(0)]), 5000)).toBe(true);
    const c = await new Client(proxy!.url).login();
    expect(await sessionThrough(c, 'k')).toBeGreaterThan(0);
    expect((await c.get('/api/zones/lank')).status).toBe(200);
  });

  test('the instance restarted comes back into rotation by itself', async () => {
    await cluster.restart(1);
    expect(await eventually(async () => ((await servedBy(proxy!, 4)) ?? []).includes(node(1)), 15_000)).toBe(true);
    // and it serves what was committed while it was down
    const c = await new Client(proxy!.url).login();
    for (let i = 0; i < 4; i++) expect((await c.get('/api/zones/lank')).status).toBe(200);
  });

  test('Redis down: no instance is ready, and the live ones still answer what they can from memory', async () => {
    // each instance has verified the token (it answers it from memory while Redis is down)
    for (const n of cluster.nodes) expect((await tryFetch(`${n.url}/api/status`, authorized())).status).toBe(200);
    const logBefore = proxy!.output().length;
    // haproxy takes every instance out of `fwd` (not ready) and moves to `fwd_alive`; nginx,
    // with passive health only, never took them out
    const movedOn = () => name === 'nginx' || proxy!.output().slice(logBefore).includes(' fwd_alive/api');
    await cluster.redis.stop();
    try {
      // every answer through the proxy is the daemon's, never the proxy's own 503
      expect(await eventually(async () => {
        const r = await tryFetch(`${proxy!.url}/api/status`, authorized());
        expect(r.status).toBe(200);
        return r.body.store_reachable === false && movedOn();
      }, 15_000)).toBe(true);
      for (const n of cluster.nodes) expect((await tryFetch(`${n.url}/readyz`)).status).toBe(503);
      for (let i = 0; i < 4; i++) {
        const r = await tryFetch(`${proxy!.url}/api/status`, authorized());
        expect({ status: r.status, reachable: r.body.store_reachable }).toEqual({ status: 200, reachable: false });
      }
      // what needs the store: the daemon's 503 ERR_SYS_4002
      const login = await tryFetch(`${proxy!.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password: 'wrong-password-1' }), headers: { 'Content-Type': 'application/json' } });
      expect({ status: login.status, code: login.body.code }).toEqual({ status: 503, code: 'ERR_SYS_4002' });
    } finally {
      await cluster.redis.restart();
    }
    // Redis back: both instances in rotation again (haproxy: in the backend of ready ones)
    const logAfter = proxy!.output().length;
    const backInFwd = () => name === 'nginx' || (proxy!.output().slice(logAfter).includes(' fwd/api1 ') && proxy!.output().slice(logAfter).includes(' fwd/api2 '));
    expect(await eventually(async () => {
      const nodes = await servedBy(proxy!, 6);
      return nodes !== null && nodes.includes(node(0)) && nodes.includes(node(1)) && backInFwd();
    }, 20_000)).toBe(true);
    // (logins may need a moment more: each Redis connection of an instance reconnects on its
    // own, and nginx sends to an instance whatever its readiness: four logins in a row, so
    // that both instances answered one)
    const c = new Client(proxy!.url);
    const loginOk = async () => (await tryFetch(`${proxy!.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }), headers: { 'Content-Type': 'application/json' } })).status === 200;
    expect(await eventually(async () => (await loginOk()) && (await loginOk()) && (await loginOk()) && (await loginOk()), 15_000)).toBe(true);
    await c.login();
    expect((await c.get('/api/config/versions')).status).toBe(200);
  });

  if (name === 'haproxy') {
    test('an instance that is up but not ready (its Redis connection refused) is taken out, and put back', async () => {
      // instance 1 again, now connecting to Redis as a user of its own that the test can shut
      // out (this test is last: a user made with ACL SETUSER does not outlive a Redis restart)
      const admin = new Redis(cluster.redis.url);
      try {
        await admin.call('ACL', 'SETUSER', 'node1', 'on', '>node1-password', '~*', '&*', '+@all');
        await kill9(cluster.nodes[1]);
        const [, rest] = cluster.redis.url.split('redis://');
        await cluster.restart(1, { REDIS_URL: `redis://node1:node1-password@${rest}` });
        expect(await eventually(async () => ((await servedBy(proxy!, 4)) ?? []).includes(node(1)), 15_000)).toBe(true);

        await admin.call('ACL', 'SETUSER', 'node1', 'off');
        await admin.call('CLIENT', 'KILL', 'USER', 'node1');
        // the instance is alive but says it is not ready, and haproxy stops sending to it
        expect(await eventually(async () => (await tryFetch(`${cluster.nodes[1].url}/readyz`)).status === 503, 10_000)).toBe(true);
        expect((await tryFetch(`${cluster.nodes[1].url}/healthz`)).status).toBe(200);
        expect(await eventually(() => allServedBy(proxy!, 10, [node(0)]), 10_000)).toBe(true);

        await admin.call('ACL', 'SETUSER', 'node1', 'on');
        expect(await eventually(async () => (await tryFetch(`${cluster.nodes[1].url}/readyz`)).status === 200, 15_000)).toBe(true);
        expect(await eventually(async () => ((await servedBy(proxy!, 4)) ?? []).includes(node(1)), 15_000)).toBe(true);
      } finally {
        admin.disconnect();
      }
    });
  }
});
