// Issue 38 item 6: no shared cache may keep an authenticated answer. Answers that carry
// accounts, API tokens, the audit trail, whole configurations (exports, versions) or the
// caller's own identity say `Cache-Control: no-store`; every other authenticated answer says
// `private, no-cache` and keeps its ETag revalidation (If-None-Match still answers 304).
import { ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();

const NO_STORE = ['/api/audit', '/api/users', '/api/tokens', '/api/config/export', '/api/config/export?format=yaml', '/api/me', '/api/config/versions/0'];
const PRIVATE = ['/api/policies', '/api/addresses', '/api/config/versions', '/api/status', '/api/analysis', '/api/config/session', '/api/search?name=a'];

test('answers that carry accounts, tokens, the audit trail, exports and /api/me: no-store', async () => {
  for (const path of NO_STORE) {
    const r = await d.client.get(path);
    expect({ path, status: r.status, cache: r.headers.get('cache-control') }).toEqual({ path, status: 200, cache: 'no-store' });
  }
});

test('the other authenticated reads: private, no-cache, and their ETag still revalidates', async () => {
  for (const path of PRIVATE) {
    const r = await d.client.get(path);
    expect({ path, status: r.status, cache: r.headers.get('cache-control') }).toEqual({ path, status: 200, cache: 'private, no-cache' });
  }
  const first = await ok(d.client.get('/api/policies'));
  const etag = first.headers.get('etag');
  expect(etag).toBeTruthy();
  const again = await d.client.raw('GET', '/api/policies', undefined, { 'If-None-Match': etag! });
  expect({ status: again.status, cache: again.headers.get('cache-control') }).toEqual({ status: 304, cache: 'private, no-cache' });
});

test('refusals of authenticated routes are not stored either; public answers keep their own', async () => {
  const missing = await d.client.get('/api/config/versions/999');
  expect({ status: missing.status, cache: missing.headers.get('cache-control') }).toEqual({ status: 404, cache: 'no-store' });
  const anonymous = await new (d.client.constructor as typeof import('../helpers/daemon').Client)(d.url).get('/api/policies');
  expect({ status: anonymous.status, cache: anonymous.headers.get('cache-control') }).toEqual({ status: 401, cache: 'private, no-cache' });
  const health = await fetch(`${d.url}/healthz`);
  expect(health.headers.get('cache-control')).toBeNull();
});
