// GET /api/policies of a long list over HTTP: the whole list (more than one encoded slice) is
// streamed and says exactly what the pages say; ?limit= and ?cursor= page it, running and
// candidate, with filters and with ?stats=true; bad values are refused with the contract's
// codes; a cursor whose policy a commit removed is 404. The whole answer stays the seed's
// array when neither is given.
import { expectError, ok, useDaemon, type Res } from '../helpers/daemon';

const c = useDaemon().client;
const COUNT = 1234; // three slices of 500 (src/session/encoded-list.ts)

interface Listed { id: number; action: string; name?: string }

beforeAll(async () => {
  await c.begin();
  await ok(c.put('/api/interfaces/eth1', { ip: '192.168.1.1/24' }));
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['eth1'] }));
  await ok(c.post('/api/addresses', { name: 'web', ips: ['10.0.0.10'] }));
  const operations = Array.from({ length: COUNT }, (_, i) => ({
    method: 'POST', path: '/api/policies',
    body: { action: i % 3 ? 'allow' : 'deny', 'src-zone': 'lan', 'dst-addr': 'web', ...(i % 100 === 0 ? { tags: ['hundred'] } : {}) },
  }));
  await ok(c.post('/api/config/batch', { operations }));
  await c.commit();
});

/** Every page of `query` (limit `limit`), followed by its cursors; asserts each page's shape. */
async function allPages(query: string, limit: number): Promise<{ items: Listed[]; pages: number; etags: Set<string | null> }> {
  const items: Listed[] = [];
  const etags = new Set<string | null>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: Res = await ok(c.get(`/api/policies?${query}&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`));
    expect(Object.keys(r.body).sort()).toEqual(['next', 'policies', 'total']);
    expect(r.body.policies.length).toBeLessThanOrEqual(limit);
    etags.add(r.headers.get('etag'));
    items.push(...r.body.policies);
    cursor = r.body.next;
    if (cursor !== null) expect(cursor).toBe(String(r.body.policies.at(-1).id));
    pages++;
  } while (cursor !== null);
  return { items, pages, etags };
}

test('the whole list is streamed (chunked) and is the pages put together, in evaluation order', async () => {
  const whole = await ok(c.get('/api/policies'));
  expect(whole.headers.get('transfer-encoding')).toBe('chunked');
  expect(whole.headers.get('content-type')).toBe('application/json');
  expect(Array.isArray(whole.body)).toBe(true);
  expect(whole.body).toHaveLength(COUNT);
  expect(whole.body[0]).toEqual({
    id: 1, action: 'deny', srcZone: expect.objectContaining({ name: 'lan' }), dstZone: null, srcAddr: null,
    dstAddr: { name: 'web', ips: [{ ip: [10, 0, 0, 10], mask: [255, 255, 255, 255] }] }, services: [], log: false, tags: ['hundred'],
  });
  // the second read is the kept encoding: the same bytes
  const again = await ok(c.get('/api/policies'));
  expect(again.text).toBe(whole.text);
  expect(again.headers.get('etag')).toBe(whole.headers.get('etag'));
  const paged = await allPages('', 100);
  expect(paged.pages).toBe(13);
  expect(paged.items).toEqual(whole.body);
  expect([...paged.etags]).toEqual([whole.headers.get('etag')]);
});

test('a short list is one answer with its length, as before', async () => {
  const r = await ok(c.get('/api/policies?tag=hundred'));
  expect(r.headers.get('transfer-encoding')).toBeNull();
  expect(r.body.map((p: Listed) => p.id)).toEqual(Array.from({ length: 13 }, (_, i) => 1 + i * 100));
});

test('pages follow filters, stats and the candidate; only a cursor gives the default page', async () => {
  const tagged = await allPages('tag=hundred', 5);
  expect(tagged.pages).toBe(3);
  expect(tagged.items.map((p) => p.id)).toEqual(Array.from({ length: 13 }, (_, i) => 1 + i * 100));
  const first = await ok(c.get('/api/policies?limit=2&stats=true'));
  expect(first.body).toEqual({ policies: [expect.objectContaining({ id: 1, hits: null }), expect.objectContaining({ id: 2, hits: null })], next: '2', total: COUNT });
  const rest = await ok(c.get('/api/policies?cursor=2'));
  expect(rest.body.policies).toHaveLength(1000);
  expect(rest.body.policies[0].id).toBe(3);
  expect(rest.body.next).toBe('1002');
  const last = await ok(c.get(`/api/policies?cursor=${COUNT - 1}`));
  expect(last.body).toEqual({ policies: [expect.objectContaining({ id: COUNT })], next: null, total: COUNT });
  // the candidate: policy 3 moved to the top and 1 deleted, seen by the candidate's pages only
  await c.begin();
  await ok(c.post('/api/policies/3/move', { position: 'top' }));
  await ok(c.del('/api/policies/1'));
  const cand = await ok(c.get('/api/policies?config=candidate&limit=3'));
  expect(cand.headers.get('etag')).toBeNull();
  expect(cand.body.policies.map((p: Listed) => p.id)).toEqual([3, 2, 4]);
  expect(cand.body.total).toBe(COUNT - 1);
  const candWhole = await ok(c.get('/api/policies?config=candidate'));
  expect(candWhole.headers.get('transfer-encoding')).toBe('chunked');
  expect((await allPages('config=candidate', 400)).items).toEqual(candWhole.body);
  expect((await ok(c.get('/api/policies?limit=1'))).body.policies[0].id).toBe(1);
  await ok(c.post('/api/config/discard'));
});

test('bad limit and cursor: 400 with the contract code naming the parameter; a vanished cursor: 404', async () => {
  for (const [q, code] of [
    ['limit=0', 'ERR_NET_1008'], ['limit=10001', 'ERR_NET_1008'], ['limit=ten', 'ERR_NET_1004'], ['limit=-1', 'ERR_NET_1004'],
    ['limit=', 'ERR_NET_1004'], ['limit=2.5', 'ERR_NET_1004'], ['cursor=abc', 'ERR_NET_1004'], ['cursor=', 'ERR_NET_1004'],
    ['cursor=1&limit=0', 'ERR_NET_1008'], ['limit=5&disabled=maybe', 'ERR_NET_1005'], ['limit=5&stats=yes', 'ERR_NET_1005'],
  ] as const) {
    const r = expectError(await c.get(`/api/policies?${q}`), 400, code);
    expect(r.body.details).toMatch(/^query "(limit|cursor|disabled|stats)"/);
  }
  expect((await ok(c.get('/api/policies?limit=10000'))).body.policies).toHaveLength(COUNT);
  // a commit deletes the policy a client's cursor points at
  await c.begin();
  await ok(c.del('/api/policies/500'));
  await c.commit();
  const r = expectError(await c.get('/api/policies?limit=10&cursor=500'), 404, 'ERR_NET_1003');
  expect(r.body.details).toMatch(/^policy 500 of the cursor/);
  const after = await ok(c.get('/api/policies?limit=2&cursor=499'));
  expect(after.body.policies.map((p: Listed) => p.id)).toEqual([501, 502]);
});
