// Running reads carry an ETag naming the running version; If-None-Match with it is a 304
// with no body; a commit changes it; candidate reads have none.
import { ok, useDaemon } from '../helpers/daemon';

const used = useDaemon();
const c = used.client;

test('lists and single reads of the running version: ETag, 304, and a new ETag after a commit', async () => {
  const first = await c.get('/api/zones');
  const etag = first.headers.get('etag')!;
  expect(etag).toMatch(/^"v0\.[0-9a-z]+"$/);
  expect((await c.get('/api/zones')).headers.get('etag')).toBe(etag);
  expect((await c.get('/api/interfaces?layer=2')).headers.get('etag')).toBe(etag);

  const cached = await c.raw('GET', '/api/zones', undefined, { 'If-None-Match': etag });
  expect(cached.status).toBe(304);
  expect(cached.text).toBe('');
  expect(cached.headers.get('etag')).toBe(etag);
  expect((await c.raw('GET', '/api/zones', undefined, { 'If-None-Match': `"other", W/${etag}` })).status).toBe(304);
  expect((await c.raw('GET', '/api/zones', undefined, { 'If-None-Match': '*' })).status).toBe(304);
  expect((await c.raw('GET', '/api/zones', undefined, { 'If-None-Match': '"v0.stale"' })).status).toBe(200);
  expect((await c.raw('GET', '/api/interfaces/eth0', undefined, { 'If-None-Match': etag })).status).toBe(304);
  // a missing object is a 404 whatever the client holds
  expect((await c.raw('GET', '/api/zones/nope', undefined, { 'If-None-Match': etag })).status).toBe(404);

  await c.begin();
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l2' }));
  const cand = await c.get('/api/zones?config=candidate');
  expect(cand.headers.get('etag')).toBeNull();
  expect(cand.body.map((z: { name: string }) => z.name)).toEqual(['dmz']);
  await c.commit();

  const after = await c.raw('GET', '/api/zones', undefined, { 'If-None-Match': etag });
  expect(after.status).toBe(200);
  expect(after.body.map((z: { name: string }) => z.name)).toEqual(['dmz']);
  expect(after.headers.get('etag')).toMatch(/^"v1\./);
  expect(after.headers.get('etag')).not.toBe(etag);
});
