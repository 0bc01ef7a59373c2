// Issue 25 item 9, what every answer says and what every request must say: nosniff on every
// answer (API, errors, console files, event streams), no "uWebSockets: 20" version header,
// Cache-Control: no-store where a credential is answered; a body not labelled JSON (or YAML
// where the route takes it) is 415 ERR_NET_1014, so no web page can post a login or a change
// as a CORS simple request; FW_ALLOWED_HOSTS refuses other Host names with 421 ERR_NET_1015.
import http from 'node:http';
import { ADMIN, ADMIN_PASSWORD, Client, expectError, ok, startTestDaemon, useDaemon, type TestDaemon } from '../helpers/daemon';
import { openEvents } from '../helpers/sse';

const d = useDaemon();
const LOGIN = JSON.stringify({ username: ADMIN, password: ADMIN_PASSWORD });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One request with exactly these headers (fetch adds a Content-Type of its own, and never lets Host be set). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try { parsed = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function expectRefused(a: Answer, status: number, code: string, details?: RegExp): void {
  expect({ status: a.status, code: a.body?.code }).toEqual({ status, code });
  if (details) expect(a.body.details).toMatch(details);
}

describe('headers of every answer', () => {
  test('nosniff and no uWebSockets version on API answers, errors, console files and event streams', async () => {
    const auth = { Authorization: `Bearer ${d.client.token}` };
    const answers = [
      await send(d.url, 'GET', '/healthz', {}),
      await send(d.url, 'GET', '/api/me', auth),
      await send(d.url, 'GET', '/api/nowhere', auth), // 404
      await send(d.url, 'GET', '/api/me', {}), // 401
      await send(d.url, 'POST', '/api/login', { 'Content-Type': 'application/json' }, LOGIN),
      await send(d.url, 'GET', '/', { Accept: 'text/html' }), // the console
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 401, 200, 200]);
    for (const a of answers) {
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers.uwebsockets).toBeUndefined();
    }
    const stream = await openEvents(d.url, '/api/events', auth);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('x-content-type-options')).toBe('nosniff');
      expect(stream.headers.get('uwebsockets')).toBeNull();
    } finally {
      stream.close();
    }
  });

  test('the answers that carry a credential are not stored: login and a new API token', async () => {
    const login = await send(d.url, 'POST', '/api/login', { 'Content-Type': 'application/json' }, LOGIN);
    expect({ status: login.status, cache: login.headers['cache-control'] }).toEqual({ status: 200, cache: 'no-store' });
    const made = await d.client.raw('POST', '/api/tokens', JSON.stringify({ name: 'no-store', role: 'viewer' }));
    expect({ status: made.status, cache: made.headers.get('cache-control') }).toEqual({ status: 200, cache: 'no-store' });
    // an answer without a secret is private and revalidated by its ETag (test/api/cache-control.test.ts)
    expect((await ok(d.client.get('/api/addresses'))).headers.get('cache-control')).toBe('private, no-cache');
  });
});

describe('the media type of a body', () => {
  test('login refuses the types a cross-site page can send without asking (and no type at all)', async () => {
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expectRefused(await send(d.url, 'POST', '/api/login', { 'Content-Type': type }, LOGIN), 415, 'ERR_NET_1014', /is not application\/json$/);
    }
    expectRefused(await send(d.url, 'POST', '/api/login', {}, LOGIN), 415, 'ERR_NET_1014', /needs Content-Type: application\/json/);
    expectRefused(await send(d.url, 'POST', '/api/login', { 'Content-Type': 'application/json; charset=iso-8859-1' }, LOGIN), 415, 'ERR_NET_1014', /charset "iso-8859-1"/);
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;Charset="UTF-8"']) {
      expect({ type, status: (await send(d.url, 'POST', '/api/login', { 'Content-Type': type }, LOGIN)).status }).toEqual({ type, status: 200 });
    }
  });

  test('an authenticated route: 401 and 403 come first, then 415, and nothing changes', async () => {
    const body = JSON.stringify({ name: 'plain-text', ips: ['10.0.0.1'] });
    expectRefused(await send(d.url, 'POST', '/api/addresses', { 'Content-Type': 'text/plain' }, body), 401, 'ERR_SEC_5001');
    const viewer = (await ok(d.client.post('/api/tokens', { name: 'media-viewer', role: 'viewer' }))).body.token;
    expectRefused(await send(d.url, 'POST', '/api/addresses', { 'Content-Type': 'text/plain', Authorization: `Bearer ${viewer}` }, body), 403, 'ERR_SEC_5008');
    await d.client.begin();
    const auth = { Authorization: `Bearer ${d.client.token}` };
    expectRefused(await send(d.url, 'POST', '/api/addresses', { ...auth, 'Content-Type': 'text/plain' }, body), 415, 'ERR_NET_1014');
    expectRefused(await send(d.url, 'POST', '/api/addresses', auth, body), 415, 'ERR_NET_1014');
    expectError(await d.client.get('/api/addresses/plain-text?config=candidate'), 404, 'ERR_NET_1003');
    // YAML only where the route takes it
    expectRefused(await send(d.url, 'POST', '/api/addresses', { ...auth, 'Content-Type': 'application/yaml' }, 'name: y\nips: [10.0.0.2]\n'), 415, 'ERR_NET_1014');
    const yaml = await send(d.url, 'PUT', '/api/config/candidate?mode=merge', { ...auth, 'Content-Type': 'application/yaml' }, 'addresses:\n  - name: y\n    ips: [10.0.0.2]\n');
    expect(yaml.status).toBe(200);
    expectRefused(await send(d.url, 'PUT', '/api/config/candidate?mode=merge', { ...auth, 'Content-Type': 'text/plain' }, '{"addresses":[]}'), 415, 'ERR_NET_1014', /is not application\/json or application\/yaml$/);
    // a body-less change needs no type
    expect((await send(d.url, 'POST', '/api/config/discard', auth)).status).toBe(200);
  });
});

describe('FW_ALLOWED_HOSTS', () => {
  let h: TestDaemon;
  beforeAll(async () => {
    h = await startTestDaemon({ FW_ALLOWED_HOSTS: 'fw.example.test, 127.0.0.1,::1' });
  });
  afterAll(async () => {
    await h?.close();
  });

  test('a Host not listed gets 421 ERR_NET_1015 on every path, the listed ones are served', async () => {
    const port = new URL(h.url).port;
    for (const host of ['evil.example', `evil.example:${port}`, 'fw.example.test.evil', 'fw.example.test/x']) {
      for (const path of ['/healthz', '/api/me', '/']) {
        expectRefused(await send(h.url, 'GET', path, { Host: host, Accept: 'text/html' }), 421, 'ERR_NET_1015', /is not one of FW_ALLOWED_HOSTS$/);
      }
    }
    // a login from a rebound name is refused before its body is read
    expectRefused(await send(h.url, 'POST', '/api/login', { Host: 'evil.example', 'Content-Type': 'application/json' }, LOGIN), 421, 'ERR_NET_1015');
    for (const host of ['fw.example.test', `FW.Example.Test.:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect({ host, status: (await send(h.url, 'GET', '/healthz', { Host: host })).status }).toEqual({ host, status: 200 });
    }
    const c = await new Client(h.url).login(); // fetch sends Host 127.0.0.1:port
    expect((await c.get('/api/me')).status).toBe(200);
    // the OpenAPI document lists the 421 on every operation where the check is on
    const doc = (await ok(c.get('/api/openapi.json'))).body;
    expect(Object.keys(doc.paths['/api/me'].get.responses)).toContain('421');
    expect(Object.keys((await ok(d.client.get('/api/openapi.json'))).body.paths['/api/me'].get.responses)).not.toContain('421');
  });

  test('a malformed entry stops the start with the entry named', async () => {
    await expect(startTestDaemon({ FW_ALLOWED_HOSTS: 'fw.example.test, http://x/' })).rejects.toThrow('FW_ALLOWED_HOSTS: "http://x/" is not a host name');
  });
});
