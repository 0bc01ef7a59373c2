// Hostile and broken requests: none of them may give a 500 or leave a partial change.
import net from 'node:net';
import { Client, expectError, rawChunked, startTestDaemon, useDaemon } from '../helpers/daemon';

const d = useDaemon({ FW_MAX_BODY: '4096' });
const c = d.client;

beforeAll(async () => {
  await c.post('/api/config/begin');
});

test('unknown path is 404 ERR_NET_1011 with the error body; wrong method is 405 with Allow', async () => {
  const r = expectError(await c.get('/api/nothing-here'), 404, 'ERR_NET_1011');
  expect(r.headers.get('content-type')).toBe('application/json');
  expectError(await c.get('/'), 404, 'ERR_NET_1011');
  expectError(await new Client(d.url).get('/api/nothing-here'), 404, 'ERR_NET_1011');
  const m = expectError(await c.raw('PATCH', '/api/addresses'), 405, 'ERR_NET_1009');
  expect(m.headers.get('allow')).toBe('GET, POST');
  const one = expectError(await c.raw('POST', '/api/addresses/x'), 405, 'ERR_NET_1009');
  expect(one.headers.get('allow')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'PUT']);
});

test('a body over the limit is 413 ERR_NET_1010, by Content-Length or as it streams', async () => {
  const big = JSON.stringify({ name: 'big', ips: new Array(400).fill('10.0.0.0/8') });
  expect(big.length).toBeGreaterThan(4096);
  expectError(await c.raw('POST', '/api/addresses', big), 413, 'ERR_NET_1010');
  // chunked upload without Content-Length
  const { status } = await rawChunked(d.url, '/api/addresses', c.token, big);
  expect(status).toBe(413);
  expect((await c.get('/api/addresses?config=candidate')).body).toEqual({});
});

test('malformed JSON, wrong types, deep nesting and binary garbage are 400 ERR_NET_1004', async () => {
  for (const body of ['{', '{"name": "a", "ips": [}', 'nul', '"just a string"', '123', '\u0000\u0001', '[' .repeat(2000), '{"name":"a","ips":["10.0.0.0/8"]}garbage']) {
    const r = await c.raw('POST', '/api/addresses', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('ERR_NET_1004');
  }
  expect((await c.get('/api/addresses?config=candidate')).body).toEqual({});
});

test('too many networks is ERR_NET_1008; numbers where strings belong are ERR_NET_1004', async () => {
  const d2 = await startTestDaemon();
  try {
    const c2 = await new Client(d2.url).login();
    await c2.post('/api/config/begin');
    const ips = Array.from({ length: 1025 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`);
    expectError(await c2.post('/api/addresses', { name: 'many', ips }), 400, 'ERR_NET_1008');
    expectError(await c2.post('/api/addresses', { name: 'n', ips: [167772160] }), 400, 'ERR_NET_1004');
    expectError(await c2.post('/api/addresses', { name: 'n', ips: [{}] }), 400, 'ERR_NET_1004');
  } finally {
    await d2.close();
  }
});

test('the request id is echoed, or generated', async () => {
  const given = await c.raw('GET', '/api/me', undefined, { 'X-Request-Id': 'trace-123' });
  expect(given.headers.get('x-request-id')).toBe('trace-123');
  const generated = await c.get('/api/me');
  expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f]+-[0-9a-z]+$/);
  const hostile = await c.raw('GET', '/api/me', undefined, { 'X-Request-Id': 'a b\tc' });
  expect(hostile.headers.get('x-request-id')).not.toBe('a b\tc');
});

test('percent-encoded and odd path parameters never give a 500', async () => {
  for (const p of ['/api/addresses/%E0%A4%A', '/api/addresses/%2F', '/api/addresses/..', '/api/policies/-1', '/api/policies/1e3', '/api/policies/99999999999999999999']) {
    const r = await c.get(p);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  }
});

test('the server survives a client that disconnects mid-body', async () => {
  await new Promise<void>((resolve) => {
    const u = new URL(d.url);
    const s = net.connect(Number(u.port), u.hostname, () => {
      s.write(`POST /api/addresses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${c.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
      setTimeout(() => { s.destroy(); resolve(); }, 50);
    });
  });
  expect((await c.get('/api/me')).status).toBe(200);
  expect((await c.get('/api/addresses?config=candidate')).body).toEqual({});
});

test('a body sent with a GET is dropped unread and the connection goes on', async () => {
  // GETs are not looked at for a chunked body (src/api/server.ts): uWS skips it, and the next
  // requests pipelined on the same connection are answered in order
  const u = new URL(d.url);
  const auth = `Authorization: Bearer ${c.token}\r\n`;
  const text = await new Promise<string>((resolve, reject) => {
    let got = '';
    const s = net.connect(Number(u.port), u.hostname, () => {
      s.write(`GET /api/me HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`
        + `GET /api/me HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 3\r\n\r\nabc`
        + `GET /api/nothing-here HTTP/1.1\r\nHost: x\r\n${auth}\r\n`);
    });
    s.on('data', (b) => {
      got += b.toString();
      if (got.includes('ERR_NET_1011')) { s.destroy(); resolve(got); }
    });
    s.on('error', reject);
  });
  expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 404']);
  expect(text.match(/"username":"admin"/g)).toHaveLength(2);
});
