// Security policies over HTTP: ids, messages, the read model with nested Zone, Address
// (IPv4 and IPv6) and Service objects, any as null / [], partial updates, moves (and failed
// moves that change nothing), in-use deletes of what a policy references, and ids that are
// never reused.
import { expectError, expectMessage, ok, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;

const V4_NET = { ip: [10, 1, 0, 0], mask: [255, 255, 0, 0] };
const V4_HOST = { ip: [192, 168, 1, 7], mask: [255, 255, 255, 255] };
const V6_NET = {
  ip: [0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  mask: [255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
};
const V6_HOST = { ip: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10], mask: new Array(16).fill(255) };
const TRUST = { name: 'trust', type: 'l3', color: 'green', interfaces: ['eth1'], networks: ['192.168.1.0/24'] };
const UNTRUST = { name: 'untrust', type: 'l3', color: '', interfaces: ['eth0'], networks: [] };
const WEB = { name: 'web', protocol: 'tcp', ports: [80, 443] };
const DNS = { name: 'dns', protocol: 'udp', ports: [53] };
const HIGH = { name: 'high', protocol: 'tcp', ports: ['1024-65535'] };

beforeAll(async () => {
  await ok(c.post('/api/config/begin'));
  await ok(c.put('/api/interfaces/eth0', { ip: '203.0.113.2/24' }));
  await ok(c.put('/api/interfaces/eth1', { ip: '192.168.1.1/24' }));
  await ok(c.post('/api/addresses', { name: 'lan', ips: ['10.1.2.3/16', '192.168.1.7'] }));
  await ok(c.post('/api/addresses', { name: 'v6', ips: ['2001:db8:a::/48', '2001:db8::10'] }));
  await ok(c.post('/api/services', WEB));
  await ok(c.post('/api/services', DNS));
  await ok(c.post('/api/services', HIGH));
  await ok(c.post('/api/zones', { name: 'trust', type: 'l3', color: 'green', interfaces: ['eth1'], networks: ['192.168.1.0/24'] }));
  await ok(c.post('/api/zones', { name: 'untrust', type: 'l3', interfaces: ['eth0'] }));
});

const listIds = async () => (await c.get('/api/policies?config=candidate')).body.map((p: { id: number }) => p.id);

test('create: id as a string, full read model with nested objects, running vs candidate', async () => {
  const r = expectMessage(
    await c.post('/api/policies', {
      action: 'allow', 'src-zone': 'trust', 'dst-zone': 'untrust', 'src-addr': 'lan', 'dst-addr': 'v6', services: ['web', 'dns'], log: true,
    }),
    'policy created in candidate',
  );
  expect(r.body).toEqual({ message: 'policy created in candidate', id: '1' });
  const expected = {
    id: 1,
    action: 'allow',
    srcZone: TRUST,
    dstZone: UNTRUST,
    srcAddr: { name: 'lan', ips: [V4_NET, V4_HOST] },
    dstAddr: { name: 'v6', ips: [V6_NET, V6_HOST] },
    services: [WEB, DNS],
    log: true,
  };
  expect((await c.get('/api/policies/1?config=candidate')).body).toEqual(expected);
  expect((await c.get('/api/policies?config=candidate')).body).toEqual([expected]);
  expect((await c.get('/api/policies')).body).toEqual([]);
  expectError(await c.get('/api/policies/1'), 404, 'ERR_NET_1003');
  expect((await c.post('/api/config/commit')).body).toEqual({ message: 'commit successful', version: '1' });
  expect((await c.get('/api/policies')).body).toEqual([expected]);
  expect((await c.get('/api/policies/1')).body).toEqual(expected);
  expectMessage(await c.post('/api/config/begin'), 'config session started');
});

test('any: omitted, "" and "any" give null zones and addresses; omitted, [] and ["any"] give []', async () => {
  const any = (id: number, action: string, log = false) => ({ id, action, srcZone: null, dstZone: null, srcAddr: null, dstAddr: null, services: [], log });
  expect((await c.post('/api/policies', { action: 'deny' })).body.id).toBe('2');
  expect((await c.post('/api/policies', { action: 'allow', 'src-zone': '', 'dst-zone': 'any', 'src-addr': 'any', 'dst-addr': '', services: [] })).body.id).toBe('3');
  expect((await c.post('/api/policies', { action: 'deny', services: ['any'], log: false })).body.id).toBe('4');
  expect((await c.get('/api/policies/2?config=candidate')).body).toEqual(any(2, 'deny'));
  expect((await c.get('/api/policies/3?config=candidate')).body).toEqual(any(3, 'allow'));
  expect((await c.get('/api/policies/4?config=candidate')).body).toEqual(any(4, 'deny'));
  // new policies go to the bottom
  expect(await listIds()).toEqual([1, 2, 3, 4]);
});

test('a repeated service is kept once; ports ranges show in the nested service', async () => {
  const r = await c.post('/api/policies', { action: 'allow', services: ['high', 'web', 'high'] });
  const p = (await c.get(`/api/policies/${r.body.id}?config=candidate`)).body;
  expect(p.services).toEqual([HIGH, WEB]);
  expectMessage(await c.del(`/api/policies/${r.body.id}`), 'policy deleted from candidate');
});

test('partial update: present fields replace, "" / [] clear to any, absent keep', async () => {
  expectMessage(await c.put('/api/policies/3', { 'src-addr': 'lan', services: ['dns'] }), 'policy updated in candidate');
  let p = (await c.get('/api/policies/3?config=candidate')).body;
  expect(p).toEqual({ id: 3, action: 'allow', srcZone: null, dstZone: null, srcAddr: { name: 'lan', ips: [V4_NET, V4_HOST] }, dstAddr: null, services: [DNS], log: false });
  expectMessage(await c.put('/api/policies/3', { id: 3, action: 'deny', log: true }), 'policy updated in candidate');
  p = (await c.get('/api/policies/3?config=candidate')).body;
  expect(p).toMatchObject({ action: 'deny', log: true, srcAddr: { name: 'lan' }, services: [DNS] });
  expectMessage(await c.put('/api/policies/3', { 'src-addr': '', services: [] }), 'policy updated in candidate');
  p = (await c.get('/api/policies/3?config=candidate')).body;
  expect(p).toEqual({ id: 3, action: 'deny', srcZone: null, dstZone: null, srcAddr: null, dstAddr: null, services: [], log: true });
});

test('bad input: precise codes, details name the field, nothing changes', async () => {
  const before = (await c.get('/api/policies?config=candidate')).body;
  const cases: Array<[string, string, unknown, number, string, RegExp]> = [
    ['POST', '/api/policies', {}, 400, 'ERR_NET_1004', /action/],
    ['POST', '/api/policies', { action: 'permit' }, 400, 'ERR_SEC_1002', /action/],
    ['POST', '/api/policies', { action: 'allow', 'src-zone': 'dmz' }, 400, 'ERR_NET_2003', /src-zone.*dmz/],
    ['POST', '/api/policies', { action: 'allow', 'dst-addr': 'nowhere' }, 400, 'ERR_NET_2003', /dst-addr.*nowhere/],
    ['POST', '/api/policies', { action: 'allow', services: ['web', 'ftp'] }, 400, 'ERR_NET_2003', /services\[1\].*ftp/],
    ['POST', '/api/policies', { action: 'allow', services: ['any', 'web'] }, 400, 'ERR_NET_1004', /any/],
    ['POST', '/api/policies', { action: 'allow', log: 'true' }, 400, 'ERR_NET_1004', /log/],
    ['POST', '/api/policies', { action: 'allow', src_zone: 'trust' }, 400, 'ERR_NET_1004', /src_zone/],
    ['POST', '/api/policies', { action: 'allow', id: 9 }, 400, 'ERR_NET_1004', /id/],
    ['PUT', '/api/policies/1', { action: 'reject' }, 400, 'ERR_SEC_1002', /action/],
    ['PUT', '/api/policies/1', { id: 2 }, 400, 'ERR_NET_1004', /id/],
    ['PUT', '/api/policies/1', { 'dst-zone': 'nope' }, 400, 'ERR_NET_2003', /dst-zone/],
    ['PUT', '/api/policies/abc', { log: true }, 400, 'ERR_NET_1002', /abc/],
    ['PUT', '/api/policies/77', { log: true }, 404, 'ERR_NET_1003', /77/],
    ['DELETE', '/api/policies/0', undefined, 400, 'ERR_NET_1002', /0/],
    ['DELETE', '/api/policies/77', undefined, 404, 'ERR_NET_1003', /77/],
    ['GET', '/api/policies/x1', undefined, 400, 'ERR_NET_1002', /x1/],
  ];
  for (const [method, p, body, status, code, details] of cases) {
    const r = expectError(await c.req(method, p, body), status, code);
    expect(r.body.details).toMatch(details);
  }
  expect((await c.get('/api/policies?config=candidate')).body).toEqual(before);
});

describe('moves', () => {
  const move = (id: number | string, body: unknown) => c.post(`/api/policies/${id}/move`, body);

  test('top, bottom, before and after reorder without changing ids', async () => {
    expect(await listIds()).toEqual([1, 2, 3, 4]);
    expectMessage(await move(4, { position: 'top' }), 'policy moved successfully');
    expect(await listIds()).toEqual([4, 1, 2, 3]);
    expectMessage(await move(4, { position: 'bottom' }), 'policy moved successfully');
    expect(await listIds()).toEqual([1, 2, 3, 4]);
    expectMessage(await move(1, { position: 'after', reference_id: 3 }), 'policy moved successfully');
    expect(await listIds()).toEqual([2, 3, 1, 4]);
    expectMessage(await move(4, { position: 'before', reference_id: 2 }), 'policy moved successfully');
    expect(await listIds()).toEqual([4, 2, 3, 1]);
    expectMessage(await move(1, { position: 'before', reference_id: 4 }), 'policy moved successfully');
    expect(await listIds()).toEqual([1, 4, 2, 3]);
    // the moved policy keeps its content
    expect((await c.get('/api/policies?config=candidate')).body[0]).toMatchObject({ id: 1, action: 'allow', srcZone: TRUST, services: [WEB, DNS] });
    // running is untouched by moves in the candidate
    expect((await c.get('/api/policies')).body.map((p: { id: number }) => p.id)).toEqual([1]);
  });

  test('failed moves answer the right error and change nothing', async () => {
    const before = (await c.get('/api/policies?config=candidate')).body;
    const cases: Array<[number | string, unknown, number, string]> = [
      [2, { position: 'middle' }, 400, 'ERR_NET_1005'],
      [2, { position: 'Top' }, 400, 'ERR_NET_1005'],
      [2, {}, 400, 'ERR_NET_1004'],
      [2, undefined, 400, 'ERR_NET_1004'],
      [2, { position: 'before' }, 400, 'ERR_NET_1004'],
      [2, { position: 'after' }, 400, 'ERR_NET_1004'],
      [2, { position: 'after', reference_id: '3' }, 400, 'ERR_NET_1004'],
      [2, { position: 'before', reference_id: 2 }, 400, 'ERR_NET_2003'],
      [2, { position: 'after', reference_id: 99 }, 400, 'ERR_NET_2003'],
      [2, { position: 'top', where: 'x' }, 400, 'ERR_NET_1004'],
      [99, { position: 'top' }, 404, 'ERR_NET_1003'],
      ['abc', { position: 'top' }, 400, 'ERR_NET_1002'],
      ['0', { position: 'top' }, 400, 'ERR_NET_1002'],
    ];
    for (const [id, body, status, code] of cases) {
      expectError(await move(id, body), status, code);
    }
    expect((await c.get('/api/policies?config=candidate')).body).toEqual(before);
  });
});

describe('in use: an address, service or zone a policy references cannot be deleted', () => {
  test('409 ERR_NET_2007 naming every referring policy; deletable once unreferenced', async () => {
    const r1 = await c.post('/api/policies', { action: 'allow', 'dst-addr': 'lan', services: ['high'], 'dst-zone': 'untrust' });
    const id = r1.body.id as string;
    let r = expectError(await c.del('/api/addresses/lan'), 409, 'ERR_NET_2007');
    // policy 3's src-addr was cleared above: it no longer refers to lan
    expect(r.body.details).toBe(`address "lan" is used by policy 1, policy ${id}`);
    r = expectError(await c.del('/api/addresses/v6'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain('policy 1');
    r = expectError(await c.del('/api/services/high'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain(`policy ${id}`);
    r = expectError(await c.del('/api/services/web'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain('policy 1');
    r = expectError(await c.del('/api/zones/untrust'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain('policy 1');
    expect(r.body.details).toContain(`policy ${id}`);
    expect((await c.get('/api/services/high?config=candidate')).status).toBe(200);
    expectMessage(await c.del(`/api/policies/${id}`), 'policy deleted from candidate');
    expectMessage(await c.del('/api/services/high'), 'service deleted from candidate');
  });
});

describe('ids', () => {
  let deletedCommitted = 0; // the highest id committed, then deleted and committed again

  test('never reused after delete and create, across commits', async () => {
    const ids = await listIds();
    const top = Math.max(...ids);
    expectMessage(await c.del(`/api/policies/${top}`), 'policy deleted from candidate');
    const r = await c.post('/api/policies', { action: 'deny' });
    expect(Number(r.body.id)).toBeGreaterThan(top);
    expect((await c.post('/api/config/commit')).body.message).toBe('commit successful');
    expectMessage(await c.post('/api/config/begin'), 'config session started');
    const last = Number(r.body.id);
    expectMessage(await c.del(`/api/policies/${last}`), 'policy deleted from candidate');
    expect((await c.post('/api/config/commit')).body.message).toBe('commit successful');
    expectMessage(await c.post('/api/config/begin'), 'config session started');
    expect((await c.post('/api/policies', { action: 'deny' })).body.id).toBe(String(last + 1));
    deletedCommitted = last;
  });

  test('a discarded session leaves the committed rules and the counter as they were', async () => {
    const committed = (await c.get('/api/policies')).body;
    const ids = committed.map((p: { id: number }) => p.id);
    // the open session made policy last+1 above; discard it and delete a committed one in a new session
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
    expectMessage(await c.post('/api/config/begin'), 'config session started');
    expect((await c.get('/api/policies?config=candidate')).body).toEqual(committed);
    expectMessage(await c.del(`/api/policies/${ids[0]}`), 'policy deleted from candidate');
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
    expect((await c.get('/api/policies')).body).toEqual(committed);
    expectMessage(await c.post('/api/config/begin'), 'config session started');
    const r = await c.post('/api/policies', { action: 'allow' });
    // the next id after every id ever committed (the deleted one included); the id that the
    // discarded session handed out was never committed, so it is the next one again
    expect(deletedCommitted).toBeGreaterThan(Math.max(...ids));
    expect(r.body.id).toBe(String(deletedCommitted + 1));
  });
});
